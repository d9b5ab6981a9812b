"""Who may see and change what: a user's role on a calendar, from ownership and the
calendar's ACL rules (freeBusyReader < reader < writer < owner), as Google decides it."""

from __future__ import annotations

from mock_services.issued_tokens import Credentials
from mock_services.rest.google import issue_token, token_user
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import EnvState, Row

ROLES = ("none", "freeBusyReader", "reader", "writer", "owner")


def rank(role: str) -> int:
    return ROLES.index(role) if role in ROLES else 0


def user_row(call: Call, user_id: str | None = None) -> Row:
    found = call.state.first("calendar_users", id=user_id or call.user)
    return found or {"id": user_id or call.user, "email": ""}


def user_email(call: Call, user_id: str | None = None) -> str:
    """Asked for every calendar and event a call touches: read once per call."""
    key = ("email", user_id or call.user)
    if key not in call.memo:
        call.memo[key] = str(user_row(call, user_id).get("email") or "")
    return call.memo[key]


def identify(state: EnvState, token: str | None, _headers: dict[str, str]) -> str:
    """The token's user where it names one of the environment's users, else the acting user."""
    named = token_user(token)
    if named and state.first("calendar_users", id=named):
        return named
    return state.info.acting_user


def credentials(state: EnvState) -> Credentials:
    """An OAuth access token per user; a sandbox gets the acting user's as GOOGLE_OAUTH_ACCESS_TOKEN
    (what `google.oauth2.credentials.Credentials(token=...)` takes)."""
    tokens = {u["id"]: issue_token(u["id"]) for u in state.rows("calendar_users")}
    own = tokens.get(state.info.acting_user)
    return Credentials(tokens, {"GOOGLE_OAUTH_ACCESS_TOKEN": own} if own else {})


def primary_id(call: Call) -> str:
    """`primary`: the user's primary calendar (its id is the user's email)."""
    entry = call.state.first("calendar_list_entries", user_id=call.user, primary=True)
    if entry:
        return entry["calendar_id"]
    return user_email(call) or call.user


def calendar_id(call: Call, given: str) -> str:
    return primary_id(call) if given == "primary" else given


def role_of(call: Call, calendar: Row, user_id: str | None = None) -> str:
    user_id = user_id or call.user
    if calendar.get("owner_id") == user_id:
        return "owner"
    email = user_email(call, user_id).lower()
    best = "none"
    for rule in call.state.rows("calendar_acl_rules", calendar_id=calendar["id"]):
        if rule.get("deleted"):
            continue
        scope, value = rule.get("scope_type"), str(rule.get("scope_value", "")).lower()
        applies = scope == "default" or (scope == "user" and value == email) or (
            scope == "domain" and bool(value) and email.endswith(f"@{value}"))  # a Workspace's own people
        if applies and rank(rule.get("role", "")) > rank(best):
            best = rule["role"]
    entry = call.state.first("calendar_list_entries", user_id=user_id, calendar_id=calendar["id"])
    if entry and not entry.get("deleted") and rank(entry.get("access_role", "")) > rank(best):
        best = entry["access_role"]
    return best


def calendar(call: Call, given: str, at_least: str = "freeBusyReader") -> tuple[Row, str]:
    """The calendar and the user's role on it: 404 where the user cannot see it at all (as
    Google answers), 403 where the role is too small for what is asked."""
    found = call.state.first("calendars", id=calendar_id(call, given))
    if found is None or found.get("deleted"):
        raise RestError(404, "notFound", "Not Found")
    role = role_of(call, found)
    if role == "none":
        raise RestError(404, "notFound", "Not Found")
    if rank(role) < rank(at_least):
        raise RestError(403, "forbidden", f"You need to have {at_least} access to this calendar.")
    return found, role
