"""team.info, team.billableInfo, emoji.list, bots.info and migration.exchange: the workspace."""

from __future__ import annotations

from pydantic import BaseModel

from mock_services.slack.call import SlackCall, id_list
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import now
from mock_services.slack.serializers import bot_id, workspace_domain, workspace_team
from mock_services.store import Row


class TeamArgs(BaseModel):
    team: str | None = None


class BillableArgs(BaseModel):
    user: str | None = None


class BotArgs(BaseModel):
    bot: str | None = None


class MigrationArgs(BaseModel):
    users: str | list[str]
    to_old: bool = False


def team_info(call: SlackCall) -> dict:
    args = call.args(TeamArgs)
    team = call.state.first("teams", team_id=args.team) if args.team else call.state.first("teams")
    if team is None:
        raise SlackError("team_not_found")
    domain = workspace_domain(call.state)
    return {"team": {"id": team["team_id"], "name": team.get("team_name", ""), "url": f"https://{domain}.slack.com/",
                     "domain": domain, "email_domain": "", "icon": {"image_default": True},
                     "avatar_base_url": "https://ca.slack-edge.com/", "is_verified": False}}


def billable_info(call: SlackCall) -> dict:
    args = call.args(BillableArgs)
    users = [call.other_user(args.user)] if args.user else call.state.rows("users")
    return {"billable_info": {u["user_id"]: {"billing_active": not (u.get("is_bot") or u.get("is_deleted"))}
                              for u in users}}


def emoji_list(call: SlackCall) -> dict:
    """The workspace's custom emoji (an `emoji` table a template may seed); Slack's own are implied."""
    return {"emoji": {e["name"]: e.get("url", "") for e in call.state.rows("emoji")}, "cache_ts": f"{now()}.000000"}


def bot_json(user: Row) -> dict:
    return {"id": bot_id(user["user_id"]), "deleted": bool(user.get("is_deleted")), "name": user.get("username", ""),
            "updated": 0, "app_id": "A" + user["user_id"][1:], "user_id": user["user_id"],
            "icons": {"image_36": "", "image_48": "", "image_72": ""}}


def bots_info(call: SlackCall) -> dict:
    wanted = call.args(BotArgs).bot
    for user in call.state.rows("users"):
        mine = wanted is None and user["user_id"] == call.user_id
        if user.get("is_bot") and (bot_id(user["user_id"]) == wanted or mine):
            return {"bot": bot_json(user)}
    raise SlackError("bot_not_found")


def migration_exchange(call: SlackCall) -> dict:
    """The workspace was never migrated, so every known id maps to itself."""
    args = call.args(MigrationArgs)
    known = {u["user_id"] for u in call.state.rows("users")}
    wanted = id_list(args.users)
    team = workspace_team(call.state)
    return {"team_id": team.get("team_id", ""), "enterprise_id": "",
            "user_id_map": {u: u for u in wanted if u in known},
            "invalid_user_ids": [u for u in wanted if u not in known]}


METHODS = {"team.info": team_info, "team.billableInfo": billable_info, "emoji.list": emoji_list,
           "bots.info": bots_info, "migration.exchange": migration_exchange}
