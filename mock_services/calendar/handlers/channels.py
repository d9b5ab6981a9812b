"""Push channels: `*.watch` opens one on a resource, `channels.stop` closes it. The replica
keeps them as rows (AgentDiff's calendar_channels); events.py sends their notifications."""

from __future__ import annotations


from mock_services import clock
from mock_services.calendar import events
from mock_services.calendar.resources import channel_json
from mock_services.calendar.times import now_text
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call

WATCHED = "https://www.googleapis.com/calendar/v3"  # the discovery document's rootUrl and servicePath


def watch(call: Call, watched_path: str, row_path: str) -> dict:
    """A channel on a resource. The answer's `resourceUri` is Google's: the URL watched, as the
    request named it (`primary`, `me`); the row keeps AgentDiff's `resource_uri`, the path with
    the calendar's id and the user's (`/calendars/cal_x/events`, `/users/user_agent/settings`),
    which AgentDiff's suites assert on."""
    body = call.body or {}
    if not body.get("id") or not body.get("address"):
        raise RestError(400, "required", "Required" if body.get("id") else "Required channel id")
    if body.get("type", "web_hook") not in ("web_hook", "webhook"):
        raise RestError(400, "invalid", f"Invalid channel type: {body.get('type')}")
    if call.state.first("calendar_channels", id=body["id"]):
        raise RestError(400, "channelIdNotUnique", "Channel id not unique")
    row = {"id": body["id"], "resource_id": clock.token_hex(12), "resource_uri": row_path,
           "type": body.get("type", "web_hook"), "address": body["address"],
           "expiration": int(body["expiration"]) if str(body.get("expiration", "")).isdigit() else None,
           "token": body.get("token"), "params": body.get("params"), "payload": bool(body.get("payload", False)),
           "user_id": call.user, "created_at": now_text()}
    call.state.insert("calendar_channels", row)
    events.channel_made(call.state, row)
    return channel_json(row, WATCHED + watched_path)


def stop(call: Call) -> None:
    body = call.body or {}
    row = call.state.first("calendar_channels", id=body.get("id"))
    if row is None or (body.get("resourceId") and body["resourceId"] != row.get("resource_id")):
        raise RestError(404, "notFound", f"Channel '{body.get('id')}' not found for project")
    call.state.delete("calendar_channels", row)
