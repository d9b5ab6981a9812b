"""users.getPresence/setPresence and dnd.*: whether a user is around, and snoozing.

Both are kept on the user's row (`presence`, `dnd_snooze_endtime`), so a diff shows them.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from mock_services.slack.call import SlackCall, id_list
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import now
from mock_services.store import Row

MAX_SNOOZE_MINUTES = 24 * 60 * 365


class UserArgs(BaseModel):
    user: str | None = None


class SetPresenceArgs(BaseModel):
    presence: str


class SnoozeArgs(BaseModel):
    num_minutes: int = Field(ge=1, le=MAX_SNOOZE_MINUTES)


class TeamInfoArgs(BaseModel):
    users: str | list[str] | None = None


def get_presence(call: SlackCall) -> dict:
    args = call.args(UserArgs)
    user = call.other_user(args.user) if args.user else call.user
    away = user.get("presence") == "away"
    body: dict = {"presence": "away" if away else "active"}
    if user["user_id"] == call.user_id:
        body |= {"online": not away, "auto_away": False, "manual_away": away, "connection_count": 1,
                 "last_activity": now()}
    return body


def set_presence(call: SlackCall) -> dict:
    presence = call.args(SetPresenceArgs).presence
    if presence not in ("auto", "away"):
        raise SlackError("invalid_presence")
    call.state.update("users", {**call.user, "presence": presence})
    return {}


def snooze_fields(user: Row) -> dict:
    end = user.get("dnd_snooze_endtime") or 0
    snoozing = end > now()
    return {"snooze_enabled": snoozing, **({"snooze_endtime": end, "snooze_remaining": end - now()}
                                           if snoozing else {})}


# No user has a DnD schedule here: only snoozes, which users start themselves.
DND_OFF = {"dnd_enabled": False, "next_dnd_start_ts": 1, "next_dnd_end_ts": 1}


def dnd_info(call: SlackCall) -> dict:
    args = call.args(UserArgs)
    user = call.other_user(args.user) if args.user else call.user
    own = user["user_id"] == call.user_id
    return {**DND_OFF, **(snooze_fields(user) if own else {})}


def set_snooze(call: SlackCall) -> dict:
    minutes = call.args(SnoozeArgs).num_minutes
    user = call.state.update("users", {**call.user, "dnd_snooze_endtime": now() + minutes * 60})
    return snooze_fields(user)


def end_snooze(call: SlackCall) -> dict:
    user = call.user
    if not snooze_fields(user)["snooze_enabled"]:
        raise SlackError("snooze_not_active")
    user = call.state.update("users", {**user, "dnd_snooze_endtime": 0})
    return {**DND_OFF, **snooze_fields(user)}


def end_dnd(call: SlackCall) -> dict:
    user = call.user
    if user.get("dnd_snooze_endtime"):
        call.state.update("users", {**user, "dnd_snooze_endtime": 0})
    return {}


def team_info(call: SlackCall) -> dict:
    wanted = id_list(call.args(TeamInfoArgs).users)
    users = [call.other_user(u) for u in wanted] if wanted else call.state.rows("users")
    return {"users": {u["user_id"]: DND_OFF for u in users}}


METHODS = {"users.getPresence": get_presence, "users.setPresence": set_presence, "dnd.info": dnd_info,
           "dnd.setSnooze": set_snooze, "dnd.endSnooze": end_snooze, "dnd.endDnd": end_dnd,
           "dnd.teamInfo": team_info}
