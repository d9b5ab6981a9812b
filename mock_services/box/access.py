"""Who acts and what they may do: the token's user, and a user's role on an item from its
ownership and the collaborations on it or on any folder above it, as Box decides.

A user with no role on an item does not see it (404, as Box answers); a user whose role is too
small for what is asked gets 403 `access_denied_insufficient_permissions`.
"""

from __future__ import annotations

import hashlib
import secrets

from mock_services.box import errors
from mock_services.issued_tokens import Credentials
from mock_services.rest.router import Call
from mock_services.store import EnvState, Row

TOKEN_PREFIX = "box.detour."
# What each collaboration role may do; Box's roles, by what they grant.
SEE, DOWNLOAD, UPLOAD, EDIT, SHARE, OWN = "see", "download", "upload", "edit", "share", "own"
GRANTS = {
    "owner": {SEE, DOWNLOAD, UPLOAD, EDIT, SHARE, OWN},
    "co-owner": {SEE, DOWNLOAD, UPLOAD, EDIT, SHARE},
    "editor": {SEE, DOWNLOAD, UPLOAD, EDIT, SHARE},
    "viewer uploader": {SEE, DOWNLOAD, UPLOAD},
    "previewer uploader": {SEE, UPLOAD},
    "viewer": {SEE, DOWNLOAD},
    "previewer": {SEE},
    "uploader": {UPLOAD},
}
RANK = ("uploader", "previewer", "previewer uploader", "viewer", "viewer uploader", "editor", "co-owner", "owner")
ROOT = "0"
TABLES = {"file": "box_files", "folder": "box_folders", "web_link": "box_web_links"}


def issue_token(user_id: str) -> str:
    """A token that names the user it acts as (sandboxes hold no real secrets to protect)."""
    return f"{TOKEN_PREFIX}{user_id}.{secrets.token_urlsafe(12)}"


def signature_keys(env_id: str) -> tuple[str, str]:
    """The app's primary and secondary signature keys (drawn from the environment's id on read)."""
    return tuple(hashlib.sha256(f"box:{which}:{env_id}".encode()).hexdigest()[:32]  # type: ignore[return-value]
                 for which in ("primary", "secondary"))


def credentials(state: EnvState) -> Credentials:
    """A token per user; a sandbox gets the acting user's as BOX_DEVELOPER_TOKEN, and the app's
    webhook signature keys (the Developer Console's primary and secondary)."""
    tokens = {u["id"]: issue_token(u["id"]) for u in state.rows("box_users")}
    own = tokens.get(state.info.acting_user)
    primary, secondary = signature_keys(state.info.env_id)
    keys = {"BOX_WEBHOOK_PRIMARY_KEY": primary, "BOX_WEBHOOK_SECONDARY_KEY": secondary}
    return Credentials(tokens, {"BOX_DEVELOPER_TOKEN": own, **keys} if own else keys)


def identify(state: EnvState, token: str | None, headers: dict[str, str]) -> str:
    """The token's user where it names one of the environment's users, else the acting user
    (a developer token of any text acts as the environment's user, as AgentDiff's does); an
    admin's `As-User` header acts as that user instead."""
    user = state.info.acting_user
    if token and token.startswith(TOKEN_PREFIX):
        named = token[len(TOKEN_PREFIX):].rpartition(".")[0]
        if state.first("box_users", id=named):
            user = named
    wanted = headers.get("as-user")
    if not wanted:
        return user
    if (state.first("box_users", id=user) or {}).get("role") not in ("admin", "coadmin"):
        raise errors.forbidden("As-User is for admins")
    if state.first("box_users", id=wanted) is None:
        raise errors.bad_request("As-User names no user of this enterprise", name="As-User",
                                 reason="invalid_parameter")
    return wanted


def _groups_of(call: Call) -> set[str]:
    key = ("groups", call.user)
    if key not in call.memo:
        call.memo[key] = {m["group_id"] for m in call.state.rows("box_group_memberships", user_id=call.user)}
    return call.memo[key]


def role_on(call: Call, kind: str, row: Row) -> str | None:
    """The best role the acting user holds on the item, through the folders above it."""
    groups = _groups_of(call)
    best: str | None = None
    current: Row | None = row
    current_kind = kind
    while current is not None:
        if current["id"] == ROOT:
            return "owner" if current is row else best  # each user's own "All Files"; it grants nothing below
        if current.get("owned_by_id") == call.user:
            return "owner"
        for collab in call.state.rows("box_collaborations", item_id=current["id"], item_type=current_kind):
            holder = collab.get("accessible_by_id")
            applies = collab.get("status", "accepted") == "accepted" and (holder == call.user or holder in groups)
            if applies and (best is None or RANK.index(collab["role"]) > RANK.index(best)):
                best = collab["role"]
        parent = current.get("parent_id")
        current = call.state.first("box_folders", id=parent) if parent is not None else None
        current_kind = "folder"
    return best


def item(call: Call, kind: str, item_id: str, needs: str = SEE, trashed_ok: bool = False) -> Row:
    """The item, if the acting user may do `needs` with it; Box's 404 or 403 otherwise."""
    row = call.state.first(TABLES[kind], id=str(item_id))
    if row is None or row.get("item_status") == "deleted":
        raise errors.not_found(kind)
    role = role_on(call, kind, row)
    if role is None:
        raise errors.not_found(kind)
    if row.get("item_status") == "trashed" and not trashed_ok:
        raise errors.trashed(kind)
    if needs not in GRANTS.get(role, set()):
        raise errors.forbidden()
    return row
