"""Who a Slack token is: an issued one names its user (a bot token for a bot user, a user token
for a person); any other token acts as the environment's user, as AgentDiff's replica does,
unless the environment requires issued tokens, where it is `invalid_auth`, as on Slack.

Either way the caller meets Slack's rules (only the author edits a message; only the author,
or an admin with a user token, deletes one).
"""

from __future__ import annotations

import hashlib
import hmac

from mock_services.issued_tokens import SALT_KEY, Credentials, holder, issue
from mock_services.slack.errors import SlackError
from mock_services.store import EnvState, Row

BOT_PREFIX, USER_PREFIX = "xoxb-", "xoxp-"
APP_PREFIX = "xapp-1-"  # an app-level token: it opens Socket Mode connections and calls nothing else


def token_for(state: EnvState, user: Row) -> str | None:
    return issue(state.meta(SALT_KEY), BOT_PREFIX if user.get("is_bot") else USER_PREFIX, user["user_id"])


def app_token_for(state: EnvState, user_id: str) -> str | None:
    """The app-level token of the app whose user `user_id` is (the acting user's app)."""
    return issue(state.meta(SALT_KEY), APP_PREFIX, user_id)


def signing_secret(state: EnvState, user_id: str) -> str:
    """The signing secret of the app whose user `user_id` is (Events API requests are signed with
    it): derived from the environment's own salt, as its tokens are."""
    return hmac.new(str(state.meta(SALT_KEY)).encode(), f"signing:{user_id}".encode(), hashlib.sha256).hexdigest()[:32]


def is_app_token(token: str | None) -> bool:
    return bool(token and token.startswith(APP_PREFIX))


def identify(state: EnvState, token: str | None) -> str:
    """The id of the user the token acts as (for an app-level token, the app's user)."""
    named = holder(state.meta(SALT_KEY), (BOT_PREFIX, USER_PREFIX, APP_PREFIX), token)
    user = state.first("users", user_id=named) if named else None
    if user is not None and token in (token_for(state, user), app_token_for(state, named)):
        return user["user_id"]
    if state.info.require_issued_tokens:
        raise SlackError("invalid_auth")
    return state.info.acting_user


def credentials(state: EnvState) -> Credentials:
    """Every user's token; a sandbox gets the acting user's as SLACK_TOKEN and as SLACK_BOT_TOKEN
    (a bot user) or SLACK_USER_TOKEN (a person), and its app's app-level token as SLACK_APP_TOKEN
    (Socket Mode) and signing secret as SLACK_SIGNING_SECRET (the Events API over HTTP)."""
    tokens = {u["user_id"]: t for u in state.rows("users") if (t := token_for(state, u))}
    acting = state.first("users", user_id=state.info.acting_user)
    own = tokens.get(state.info.acting_user)
    if acting is None or own is None:
        return Credentials(tokens, {})
    kind = "SLACK_BOT_TOKEN" if acting.get("is_bot") else "SLACK_USER_TOKEN"
    app = app_token_for(state, state.info.acting_user) or ""
    return Credentials(tokens, {"SLACK_TOKEN": own, kind: own, "SLACK_APP_TOKEN": app,
                                "SLACK_SIGNING_SECRET": signing_secret(state, state.info.acting_user)})
