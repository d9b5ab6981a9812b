"""The contents API over the same git data a push writes: read a file or a folder at a ref,
the README, and create, update or delete a file, each a real commit on the branch."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

from dulwich.objects import Blob, Tree
from dulwich.repo import BaseRepo
from fastapi.responses import RedirectResponse, Response

from mock_services.github import errors, shapes
from mock_services.github.git import history
from mock_services.github.handlers import protection
from mock_services.github.handlers.common import acting, commit_json, git, now_seconds, resolve, target
from mock_services.rest.router import Call
from mock_services.store import Row


def _entry(call: Call, repository: Row, path: str, sha: bytes, kind: str, size: int, ref: str) -> dict[str, Any]:
    base = shapes.repo_url(call.state, repository)
    web = base.replace(shapes.API + "/repos", shapes.WEB)
    full = web.removeprefix(shapes.WEB + "/")
    download = f"https://raw.githubusercontent.com/{full}/{ref}/{path}" if kind == "file" else None
    links = {"self": f"{base}/contents/{path}?ref={ref}", "git": f"{base}/git/{'blobs' if kind == 'file' else 'trees'}/"
             f"{sha.decode()}", "html": f"{web}/{'blob' if kind == 'file' else 'tree'}/{ref}/{path}"}
    return {"type": kind, "size": size, "name": path.rsplit("/", 1)[-1], "path": path, "sha": sha.decode(),
            "url": links["self"], "git_url": links["git"], "html_url": links["html"], "download_url": download,
            "_links": links}


def _lookup(repo: BaseRepo, commit_sha: bytes, path: str) -> tuple[int, bytes] | None:
    tree = repo.object_store[commit_sha].tree  # type: ignore[attr-defined]
    if not path.strip("/"):
        return 0o40000, tree
    try:
        return repo.object_store[tree].lookup_path(repo.object_store.__getitem__, path.strip("/").encode())  # type: ignore
    except KeyError:
        return None


def _file(call: Call, repository: Row, path: str, sha: bytes, ref: str, repo: BaseRepo) -> dict[str, Any]:
    blob = repo.object_store[sha]
    assert isinstance(blob, Blob)
    encoded = base64.encodebytes(blob.data).decode()
    return {**_entry(call, repository, path, sha, "file", len(blob.data), ref), "encoding": "base64",
            "content": encoded}


def get_content(call: Call) -> Any:
    repository = target(call)
    repo = git(call, repository)
    ref = call.arg("ref") or repository["default_branch"]
    path = call.arg("path", "").strip("/")
    found = _lookup(repo, resolve(repo, ref, repository["default_branch"]), path)
    if found is None:
        raise errors.not_found()
    mode, sha = found
    obj = repo.object_store[sha]
    if isinstance(obj, Tree):
        return [_entry(call, repository, f"{path}/{e.path.decode()}".lstrip("/"), e.sha,
                       "dir" if isinstance(repo.object_store[e.sha], Tree) else "file",
                       0 if isinstance(repo.object_store[e.sha], Tree) else len(repo.object_store[e.sha].data), ref)
                for e in obj.items()]
    return _file(call, repository, path, sha, ref, repo)


def get_readme(call: Call) -> dict[str, Any]:
    repository = target(call)
    repo = git(call, repository)
    ref = call.arg("ref") or repository["default_branch"]
    tree = repo.object_store[repo.object_store[resolve(repo, ref, repository["default_branch"])].tree]  # type: ignore
    for entry in tree.items():  # type: ignore[attr-defined]
        if entry.path.decode().lower().startswith("readme"):
            return _file(call, repository, entry.path.decode(), entry.sha, ref, repo)
    raise errors.not_found()


def _write(call: Call, content: bytes | None) -> dict[str, Any]:
    """A commit on the branch that sets (or, with None, removes) the file at `path`."""
    repository = target(call, "write")
    repo = git(call, repository)
    body = call.body or {}
    if not isinstance(body.get("message"), str):
        raise errors.invalid("message is missing", "Commit", "message", "missing_field")
    path = call.arg("path").strip("/")
    branch = body.get("branch") or repository["default_branch"]
    ref = f"refs/heads/{branch}".encode()
    parent = repo.get_refs().get(ref)
    refused = protection.refusal(call.state, call.user, repository, branch)
    if refused:
        raise errors.conflict(refused)
    if parent is None and repo.get_refs():
        raise errors.RestError(404, "not_found", f"Branch {branch} not found")
    files = history.flatten(repo, repo.object_store[parent].tree) if parent else {}  # type: ignore[attr-defined]
    current = files.get(path.encode())
    if current is not None and body.get("sha") != current[1].decode():
        raise errors.conflict(f"{path} does not match {body.get('sha') or 'the sha given'}") if body.get("sha") \
            else errors.invalid('"sha" wasn\'t supplied.')
    if content is None:
        if current is None:
            raise errors.not_found()
        del files[path.encode()]
    else:
        files[path.encode()] = (history.FILE_MODE, history.write_blob(repo, content))
    me = acting(call)
    who = body.get("author") or body.get("committer") or {}
    author = (who.get("name") or me.get("name") or me["login"], who.get("email") or me["email"])
    sha = history.make_commit(repo, history.build_tree(repo, files), [parent] if parent else [], body["message"],
                              author, now_seconds())
    repo.refs[ref] = sha
    history.record(call.state, repo, repository["id"], [sha])
    commit = repo.object_store[sha]
    shaped = {"content": None if content is None else _entry(call, repository, path, files[path.encode()][1], "file",
                                                               len(content), branch),
              "commit": commit_json(call, repository, commit)}  # type: ignore[arg-type]
    call.status = 201 if content is not None and current is None else 200
    return shaped


def put_content(call: Call) -> dict[str, Any]:
    encoded = (call.body or {}).get("content")
    try:
        content = base64.b64decode(encoded, validate=False) if isinstance(encoded, str) else None
    except binascii.Error:
        content = None
    if content is None:
        raise errors.invalid("content is not valid Base64", "Commit", "content", "invalid")
    return _write(call, content)


def delete_file(call: Call) -> dict[str, Any]:
    if not (call.body or {}).get("sha"):
        raise errors.invalid('"sha" wasn\'t supplied.')
    return _write(call, None)


def _archive_link(kind: str) -> Callable[[Call], Response]:
    """The API's tarball and zipball links: a 302 to codeload.github.com, as GitHub answers."""
    def answer(call: Call) -> Response:
        repository = target(call)
        ref = call.arg("ref") or repository["default_branch"]
        resolve(git(call, repository), ref, repository["default_branch"])
        full = shapes.repository(call.state, repository)["full_name"]
        return RedirectResponse(f"https://codeload.github.com/{full}/legacy.{kind}/{ref}", status_code=302)
    return answer


HANDLERS = {"repos/get-content": get_content, "repos/get-readme": get_readme,
            "repos/create-or-update-file-contents": put_content, "repos/delete-file": delete_file,
            "repos/download-tarball-archive": _archive_link("tar.gz"),
            "repos/download-zipball-archive": _archive_link("zip")}
