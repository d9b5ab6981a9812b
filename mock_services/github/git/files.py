"""A repository's files outside the API: raw.githubusercontent.com (`/{owner}/{repo}/{ref}/{path}`,
where the ref may hold slashes) and codeload.github.com (`/{owner}/{repo}/tar.gz|zip/{ref}`, and
`legacy.tar.gz`/`legacy.zip`, where the REST API's tarball and zipball links point), and a
release asset's download (`github.com/{owner}/{repo}/releases/download/{tag}/{name}`). Their paths
share the replica's prefix with the REST API's, so a path the API knows goes to the engine; so
does `GET /repos/{o}/{r}/git/refs/{ref}`, the read GitHub still answers though its description
names only `git/ref/` and `git/matching-refs/` (the GitHub MCP server uses it)."""

from __future__ import annotations

import io
import re
import tarfile
import time
import zipfile

from dulwich.objects import Commit
from dulwich.repo import BaseRepo
from fastapi import APIRouter, Request
from fastapi.responses import Response

from detour_core.errors import EnvironmentNotFound
from mock_services.deps import StoreDep, run_call
from mock_services.github import access
from mock_services.github.git.history import flatten
from mock_services.github.git.store import open_repo
from mock_services.rest.errors import RestError
from mock_services.rest.router import Engine
from mock_services.store import EnvironmentStore, EnvState, Row

LEGACY_REFS = re.compile(r"(repos/[^/]+/[^/]+/git/)refs/(.+)")
ARCHIVES = {"tar.gz": "tar", "legacy.tar.gz": "tar", "zip": "zip", "legacy.zip": "zip"}


def _commit_for(repo: BaseRepo, words: list[str]) -> tuple[Commit, list[str]] | None:
    """The longest leading run of `words` that names a ref (or a commit id); the rest is a path."""
    refs = repo.get_refs()
    for cut in range(len(words), 0, -1):
        name = "/".join(words[:cut])
        for candidate in (name, f"refs/heads/{name}", f"refs/tags/{name}"):
            sha = refs.get(candidate.encode())
            if sha is not None:
                found = repo.object_store[sha]
                while not isinstance(found, Commit):
                    found = repo.object_store[found.object[1]]  # type: ignore[attr-defined]
                return found, words[cut:]
    if words and len(words[0]) == 40 and words[0].encode() in repo.object_store:
        return repo.object_store[words[0].encode()], words[1:]  # type: ignore[return-value]
    return None


def _archive(repo: BaseRepo, commit: Commit, kind: str, prefix: str) -> bytes:
    out = io.BytesIO()
    files = sorted(flatten(repo, commit.tree).items())
    if kind == "zip":
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            stamp = time.gmtime(commit.commit_time)[:6]  # the commit's time, not the wall clock's
            for path, (_, sha) in files:
                info = zipfile.ZipInfo(prefix + path.decode("utf-8", "replace"), stamp)
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, repo.object_store[sha].data)  # type: ignore[attr-defined]
    else:
        with tarfile.open(fileobj=out, mode="w:gz") as archive:
            for path, (mode, sha) in files:
                data = repo.object_store[sha].data  # type: ignore[attr-defined]
                info = tarfile.TarInfo(prefix + path.decode("utf-8", "replace"))
                info.size, info.mode, info.mtime = len(data), mode & 0o777, commit.commit_time
                archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _release_asset(state: EnvState, repository: Row, tag: str, name: str) -> Response | None:
    """`github.com/{owner}/{repo}/releases/download/{tag}/{name}`: an asset's bytes."""
    release = state.first("github_releases", repository_id=repository["id"], tag_name=tag)
    found = state.first("github_release_assets", release_id=release["id"], name=name) if release else None
    if found is None:
        return None
    return Response(state.blob(f"asset/{found['sha256']}") or b"", media_type=found["content_type"],
                    headers={"Content-Disposition": f"attachment; filename={name}"})


def serve(store: EnvironmentStore, env_id: str, owner: str, name: str, words: list[str],
          headers: dict[str, str]) -> Response | None:
    """The file or archive; None where no repository the caller may see is named (then the
    path is no file's either, and the API's 404 answers)."""
    not_found = Response("404: Not Found", status_code=404, media_type="text/plain")
    try:
        with store.open(env_id, service="github") as state:
            if state.service != "github":
                return None
            try:
                repository = access.repository(state, access.identify(state, None, headers), owner, name)
            except RestError:
                return None
            if words[:2] == ["releases", "download"] and len(words) == 4:
                return _release_asset(state, repository, words[2], words[3]) or not_found
            repo = open_repo(state, repository)
            archive = ARCHIVES.get(words[0]) if words else None
            found = _commit_for(repo, words[1:] if archive else words)
            if found is None:
                return not_found
            commit, path = found
            if archive:
                label = "-".join(words[1:]).replace("refs-heads-", "").replace("refs-tags-", "")
                data = _archive(repo, commit, archive, f"{repository['name']}-{label}/")
                filename = f"{repository['name']}-{label}.{'zip' if archive == 'zip' else 'tar.gz'}"
                return Response(data, media_type="application/zip" if archive == "zip" else "application/x-gzip",
                                headers={"Content-Disposition": f"attachment; filename={filename}"})
            entry = flatten(repo, commit.tree).get("/".join(path).encode())
            if entry is None:
                return not_found
            return Response(repo.object_store[entry[1]].data, media_type="text/plain; charset=utf-8")  # type: ignore
    except EnvironmentNotFound:
        return None


def file_routes(router: APIRouter, engine: Engine) -> None:
    @router.get("/{owner}/{name}/{rest:path}")
    async def raw_or_api(env_id: str, owner: str, name: str, rest: str, request: Request,
                         store: StoreDep) -> Response:
        path = f"{owner}/{name}/{rest}"
        legacy = LEGACY_REFS.fullmatch(path)
        if legacy:  # GitHub still answers the old read of refs: one ref where exact, else a list
            exact = await engine.answer(request, store, env_id, f"{legacy[1]}ref/{legacy[2]}")
            if exact.status_code != 404:
                return exact
            return await engine.answer(request, store, env_id, f"{legacy[1]}matching-refs/{legacy[2]}")
        try:
            engine.match("GET", path)
        except RestError:
            headers = {k.lower(): v for k, v in request.headers.items()}
            answer = await run_call(request, serve, store, env_id, owner, name, rest.split("/"), headers)
            if answer is not None:
                return answer
        return await engine.answer(request, store, env_id, path)
