"""Who a Google replica's call acts as, and the tokens it issues, read from the pack's own
users table: every Google pack (Calendar, Drive, Gmail) answers these the same way."""

from __future__ import annotations

from collections.abc import Callable

from mock_services.issued_tokens import Credentials
from mock_services.rest.google import issue_token, token_user
from mock_services.store import EnvState


def identify_in(users_table: str) -> Callable[[EnvState, str | None, dict[str, str]], str]:
    """The token's user where it names one of the environment's users, else the acting user."""
    def identify(state: EnvState, token: str | None, _headers: dict[str, str]) -> str:
        named = token_user(token)
        if named and state.first(users_table, id=named):
            return named
        return state.info.acting_user
    return identify


def credentials_in(users_table: str) -> Callable[[EnvState], Credentials]:
    """An OAuth access token per user; a sandbox gets the acting user's as GOOGLE_OAUTH_ACCESS_TOKEN
    (what `google.oauth2.credentials.Credentials(token=...)` takes)."""
    def credentials(state: EnvState) -> Credentials:
        tokens = {u["id"]: issue_token(u["id"]) for u in state.rows(users_table)}
        own = tokens.get(state.info.acting_user)
        return Credentials(tokens, {"GOOGLE_OAUTH_ACCESS_TOKEN": own} if own else {})
    return credentials
