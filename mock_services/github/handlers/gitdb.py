"""The git database API over the same objects and refs that git's own protocol serves: refs
(get, match, create, move with or without force, delete), commits, trees (recursive, and new
ones over a base tree), blobs, and tags listed by name."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from dulwich.objects import Blob, Commit, Tag, Tree

from mock_services.github import errors, shapes
from mock_services.github.shapes import UNSIGNED
from mock_services.github.git import history
from mock_services.github.handlers import protection
from mock_services.github.handlers.common import acting, git, now_seconds, peel, person, target
from mock_services.github.handlers.paging import page
from mock_services.rest.router import Call
from mock_services.store import Row

KINDS = {Commit: "commit", Tree: "tree", Blob: "blob", Tag: "tag"}


def _object(call: Call, repository: Row, sha: str | None, kind: type | tuple[type, ...]) -> Any:
    repo = git(call, repository)
    try:
        found = repo.object_store[str(sha or "").encode()]
    except (KeyError, ValueError):
        raise errors.not_found() from None
    if not isinstance(found, kind):
        names = " or ".join(KINDS[k] for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise errors.invalid(f"{sha} is not a {names}")
    return found


def _ref(call: Call, repository: Row, name: str, sha: bytes) -> dict[str, Any]:
    base = shapes.repo_url(call.state, repository)
    obj = git(call, repository).object_store[sha]
    return {"ref": name, "node_id": f"REF_{repository['id']}_{name}", "url": f"{base}/git/{name}",
            "object": {"type": type(obj).type_name.decode(), "sha": sha.decode(),
                       "url": f"{base}/git/{type(obj).type_name.decode()}s/{sha.decode()}"}}


def get_ref(call: Call) -> dict[str, Any]:
    repository = target(call)
    name = "refs/" + call.arg("ref")
    sha = git(call, repository).get_refs().get(name.encode())
    if sha is None:
        raise errors.not_found()
    return _ref(call, repository, name, sha)


def list_matching_refs(call: Call) -> list[Any]:
    repository = target(call)
    prefix = "refs/" + call.arg("ref")
    refs = sorted((n.decode(), s) for n, s in git(call, repository).get_refs().items() if n.startswith(b"refs/"))
    return page(call, [_ref(call, repository, n, s) for n, s in refs if n.startswith(prefix)])


def create_ref(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    body = call.body or {}
    name, sha = body.get("ref"), body.get("sha")
    if not isinstance(name, str) or not name.startswith("refs/") or name.count("/") < 2:
        raise errors.invalid("Reference name must start with 'refs/' and have at least two slashes.")
    repo = git(call, repository)
    if name.encode() in repo.get_refs():
        raise errors.invalid("Reference already exists")
    _object(call, repository, sha, (Commit, Tag))
    repo.refs[name.encode()] = sha.encode()  # type: ignore[union-attr]
    history.record(call.state, repo, repository["id"], [sha.encode()])  # type: ignore[union-attr]
    call.status = 201
    return _ref(call, repository, name, sha.encode())  # type: ignore[union-attr]


def update_ref(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    body = call.body or {}
    name = ("refs/" + call.arg("ref")).encode()
    repo = git(call, repository)
    current = repo.get_refs().get(name)
    if current is None:
        raise errors.invalid("Reference does not exist")
    new = str(body.get("sha", "")).encode()
    _object(call, repository, body.get("sha"), Commit)
    fast_forward = current in {e.commit.id for e in repo.get_walker(include=[new])}
    if not body.get("force") and not fast_forward:
        raise errors.invalid("Update is not a fast forward")
    _protected(call, repository, name, fast_forward=fast_forward)
    repo.refs[name] = new
    history.record(call.state, repo, repository["id"], [new])
    return _ref(call, repository, name.decode(), new)


def delete_ref(call: Call) -> None:
    repository = target(call, "write")
    name = ("refs/" + call.arg("ref")).encode()
    repo = git(call, repository)
    if name not in repo.get_refs():
        raise errors.invalid("Reference does not exist")
    _protected(call, repository, name, deleting=True)
    del repo.refs[name]


def _protected(call: Call, repository: Row, name: bytes, **change: bool) -> None:
    if name.startswith(b"refs/heads/"):
        refused = protection.refusal(call.state, call.user, repository, name.decode()[len("refs/heads/"):], **change)
        if refused:
            raise errors.invalid(f"Protected branch update failed for {name.decode()}: {refused}")


def _commit(call: Call, repository: Row, commit: Commit) -> dict[str, Any]:
    base = shapes.repo_url(call.state, repository)
    sha = commit.id.decode()
    return {"sha": sha, "node_id": f"C_{sha}", "url": f"{base}/git/commits/{sha}", "html_url": "",
            "author": person(commit.author, commit.author_time), "committer": person(commit.committer,
                                                                                     commit.commit_time),
            "message": commit.message.decode("utf-8", "replace"),
            "tree": {"sha": commit.tree.decode(), "url": f"{base}/git/trees/{commit.tree.decode()}"},
            "parents": [{"sha": p.decode(), "url": f"{base}/git/commits/{p.decode()}", "html_url": ""}
                        for p in commit.parents],
            "verification": UNSIGNED}


def get_commit(call: Call) -> dict[str, Any]:
    repository = target(call)
    return _commit(call, repository, _object(call, repository, call.arg("commit_sha"), Commit))


def create_commit(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    body = call.body or {}
    if not isinstance(body.get("message"), str):
        raise errors.invalid("message is missing", "Commit", "message", "missing_field")
    tree = _object(call, repository, body.get("tree"), Tree)
    parents = [_object(call, repository, p, Commit).id for p in body.get("parents") or []]
    me = acting(call)
    who = body.get("author") or {}
    repo = git(call, repository)
    sha = history.make_commit(repo, tree.id, parents, body["message"],
                              (who.get("name") or me.get("name") or me["login"], who.get("email") or me["email"]),
                              now_seconds())
    call.status = 201
    return _commit(call, repository, repo.object_store[sha])  # type: ignore[arg-type]


def _tree(call: Call, repository: Row, tree: Tree, recursive: bool, prefix: str = "") -> list[dict[str, Any]]:
    base = shapes.repo_url(call.state, repository)
    store = git(call, repository).object_store
    entries = []
    for entry in tree.items():
        path = prefix + entry.path.decode("utf-8", "replace")
        obj = store[entry.sha]
        kind = "tree" if isinstance(obj, Tree) else "blob"
        shaped = {"path": path, "mode": f"{entry.mode:06o}", "type": kind, "sha": entry.sha.decode(),
                  "url": f"{base}/git/{kind}s/{entry.sha.decode()}"}
        if kind == "blob":
            shaped["size"] = len(obj.data)  # type: ignore[attr-defined]
        entries.append(shaped)
        if kind == "tree" and recursive:
            entries.extend(_tree(call, repository, obj, True, path + "/"))  # type: ignore[arg-type]
    return entries


def get_tree(call: Call) -> dict[str, Any]:
    repository = target(call)
    repo = git(call, repository)
    name = call.arg("tree_sha")
    refs = repo.get_refs()
    sha = refs.get(f"refs/heads/{name}".encode()) or refs.get(f"refs/tags/{name}".encode()) or name.encode()
    found = _object(call, repository, sha.decode(), (Tree, Commit, Tag))
    if isinstance(found, Tag):
        found = repo.object_store[peel(repo, found.id)]
    tree = repo.object_store[found.tree] if isinstance(found, Commit) else found
    base = shapes.repo_url(call.state, repository)
    return {"sha": tree.id.decode(), "url": f"{base}/git/trees/{tree.id.decode()}",
            "tree": _tree(call, repository, tree, call.arg("recursive") not in (None, "", "0", "false")),
            "truncated": False}


def create_tree(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    repo = git(call, repository)
    body = call.body or {}
    files: history.Flat = {}
    if body.get("base_tree"):  # GitHub takes a commit for its tree too (the GitHub MCP server sends one)
        base = _object(call, repository, body["base_tree"], (Tree, Commit))
        files = history.flatten(repo, base.tree if isinstance(base, Commit) else base.id)
    for entry in body.get("tree") or []:
        path = str(entry.get("path", "")).strip("/").encode()
        if not path:
            raise errors.invalid("tree.path is missing", "Tree", "path", "missing_field")
        if "content" in entry:
            files[path] = (int(entry.get("mode", "100644"), 8), history.write_blob(repo, entry["content"].encode()))
        elif entry.get("sha") is None:
            files = {p: v for p, v in files.items() if p != path and not p.startswith(path + b"/")}
        else:
            files[path] = (int(entry.get("mode", "100644"), 8), _object(call, repository, entry["sha"], Blob).id)
    sha = history.build_tree(repo, files)
    call.status = 201
    base = shapes.repo_url(call.state, repository)
    return {"sha": sha.decode(), "url": f"{base}/git/trees/{sha.decode()}",
            "tree": _tree(call, repository, repo.object_store[sha], False), "truncated": False}  # type: ignore


def get_blob(call: Call) -> dict[str, Any]:
    repository = target(call)
    blob = _object(call, repository, call.arg("file_sha"), Blob)
    base = shapes.repo_url(call.state, repository)
    return {"sha": blob.id.decode(), "node_id": f"B_{blob.id.decode()}", "size": len(blob.data),
            "url": f"{base}/git/blobs/{blob.id.decode()}", "content": base64.encodebytes(blob.data).decode(),
            "encoding": "base64"}


def create_blob(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    body = call.body or {}
    content = body.get("content")
    if not isinstance(content, str):
        raise errors.invalid("content is missing", "Blob", "content", "missing_field")
    try:
        data = base64.b64decode(content) if body.get("encoding") == "base64" else content.encode()
    except binascii.Error:
        raise errors.invalid("content is not valid Base64", "Blob", "content", "invalid") from None
    sha = history.write_blob(git(call, repository), data)
    call.status = 201
    return {"sha": sha.decode(), "url": f"{shapes.repo_url(call.state, repository)}/git/blobs/{sha.decode()}"}


def list_tags(call: Call) -> list[Any]:
    repository = target(call)
    repo = git(call, repository)
    base = shapes.repo_url(call.state, repository)
    tags = []
    for name, sha in sorted(repo.get_refs().items(), reverse=True):
        if name.startswith(b"refs/tags/"):
            commit = peel(repo, sha).decode()
            tags.append({"name": name.decode()[len("refs/tags/"):], "node_id": f"TAG_{commit}",
                         "commit": {"sha": commit, "url": f"{base}/commits/{commit}"},
                         "zipball_url": f"{base}/zipball/{name.decode()}", "tarball_url": f"{base}/tarball/{name.decode()}"})
    return page(call, tags)


HANDLERS = {"git/get-ref": get_ref, "git/list-matching-refs": list_matching_refs, "git/create-ref": create_ref,
            "git/update-ref": update_ref, "git/delete-ref": delete_ref, "git/get-commit": get_commit,
            "git/create-commit": create_commit, "git/get-tree": get_tree, "git/create-tree": create_tree,
            "git/get-blob": get_blob, "git/create-blob": create_blob, "repos/list-tags": list_tags}
