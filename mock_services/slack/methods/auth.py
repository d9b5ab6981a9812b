"""auth.*, api.test and openid.connect.userInfo: who the token is, and revoking it.

A token the environment issued names its user; any other non-blank one names the environment's
acting user (slack/tokens.py). A token revoked with auth.revoke is refused from then on, as on Slack.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import now
from mock_services.slack.serializers import bot_id, workspace_domain, workspace_team


class RevokeArgs(BaseModel):
    test: bool = False


class ApiTestArgs(BaseModel):
    error: str | None = None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_token(call: SlackCall) -> None:
    token = call.token or ""
    if not token.isprintable() or not token.strip():
        raise SlackError("invalid_auth")
    if call.state.first("revoked_tokens", token_sha256=token_hash(token)):
        raise SlackError("token_revoked")


def auth_test(call: SlackCall) -> dict:
    user = call.user
    team = workspace_team(call.state)
    return {
        "url": f"https://{workspace_domain(call.state)}.slack.com/",
        "team": team.get("team_name", ""),
        "user": user.get("username", ""),
        "team_id": team.get("team_id", ""),
        "user_id": user["user_id"],
        "is_enterprise_install": False,
        **({"bot_id": bot_id(user["user_id"])} if user.get("is_bot") else {}),
    }


def revoke(call: SlackCall) -> dict:
    if call.args(RevokeArgs).test:
        return {"revoked": False}
    call.state.insert("revoked_tokens", {"token_sha256": token_hash(call.token or ""), "revoked_at": now()})
    return {"revoked": True}


def teams_list(call: SlackCall) -> dict:
    return {"teams": [{"id": t["team_id"], "name": t.get("team_name", "")} for t in call.state.rows("teams")],
            "response_metadata": {"next_cursor": ""}}


def api_test(call: SlackCall) -> dict:
    """Echoes its arguments; `error` makes it fail with that code, as Slack's does."""
    args = call.args(ApiTestArgs)
    if args.error:
        raise SlackError(args.error, args={k: v for k, v in call.params.items() if isinstance(v, str)})
    return {"args": call.params} if call.params else {}


def openid_user_info(call: SlackCall) -> dict:
    user = call.user
    team = workspace_team(call.state)
    return {"sub": user["user_id"], "https://slack.com/user_id": user["user_id"],
            "https://slack.com/team_id": team.get("team_id", ""), "email": user.get("email"),
            "email_verified": bool(user.get("email")), "name": user.get("real_name", ""),
            "given_name": (user.get("real_name") or "").split(" ")[0], "locale": "en-US",
            "https://slack.com/team_name": team.get("team_name", ""),
            "https://slack.com/team_domain": workspace_domain(call.state)}


METHODS = {"auth.test": auth_test, "auth.revoke": revoke, "auth.teams.list": teams_list, "api.test": api_test,
           "openid.connect.userInfo": openid_user_info}
