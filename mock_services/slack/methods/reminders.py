"""reminders.*: reminders a user sets for themselves or others.

`time` takes what Slack's does: a Unix timestamp, a number of seconds from now (up to a
day), or a phrase such as "in 15 minutes", "in 2 hours", "tomorrow".
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import new_id, now
from mock_services.store import Row

DAY = 86_400
UNITS = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "hr": 3600, "day": DAY, "week": 7 * DAY}
IN_PHRASE = re.compile(r"^in\s+(\d{1,6})\s+([a-z]+?)s?$")
MAX_AHEAD = 5 * 365 * DAY


class AddArgs(BaseModel):
    text: str
    time: str
    user: str | None = None
    recurrence: str | None = None


class ReminderArgs(BaseModel):
    reminder: str


def parse_time(value: str) -> int:
    value = value.strip().lower()
    if re.fullmatch(r"\d{1,12}(\.\d+)?", value):
        number = int(float(value))
        return now() + number if number <= DAY else number
    if value in ("tomorrow", "in a day"):
        return now() + DAY
    match = IN_PHRASE.fullmatch(value)
    if match and match.group(2) in UNITS:
        return now() + int(match.group(1)) * UNITS[match.group(2)]
    raise SlackError("cannot_parse")


def reminder_json(row: Row) -> dict:
    return {"id": row["reminder_id"], "creator": row["creator_id"], "user": row["user_id"], "text": row["text"],
            "recurring": False, "time": row["time"], "complete_ts": row["complete_ts"]}


def own_reminder(call: SlackCall) -> Row:
    row = call.state.first("reminders", reminder_id=call.args(ReminderArgs).reminder)
    if row is None or call.user_id not in (row["creator_id"], row["user_id"]):
        raise SlackError("not_found")
    return row


def add(call: SlackCall) -> dict:
    args = call.args(AddArgs)
    if args.recurrence:
        raise SlackError("cannot_parse")
    when = parse_time(args.time)
    if when > now() + MAX_AHEAD:
        raise SlackError("cannot_parse")
    user = call.other_user(args.user) if args.user else call.user
    if user.get("is_bot") and user["user_id"] != call.user_id:
        raise SlackError("cannot_add_bot")
    if not args.text.strip():
        raise SlackError("no_text")
    row = call.state.insert("reminders", {
        "reminder_id": new_id("Rm"), "creator_id": call.user_id, "user_id": user["user_id"], "text": args.text,
        "time": when, "complete_ts": 0})
    return {"reminder": reminder_json(row)}


def complete(call: SlackCall) -> dict:
    row = own_reminder(call)
    if row["complete_ts"]:
        raise SlackError("already_complete")
    call.state.update("reminders", {**row, "complete_ts": now()})
    return {}


def delete(call: SlackCall) -> dict:
    call.state.delete("reminders", own_reminder(call))
    return {}


def info(call: SlackCall) -> dict:
    return {"reminder": reminder_json(own_reminder(call))}


def list_reminders(call: SlackCall) -> dict:
    mine = [r for r in call.state.rows("reminders") if call.user_id in (r["creator_id"], r["user_id"])]
    return {"reminders": [reminder_json(r) for r in sorted(mine, key=lambda r: r["time"])]}


METHODS = {"reminders.add": add, "reminders.complete": complete, "reminders.delete": delete,
           "reminders.info": info, "reminders.list": list_reminders}
