"""Users and organizations: the authenticated user, any user or organization by login, an
organization's members."""

from __future__ import annotations

from typing import Any

from mock_services.github import access, errors, shapes
from mock_services.github.handlers.common import acting
from mock_services.github.handlers.paging import page
from mock_services.rest.router import Call


def get_authenticated(call: Call) -> dict[str, Any]:
    me = acting(call)
    owned = call.state.rows("github_repositories", owner_id=me["id"])
    private = sum(bool(r.get("private")) for r in owned)
    return {**shapes.user(me), "two_factor_authentication": True, "bio": None, "blog": "",  # type: ignore[dict-item]
            "company": None, "location": None, "hireable": None, "followers": 0, "following": 0,
            "public_repos": len(owned) - private, "public_gists": 0, "private_gists": 0,
            "total_private_repos": private, "owned_private_repos": private, "disk_usage": 0, "collaborators": 0,
            "plan": {"name": "free", "space": 976562499, "private_repos": 10000, "collaborators": 0}}


def get_by_username(call: Call) -> dict[str, Any] | None:
    return shapes.user(access.account(call.state, call.arg("username")))


def get_org(call: Call) -> dict[str, Any] | None:
    org = access.account(call.state, call.arg("org"))
    if org.get("type") != "Organization":
        raise errors.not_found()
    return shapes.organization(call.state, org, full=True)


def list_org_members(call: Call) -> list[Any]:
    org = access.account(call.state, call.arg("org"))
    members = [shapes.user(call.state.first("github_users", id=m["user_id"]))
               for m in call.state.rows("github_org_members", org_id=org["id"])
               if call.arg("role", "all") in ("all", m["role"])]
    return page(call, members)


def list_orgs_for_user(call: Call) -> list[Any]:
    uid = access.account(call.state, call.arg("username"))["id"] if call.arg("username") else acting(call)["id"]
    orgs = [shapes.organization(call.state, call.state.first("github_users", id=m["org_id"]))  # type: ignore
            for m in call.state.rows("github_org_members", user_id=uid)]
    return page(call, orgs)


HANDLERS = {"users/get-authenticated": get_authenticated, "users/get-by-username": get_by_username,
            "orgs/get": get_org, "orgs/list-members": list_org_members,
            "orgs/list-for-authenticated-user": list_orgs_for_user, "orgs/list-for-user": list_orgs_for_user}
