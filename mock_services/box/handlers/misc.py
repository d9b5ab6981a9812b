"""The event stream, and the OAuth endpoints clients exchange and refresh tokens at."""

from __future__ import annotations

import secrets

from mock_services.box import access, errors, tree
from mock_services.box.resources import user_mini
from mock_services.rest.router import Call


def events(call: Call) -> dict:
    """Changes made in the environment since `stream_position` (`now` starts at the end)."""
    stream = call.state.meta(tree.EVENTS_KEY) or []
    position = call.arg("stream_position", "0")
    if position == "now":
        return {"chunk_size": 0, "next_stream_position": str(len(stream)), "entries": []}
    if not str(position).isdigit():
        raise errors.bad_request("Invalid stream_position", name="stream_position", reason="invalid_parameter")
    start, limit = int(position), min(call.arg("limit", 100), 500)
    wanted = set(call.arg("event_type") or [])
    chunk = [e for e in stream[start:start + limit] if not wanted or e["event_type"] in wanted]
    entries = [{**{k: v for k, v in e.items() if k != "created_by_id"},
                "created_by": user_mini(call, e.get("created_by_id"))} for e in chunk]
    return {"chunk_size": len(entries), "next_stream_position": str(min(start + limit, len(stream))),
            "entries": entries}


def long_polling(call: Call) -> dict:
    return {"chunk_size": 1, "entries": [{"type": "realtime_server", "url": "https://realtime.box.invalid/subscribe",
                                          "ttl": 10, "max_retries": 10, "retry_timeout": 610}]}


def token(call: Call) -> dict:
    """A token for the environment's acting user, or for the user a `box_subject_id` names."""
    form = call.body if isinstance(call.body, dict) else {}
    grant = form.get("grant_type", "")
    if grant not in ("client_credentials", "refresh_token", "authorization_code",
                     "urn:ietf:params:oauth:grant-type:jwt-bearer", "urn:ietf:params:oauth:grant-type:token-exchange"):
        raise errors.bad_request(f"Invalid grant_type parameter or parameter missing: {grant}",
                                 reason="invalid_grant")
    user = call.user
    if form.get("box_subject_type") == "user" and call.state.first("box_users", id=str(form.get("box_subject_id"))):
        user = str(form["box_subject_id"])
    return {"access_token": access.issue_token(user), "expires_in": 3600, "token_type": "bearer",
            "restricted_to": [], "refresh_token": secrets.token_urlsafe(32), "issued_token_type": None}


def revoke(call: Call) -> None:
    return None


HANDLERS = {
    "events.get_events": events, "events.get_events_with_long_polling": long_polling,
    "authorization.request_access_token": token, "authorization.refresh_access_token": token,
    "authorization.revoke_access_token": revoke,
}
