"""git's smart HTTP on github.com, served by dulwich's upload-pack and receive-pack over the
environment's state: `GET /{owner}/{repo}[.git]/info/refs?service=...`, `POST .../git-upload-pack`
and `POST .../git-receive-pack`. Public repositories clone without credentials; a push, or any
use of a private repository, wants HTTP basic with a token as the password (git asks after
GitHub's 401). A push's new commits become `github_commits` rows, its refs `github_refs` rows.
"""

from __future__ import annotations

import gzip
from io import BytesIO

from dulwich.errors import HookError
from dulwich.protocol import ReceivableProtocol
from dulwich.repo import BaseRepo
from dulwich.server import Backend, ReceivePackHandler, UploadPackHandler
from fastapi import APIRouter, Request
from fastapi.responses import Response

from detour_core.errors import EnvironmentNotFound
from mock_services.deps import StoreDep, run_call
from mock_services.github import access
from mock_services.github.git import history
from mock_services.github.git.store import open_repo
from mock_services.github.handlers import protection
from mock_services.rest.errors import RestError
from mock_services.rest.router import Engine
from mock_services.store import EnvironmentStore, EnvState, Row

HANDLERS = {"git-upload-pack": UploadPackHandler, "git-receive-pack": ReceivePackHandler}
NEEDS = {"git-upload-pack": "read", "git-receive-pack": "write"}
CHALLENGE = {"WWW-Authenticate": 'Basic realm="GitHub"'}


class _OneRepository(Backend):
    def __init__(self, repo: object) -> None:
        self.repo = repo

    def open_repository(self, path: str) -> object:
        return self.repo


class _Protection:
    """dulwich's `update` hook: a push to a protected branch is declined as GitHub declines it."""

    def __init__(self, state: EnvState, user: str, repository: Row, repo: BaseRepo) -> None:
        self.state, self.user, self.repository, self.repo = state, user, repository, repo

    def execute(self, ref: bytes, old: bytes, new: bytes) -> tuple[bytes, bytes]:
        if not ref.startswith(b"refs/heads/") or set(old) == {ord("0")}:
            return b"", b""
        deleting = set(new) == {ord("0")}
        fast_forward = deleting or old in {e.commit.id for e in self.repo.get_walker(include=[new])}
        refused = protection.refusal(self.state, self.user, self.repository, ref.decode()[len("refs/heads/"):],
                                     fast_forward=fast_forward, deleting=deleting)
        if refused:
            raise HookError(f"protected branch hook declined: {refused}")
        return b"", b""


def _text(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return Response(message + "\n", status_code=status, media_type="text/plain", headers=headers)


def serve(store: EnvironmentStore, env_id: str, owner: str, name: str, service: str, headers: dict[str, str],
          body: bytes, advertise: bool) -> Response:
    """One request of git's protocol, in one transaction of the environment's state."""
    name = name.removesuffix(".git")
    try:
        with store.open(env_id, write=True, service="github") as state:
            if state.service != "github":
                return _text(404, "Repository not found.")
            user = str(access.ANONYMOUS)
            try:
                user = access.identify(state, None, headers)
                if user == str(access.ANONYMOUS) and service == "git-receive-pack":
                    return _text(401, "Authentication required.", CHALLENGE)
                repository = access.repository(state, user, owner, name, NEEDS[service])
            except RestError as refused:
                if refused.status == 404 and user == str(access.ANONYMOUS):
                    return _text(401, "Authentication required.", CHALLENGE)
                if refused.status == 401:
                    return _text(401, refused.message, CHALLENGE)
                return _text(refused.status if refused.status == 403 else 404,
                             "Permission denied." if refused.status == 403 else "Repository not found.")
            repo = open_repo(state, repository)
            repo.hooks["update"] = _Protection(state, user, repository, repo)
            out = BytesIO()
            proto = ReceivableProtocol(BytesIO(body).read, out.write)
            handler = HANDLERS[service](_OneRepository(repo), [b"/"], proto, stateless_rpc=True,
                                        advertise_refs=advertise)
            if advertise:
                proto.write_pkt_line(b"# service=" + service.encode() + b"\n")
                proto.write_pkt_line(None)
            handler.handle()
            if service == "git-receive-pack" and not advertise:
                tips = [sha for ref, sha in repo.get_refs().items() if ref.startswith(b"refs/")]
                if history.record(state, repo, repository["id"], tips):
                    state.update("github_repositories", {**repository, "pushed_at": history.iso(
                        int(state.clock().now()))})
    except EnvironmentNotFound:
        return _text(404, "Repository not found.")
    kind = "advertisement" if advertise else "result"
    return Response(out.getvalue(), media_type=f"application/x-{service}-{kind}",
                    headers={"Cache-Control": "no-cache, max-age=0, must-revalidate"})


def git_routes(router: APIRouter, engine: Engine) -> None:
    """The three paths of git's smart HTTP, with and without `.git`."""

    @router.get("/{owner}/{name}/info/refs")
    async def info_refs(env_id: str, owner: str, name: str, request: Request, store: StoreDep) -> Response:
        service = request.query_params.get("service", "")
        if service not in HANDLERS:
            return _text(403, "Please upgrade your git client (smart HTTP is required).")
        return await run_call(request, serve, store, env_id, owner, name, service, _headers(request), b"", True)

    @router.post("/{owner}/{name}/{service}")
    async def rpc(env_id: str, owner: str, name: str, service: str, request: Request, store: StoreDep) -> Response:
        if service not in HANDLERS:
            return await engine.answer(request, store, env_id, f"{owner}/{name}/{service}")
        body = await request.body()
        if request.headers.get("content-encoding", "").lower() == "gzip":
            body = gzip.decompress(body)
        return await run_call(request, serve, store, env_id, owner, name, service, _headers(request), body, False)


def _headers(request: Request) -> dict[str, str]:
    return {k.lower(): v for k, v in request.headers.items()}
