"""A repository's settings and people: update (name, description, visibility, default branch,
archived), delete, topics, collaborators and their permissions, forks (the same objects under a
new owner), stars, webhooks (their events delivered: github/events.py) and languages."""

from __future__ import annotations

from typing import Any

from mock_services.github import access, errors, shapes
from mock_services.github.events import hook_made
from mock_services.github.git.history import flatten
from mock_services.github.handlers.common import acting, git, next_id, now, target
from mock_services.github.handlers.paging import page
from mock_services.github.handlers.repos import REPOS
from mock_services.rest.router import Call

COLLABORATORS, STARS, HOOKS = "github_collaborators", "github_stars", "github_hooks"
EXTENSIONS = {".py": "Python", ".ts": "TypeScript", ".js": "JavaScript", ".go": "Go", ".sh": "Shell",
              ".rb": "Ruby", ".rs": "Rust", ".java": "Java", ".md": None, ".yaml": "YAML", ".yml": "YAML"}


def update(call: Call) -> dict[str, Any]:
    repository = target(call, "admin")
    body = call.body or {}
    changed = dict(repository)
    for field in ("name", "description", "archived", "has_issues", "homepage"):
        if field in body:
            changed[field] = body[field]
    if "private" in body or "visibility" in body:
        changed["private"] = bool(body.get("private", body.get("visibility") == "private"))
    if body.get("default_branch"):
        if f"refs/heads/{body['default_branch']}".encode() not in git(call, repository).get_refs():
            raise errors.invalid("Cannot update default branch for this repository", "Repository",
                                 "default_branch", "invalid")
        changed["default_branch"] = body["default_branch"]
    changed["updated_at"] = now()
    call.state.update(REPOS, changed)
    return shapes.repository(call.state, changed, "admin")


def delete(call: Call) -> None:
    repository = target(call, "admin")
    call.state.delete(REPOS, repository)


def get_topics(call: Call) -> dict[str, Any]:
    return {"names": target(call).get("topics", [])}


def replace_topics(call: Call) -> dict[str, Any]:
    repository = target(call, "admin")
    names = (call.body or {}).get("names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise errors.invalid("names is missing", "Repository", "names", "missing_field")
    call.state.update(REPOS, {**repository, "topics": [n.lower() for n in names]})
    return {"names": [n.lower() for n in names]}


def _collaborator(call: Call, repository: dict, user: dict) -> dict[str, Any]:
    role = access.role_on(call.state, str(user["id"]), repository) or "read"
    return {**shapes.user(user), "role_name": role,  # type: ignore[dict-item]
            "permissions": shapes.repository(call.state, repository, role)["permissions"]}


def list_collaborators(call: Call) -> list[Any]:
    repository = target(call, "write")
    users = [u for u in call.state.rows("github_users", type="User")
             if access.role_on(call.state, str(u["id"]), {**repository, "private": True})]
    return page(call, [_collaborator(call, repository, u) for u in users])


def check_collaborator(call: Call) -> None:
    repository = target(call)
    user = access.account(call.state, call.arg("username"))
    if not access.role_on(call.state, str(user["id"]), {**repository, "private": True}):
        raise errors.not_found()


def add_collaborator(call: Call) -> dict[str, Any] | None:
    """Granted at once (GitHub sends an invitation the user accepts; here it is accepted)."""
    repository = target(call, "admin")
    user = access.account(call.state, call.arg("username"))
    permission = (call.body or {}).get("permission", "push")
    if permission not in access.PERMISSIONS:
        raise errors.invalid(f"permission {permission} is not valid", "Repository", "permission", "invalid")
    key = f"{repository['id']}/{user['id']}"
    row = {"id": key, "repository_id": repository["id"], "user_id": user["id"], "permission": permission}
    if call.state.first(COLLABORATORS, id=key):
        call.state.update(COLLABORATORS, row)
        return None
    call.state.insert(COLLABORATORS, row)
    call.status = 201
    return {"id": len(call.state.rows(COLLABORATORS)),
            "repository": shapes.repository(call.state, repository), "invitee": shapes.user(user),
            "inviter": shapes.user(acting(call)), "permissions": permission, "created_at": now()}


def remove_collaborator(call: Call) -> None:
    repository = target(call, "admin")
    user = access.account(call.state, call.arg("username"))
    row = call.state.first(COLLABORATORS, repository_id=repository["id"], user_id=user["id"])
    if row is not None:
        call.state.delete(COLLABORATORS, row)


def permission_level(call: Call) -> dict[str, Any]:
    repository = target(call)
    user = access.account(call.state, call.arg("username"))
    role = access.role_on(call.state, str(user["id"]), {**repository, "private": True})
    names = {"read": "read", "triage": "read", "write": "write", "maintain": "write", "admin": "admin"}
    return {"permission": names.get(role or "", "none"), "role_name": role or "none",
            "user": _collaborator(call, repository, user)}


def create_fork(call: Call) -> dict[str, Any]:
    """A new repository under the caller (or `organization`) with the source's refs; the objects
    are the environment's already."""
    source = target(call)
    body = call.body or {}
    owner = access.account(call.state, body["organization"]) if body.get("organization") else acting(call)
    name = body.get("name") or source["name"]
    existing = next((r for r in call.state.rows(REPOS, owner_id=owner["id"]) if r["name"] == name), None)
    if existing is not None:
        call.status = 202
        return shapes.repository(call.state, existing, "admin")
    stamp = now()
    fork = call.state.insert(REPOS, {**{k: source.get(k) for k in ("description", "private", "default_branch",
                                                                    "language", "topics")},
                                     "id": next_id(call, REPOS), "owner_id": owner["id"], "name": name, "fork": True,
                                     "parent_id": source["id"], "created_at": stamp, "updated_at": stamp,
                                     "pushed_at": stamp})
    refs = git(call, source).get_refs()
    wanted = [r for r in refs if r.startswith(b"refs/tags/") or not body.get("default_branch_only")
              or r == f"refs/heads/{source['default_branch']}".encode()]
    for ref in wanted:
        if ref.startswith(b"refs/"):
            call.state.insert("github_refs", {"repository_id": fork["id"], "ref": ref.decode(),
                                              "sha": refs[ref].decode()})
    for row in call.state.rows("github_commits", repository_id=source["id"]):
        call.state.insert("github_commits", {**row, "repository_id": fork["id"]})
    call.status = 202
    return {**shapes.repository(call.state, fork, "admin"), "parent": shapes.repository(call.state, source),
            "source": shapes.repository(call.state, source)}


def list_forks(call: Call) -> list[Any]:
    source = target(call)
    forks = [r for r in call.state.rows(REPOS) if r.get("parent_id") == source["id"]
             and access.role_on(call.state, call.user, r)]
    return page(call, [shapes.repository(call.state, r) for r in forks])


def star(call: Call) -> None:
    repository, me = target(call), acting(call)
    key = f"{me['id']}/{repository['id']}"
    if call.state.first(STARS, id=key) is None:
        call.state.insert(STARS, {"id": key, "user_id": me["id"], "repository_id": repository["id"],
                                  "starred_at": now()})


def unstar(call: Call) -> None:
    repository, me = target(call), acting(call)
    row = call.state.first(STARS, id=f"{me['id']}/{repository['id']}")
    if row is not None:
        call.state.delete(STARS, row)


def is_starred(call: Call) -> None:
    repository, me = target(call), acting(call)
    if call.state.first(STARS, id=f"{me['id']}/{repository['id']}") is None:
        raise errors.not_found()


def stargazers(call: Call) -> list[Any]:
    repository = target(call)
    return page(call, [shapes.user_by_id(call.state, s["user_id"])
                       for s in call.state.rows(STARS, repository_id=repository["id"])])


def starred(call: Call) -> list[Any]:
    me = acting(call)
    rows = [call.state.first(REPOS, id=s["repository_id"]) for s in call.state.rows(STARS, user_id=me["id"])]
    return page(call, [shapes.repository(call.state, r) for r in rows if r and access.role_on(call.state, call.user, r)])


def _hook(call: Call, repository: dict, row: dict) -> dict[str, Any]:
    base = shapes.repo_url(call.state, repository)
    return {"type": "Repository", "id": row["id"], "name": "web", "active": row["active"], "events": row["events"],
            "config": row["config"], "updated_at": row["updated_at"], "created_at": row["created_at"],
            "url": f"{base}/hooks/{row['id']}", "test_url": f"{base}/hooks/{row['id']}/test",
            "ping_url": f"{base}/hooks/{row['id']}/pings", "deliveries_url": f"{base}/hooks/{row['id']}/deliveries",
            "last_response": {"code": None, "status": "unused", "message": None}}


def create_hook(call: Call) -> dict[str, Any]:
    repository = target(call, "admin")
    body = call.body or {}
    config = body.get("config") or {}
    if not isinstance(config.get("url"), str):
        raise errors.invalid("url is missing", "Hook", "url", "missing_field")
    stamp = now()
    row = call.state.insert(HOOKS, {"id": next_id(call, HOOKS), "repository_id": repository["id"],
                                    "active": body.get("active", True), "events": body.get("events") or ["push"],
                                    "config": {k: v for k, v in config.items() if k != "secret"} |
                                    ({"secret": "********"} if config.get("secret") else {}),
                                    "created_at": stamp, "updated_at": stamp})
    hook_made(call.state, row, config.get("secret"))
    call.status = 201
    return _hook(call, repository, row)


def _hook_row(call: Call, repository: dict) -> dict:
    row = call.state.first(HOOKS, repository_id=repository["id"], id=call.arg("hook_id"))
    if row is None:
        raise errors.not_found()
    return row


def list_hooks(call: Call) -> list[Any]:
    repository = target(call, "admin")
    return page(call, [_hook(call, repository, r) for r in call.state.rows(HOOKS, repository_id=repository["id"])])


def get_hook(call: Call) -> dict[str, Any]:
    repository = target(call, "admin")
    return _hook(call, repository, _hook_row(call, repository))


def update_hook(call: Call) -> dict[str, Any]:
    repository = target(call, "admin")
    row = _hook_row(call, repository)
    body = call.body or {}
    changed = {**row, **{k: body[k] for k in ("active", "events") if k in body}, "updated_at": now()}
    if isinstance(body.get("config"), dict):
        changed["config"] = {**row["config"], **body["config"]}
    call.state.update(HOOKS, changed)
    return _hook(call, repository, changed)


def delete_hook(call: Call) -> None:
    repository = target(call, "admin")
    call.state.delete(HOOKS, _hook_row(call, repository))


def languages(call: Call) -> dict[str, int]:
    repository = target(call)
    repo = git(call, repository)
    main = repo.get_refs().get(f"refs/heads/{repository['default_branch']}".encode())
    counts: dict[str, int] = {}
    if main is not None:
        for path, (_, sha) in flatten(repo, repo.object_store[main].tree).items():  # type: ignore[attr-defined]
            language = EXTENSIONS.get("." + path.decode().rsplit(".", 1)[-1]) if b"." in path else None
            if language:
                counts[language] = counts.get(language, 0) + len(repo.object_store[sha].data)  # type: ignore
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


HANDLERS = {"repos/update": update, "repos/delete": delete, "repos/get-all-topics": get_topics,
            "repos/replace-all-topics": replace_topics, "repos/list-collaborators": list_collaborators,
            "repos/check-collaborator": check_collaborator, "repos/add-collaborator": add_collaborator,
            "repos/remove-collaborator": remove_collaborator,
            "repos/get-collaborator-permission-level": permission_level, "repos/create-fork": create_fork,
            "repos/list-forks": list_forks, "activity/star-repo-for-authenticated-user": star,
            "activity/unstar-repo-for-authenticated-user": unstar,
            "activity/check-repo-is-starred-by-authenticated-user": is_starred,
            "activity/list-stargazers-for-repo": stargazers, "activity/list-repos-starred-by-authenticated-user": starred,
            "repos/create-webhook": create_hook, "repos/list-webhooks": list_hooks, "repos/get-webhook": get_hook,
            "repos/update-webhook": update_hook, "repos/delete-webhook": delete_hook,
            "repos/list-languages": languages}
