"""Who a Linear API key is: a key the environment issued names its user; any other key acts as
the environment's user, unless the environment requires issued keys, where Linear's
authentication error answers (see mock_services/issued_tokens.py)."""

from __future__ import annotations

from mock_services.issued_tokens import SALT_KEY, Credentials, holder, issue
from mock_services.store import EnvState

PREFIX = "lin_api_"  # a personal API key, sent as the whole Authorization header (or after Bearer)
BEARER = "Bearer "  # an OAuth access token


def identify(state: EnvState, authorization: str) -> str | None:
    """The acting user's id, or None where the key must be refused: one that is neither a
    personal API key nor a bearer token is no key Linear accepts."""
    if not authorization.startswith((PREFIX, BEARER)):
        return None
    key = authorization.removeprefix(BEARER).strip()
    named = holder(state.meta(SALT_KEY), (PREFIX,), key)
    if named and state.first("users", id=named):
        return named
    return None if state.info.require_issued_tokens else state.info.acting_user


def credentials(state: EnvState) -> Credentials:
    """Every user's key; a sandbox gets the acting user's as LINEAR_API_KEY."""
    salt = state.meta(SALT_KEY)
    keys = {u["id"]: k for u in state.rows("users") if (k := issue(salt, PREFIX, u["id"]))}
    own = keys.get(state.info.acting_user)
    return Credentials(keys, {"LINEAR_API_KEY": own} if own else {})
