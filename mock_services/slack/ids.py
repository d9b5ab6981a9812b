"""Slack-shaped identifiers and timestamps for rows the replica creates."""

from __future__ import annotations

import string

from mock_services import clock
from mock_services.store import EnvState

ID_CHARS = string.ascii_uppercase + string.digits


def new_id(prefix: str) -> str:
    """Slack-shaped ids: a type letter (or two) and ten of [A-Z0-9]."""
    return prefix + clock.choice(ID_CHARS, 10)


def ts_string(micros: int) -> str:
    return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"


def new_ts(state: EnvState) -> str:
    """Slack's message ts: seconds.microseconds, unique within the workspace here."""
    micros = int(clock.now() * 1_000_000)
    while state.first("messages", message_id=ts_string(micros)):
        micros += 1
    return ts_string(micros)


def app_id(user_id: str) -> str:
    """An app's id: Slack's A… beside its user's U…."""
    return "A" + user_id[1:]


def now() -> int:
    return int(clock.now())
