"""Repositories and their branches: get, list (the caller's, a user's, an organization's),
create (with `auto_init`: a first commit holding a README), list and get branches."""

from __future__ import annotations

from typing import Any

from mock_services.github import access, errors, shapes
from mock_services.github.git import history
from mock_services.github.handlers import protection
from mock_services.github.handlers.common import acting, commit_json, git, next_id, now, now_seconds, target
from mock_services.github.handlers.paging import page
from mock_services.rest.router import Call
from mock_services.store import Row

REPOS = "github_repositories"


def _shaped(call: Call, row: Row) -> dict[str, Any]:
    return shapes.repository(call.state, row, access.role_on(call.state, call.user, row))


def get(call: Call) -> dict[str, Any]:
    return _shaped(call, target(call))


def _visible(call: Call, rows: list[Row]) -> list[dict[str, Any]]:
    return [_shaped(call, r) for r in rows if access.role_on(call.state, call.user, r) is not None]


def _sorted(call: Call, rows: list[Row]) -> list[Row]:
    key = {"created": "created_at", "updated": "updated_at", "pushed": "pushed_at"}.get(call.arg("sort", ""), "")
    if not key:
        return sorted(rows, key=lambda r: r["name"].lower(), reverse=call.arg("direction") == "desc")
    return sorted(rows, key=lambda r: r.get(key) or r.get("created_at") or "", reverse=call.arg("direction") != "asc")


def list_for_authenticated_user(call: Call) -> list[Any]:
    me = acting(call)
    orgs = {m["org_id"] for m in call.state.rows("github_org_members", user_id=me["id"])}
    rows = [r for r in call.state.rows(REPOS) if r["owner_id"] == me["id"] or r["owner_id"] in orgs]
    if call.arg("visibility") in ("public", "private"):
        rows = [r for r in rows if bool(r.get("private")) == (call.arg("visibility") == "private")]
    return page(call, _visible(call, _sorted(call, rows)))


def list_for_owner(call: Call) -> list[Any]:
    owner = access.account(call.state, call.arg("org") or call.arg("username"))
    rows = call.state.rows(REPOS, owner_id=owner["id"])
    if call.arg("type") in ("public", "private"):
        rows = [r for r in rows if bool(r.get("private")) == (call.arg("type") == "private")]
    return page(call, _visible(call, _sorted(call, rows)))


def _create(call: Call, owner: Row) -> dict[str, Any]:
    body = call.body or {}
    name = body.get("name")
    if not isinstance(name, str) or not name.strip():
        raise errors.invalid("name is missing", "Repository", "name", "missing_field")
    if any(r["name"].lower() == name.lower() for r in call.state.rows(REPOS, owner_id=owner["id"])):
        raise errors.invalid("name already exists on this account", "Repository", "name", "custom")
    stamp = now()
    row = {"id": next_id(call, REPOS), "owner_id": owner["id"], "name": name.strip(),
           "description": body.get("description"), "private": bool(body.get("private", False)) or
           body.get("visibility") in ("private", "internal"), "default_branch": "main", "created_at": stamp,
           "updated_at": stamp, "pushed_at": stamp, "topics": []}
    call.state.insert(REPOS, row)
    if body.get("auto_init"):
        me = acting(call)
        repo = git(call, row)
        readme = history.write_blob(repo, f"# {row['name']}\n\n{row['description'] or ''}\n".encode())
        tree = history.build_tree(repo, {b"README.md": (history.FILE_MODE, readme)})
        sha = history.make_commit(repo, tree, [], "Initial commit", (me.get("name") or me["login"], me["email"]),
                                  now_seconds())
        repo.refs[b"refs/heads/main"] = sha
        repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/main")
        history.record(call.state, repo, row["id"], [sha])
    call.status = 201
    return _shaped(call, row)


def create_for_authenticated_user(call: Call) -> dict[str, Any]:
    return _create(call, acting(call))


def create_in_org(call: Call) -> dict[str, Any]:
    org = access.account(call.state, call.arg("org"))
    member = call.state.first("github_org_members", org_id=org["id"], user_id=acting(call)["id"])
    if member is None:
        raise errors.not_found()
    return _create(call, org)


def _branch(call: Call, repository: Row, name: str, sha: bytes) -> dict[str, Any]:
    base = shapes.repo_url(call.state, repository)
    return {"name": name, "commit": {"sha": sha.decode(), "url": f"{base}/commits/{sha.decode()}"},
            "protected": protection.rules(call.state, repository, name) is not None}


def list_branches(call: Call) -> list[Any]:
    repository = target(call)
    refs = git(call, repository).get_refs()
    branches = [_branch(call, repository, ref.decode()[len("refs/heads/"):], sha)
                for ref, sha in sorted(refs.items()) if ref.startswith(b"refs/heads/")]
    return page(call, branches)


def get_branch(call: Call) -> dict[str, Any]:
    repository = target(call)
    repo = git(call, repository)
    sha = repo.get_refs().get(f"refs/heads/{call.arg('branch')}".encode())
    if sha is None:
        raise errors.RestError(404, "not_found", "Branch not found")
    base = shapes.repo_url(call.state, repository)
    return {**_branch(call, repository, call.arg("branch"), sha),
            "commit": commit_json(call, repository, repo.object_store[sha]),  # type: ignore[arg-type]
            "_links": {"self": f"{base}/branches/{call.arg('branch')}", "html": ""},
            "protection": {"enabled": protection.rules(call.state, repository, call.arg("branch")) is not None,
                           "required_status_checks": {"enforcement_level": "off", "contexts": [], "checks": []}},
            "protection_url": f"{base}/branches/{call.arg('branch')}/protection"}


HANDLERS = {"repos/get": get, "repos/list-for-authenticated-user": list_for_authenticated_user,
            "repos/list-for-org": list_for_owner, "repos/list-for-user": list_for_owner,
            "repos/create-for-authenticated-user": create_for_authenticated_user,
            "repos/create-in-org": create_in_org, "repos/list-branches": list_branches,
            "repos/get-branch": get_branch}
