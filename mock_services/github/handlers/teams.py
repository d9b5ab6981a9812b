"""An organization's teams: create, read, update, delete; members (maintainer or member);
repositories with the permission the team grants on them, which raises its members' role there
(access.role_on reads it)."""

from __future__ import annotations

import re
from typing import Any

from mock_services.github import access, errors, shapes
from mock_services.github.handlers.common import acting, next_id, now
from mock_services.github.handlers.paging import page
from mock_services.rest.router import Call
from mock_services.store import Row

TEAMS, MEMBERS, REPOS = "github_teams", "github_team_members", "github_team_repos"


def _org(call: Call, needs_admin: bool = False) -> Row:
    org = access.account(call.state, call.arg("org"))
    if org.get("type") != "Organization":
        raise errors.not_found()
    member = call.state.first("github_org_members", org_id=org["id"], user_id=access.user_id(call.user))
    if member is None or (needs_admin and member["role"] != "admin"):
        raise errors.not_found() if member is None else errors.forbidden("Must be an organization owner")
    return org


def _team(call: Call, org: Row) -> Row:
    found = call.state.first(TEAMS, org_id=org["id"], slug=call.arg("team_slug"))
    if found is None:
        raise errors.not_found()
    return found


def shape(call: Call, org: Row, row: Row, full: bool = False) -> dict[str, Any]:
    url = f"{shapes.API}/orgs/{org['login']}/teams/{row['slug']}"
    shaped = {"id": row["id"], "node_id": f"T_{row['id']}", "url": url, "name": row["name"], "slug": row["slug"],
              "description": row.get("description"), "privacy": row.get("privacy", "closed"),
              "notification_setting": "notifications_enabled", "permission": row.get("permission", "pull"),
              "members_url": f"{url}/members{{/member}}", "repositories_url": f"{url}/repos",
              "html_url": f"{shapes.WEB}/orgs/{org['login']}/teams/{row['slug']}", "parent": None,
              "type": "organization"}
    if full:
        shaped.update(members_count=len(call.state.rows(MEMBERS, team_id=row["id"])),
                      repos_count=len(call.state.rows(REPOS, team_id=row["id"])),
                      organization=shapes.organization(call.state, org, full=True),
                      created_at=row["created_at"], updated_at=row["updated_at"])
    return shaped


def list_teams(call: Call) -> list[Any]:
    org = _org(call)
    return page(call, [shape(call, org, t) for t in call.state.rows(TEAMS, org_id=org["id"])])


def create(call: Call) -> dict[str, Any]:
    org = _org(call, needs_admin=True)
    body = call.body or {}
    name = body.get("name")
    if not isinstance(name, str) or not name.strip():
        raise errors.invalid("name is missing", "Team", "name", "missing_field")
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if call.state.first(TEAMS, org_id=org["id"], slug=slug):
        raise errors.invalid("Name must be unique for this org", "Team", "name", "already_exists")
    stamp = now()
    row = call.state.insert(TEAMS, {"id": next_id(call, TEAMS), "org_id": org["id"], "name": name, "slug": slug,
                                    "description": body.get("description"), "privacy": body.get("privacy", "secret"),
                                    "permission": body.get("permission", "pull"), "created_at": stamp,
                                    "updated_at": stamp})
    for login in body.get("maintainers") or [acting(call)["login"]]:
        user = access.account(call.state, login)
        call.state.insert(MEMBERS, {"id": f"{row['id']}/{user['id']}", "team_id": row["id"], "user_id": user["id"],
                                    "role": "maintainer"})
    call.status = 201
    return shape(call, org, row, full=True)


def get(call: Call) -> dict[str, Any]:
    org = _org(call)
    return shape(call, org, _team(call, org), full=True)


def update(call: Call) -> dict[str, Any]:
    org = _org(call, needs_admin=True)
    row = _team(call, org)
    body = call.body or {}
    changed = call.state.update(TEAMS, {**row, **{k: body[k] for k in ("name", "description", "privacy", "permission")
                                                  if k in body}, "updated_at": now()})
    return shape(call, org, changed, full=True)


def delete(call: Call) -> None:
    org = _org(call, needs_admin=True)
    row = _team(call, org)
    for table in (MEMBERS, REPOS):
        for linked in call.state.rows(table, team_id=row["id"]):
            call.state.delete(table, linked)
    call.state.delete(TEAMS, row)


def members(call: Call) -> list[Any]:
    org = _org(call)
    team = _team(call, org)
    rows = [m for m in call.state.rows(MEMBERS, team_id=team["id"]) if call.arg("role", "all") in ("all", m["role"])]
    return page(call, [shapes.user_by_id(call.state, m["user_id"]) for m in rows])


def _membership(call: Call, org: Row, row: Row) -> dict[str, Any]:
    user = call.state.first("github_users", id=row["user_id"])
    return {"url": f"{shapes.API}/orgs/{org['login']}/teams/{call.arg('team_slug')}/memberships/{user['login']}",  # type: ignore
            "role": row["role"], "state": "active"}


def get_membership(call: Call) -> dict[str, Any]:
    org = _org(call)
    team = _team(call, org)
    user = access.account(call.state, call.arg("username"))
    row = call.state.first(MEMBERS, team_id=team["id"], user_id=user["id"])
    if row is None:
        raise errors.not_found()
    return _membership(call, org, row)


def set_membership(call: Call) -> dict[str, Any]:
    org = _org(call, needs_admin=True)
    team = _team(call, org)
    user = access.account(call.state, call.arg("username"))
    role = (call.body or {}).get("role", "member")
    row = {"id": f"{team['id']}/{user['id']}", "team_id": team["id"], "user_id": user["id"], "role": role}
    if call.state.first(MEMBERS, id=row["id"]):
        call.state.update(MEMBERS, row)
    else:
        call.state.insert(MEMBERS, row)
    return _membership(call, org, row)


def remove_membership(call: Call) -> None:
    org = _org(call, needs_admin=True)
    team = _team(call, org)
    user = access.account(call.state, call.arg("username"))
    row = call.state.first(MEMBERS, team_id=team["id"], user_id=user["id"])
    if row is None:
        raise errors.not_found()
    call.state.delete(MEMBERS, row)


def _repository(call: Call, org: Row) -> Row:
    repository = access.repository(call.state, call.user, call.arg("owner"), call.arg("repo"))
    if repository["owner_id"] != org["id"]:
        raise errors.invalid("Repository must be owned by the organization")
    return repository


def list_repos(call: Call) -> list[Any]:
    org = _org(call)
    team = _team(call, org)
    rows = [call.state.first("github_repositories", id=r["repository_id"]) for r in call.state.rows(REPOS, team_id=team["id"])]
    return page(call, [shapes.repository(call.state, r) for r in rows if r])


def set_repo(call: Call) -> None:
    org = _org(call, needs_admin=True)
    team = _team(call, org)
    repository = _repository(call, org)
    permission = (call.body or {}).get("permission", "push")
    if permission not in access.PERMISSIONS:
        raise errors.invalid(f"permission {permission} is not valid", "Team", "permission", "invalid")
    row = {"id": f"{team['id']}/{repository['id']}", "team_id": team["id"], "repository_id": repository["id"],
           "permission": permission}
    if call.state.first(REPOS, id=row["id"]):
        call.state.update(REPOS, row)
    else:
        call.state.insert(REPOS, row)


def remove_repo(call: Call) -> None:
    org = _org(call, needs_admin=True)
    team = _team(call, org)
    repository = _repository(call, org)
    row = call.state.first(REPOS, team_id=team["id"], repository_id=repository["id"])
    if row is not None:
        call.state.delete(REPOS, row)


def repo_teams(call: Call) -> list[Any]:
    repository = access.repository(call.state, call.user, call.arg("owner"), call.arg("repo"))
    org = call.state.first("github_users", id=repository["owner_id"])
    teams = [call.state.first(TEAMS, id=r["team_id"]) for r in call.state.rows(REPOS, repository_id=repository["id"])]
    return page(call, [{**shape(call, org, t), "permission": r["permission"]}  # type: ignore[arg-type]
                       for t, r in zip(teams, call.state.rows(REPOS, repository_id=repository["id"])) if t])


HANDLERS = {"teams/list": list_teams, "teams/create": create, "teams/get-by-name": get, "teams/update-in-org": update,
            "teams/delete-in-org": delete, "teams/list-members-in-org": members,
            "teams/get-membership-for-user-in-org": get_membership,
            "teams/add-or-update-membership-for-user-in-org": set_membership,
            "teams/remove-membership-for-user-in-org": remove_membership, "teams/list-repos-in-org": list_repos,
            "teams/add-or-update-repo-permissions-in-org": set_repo, "teams/remove-repo-in-org": remove_repo,
            "repos/list-teams": repo_teams}
