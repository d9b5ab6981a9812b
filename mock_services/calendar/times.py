"""Calendar time: Google's EventDateTime (`{"dateTime", "timeZone"}` or `{"date"}`) as aware
datetimes, RFC 3339 text, and the naive local columns AgentDiff's tables keep."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mock_services import clock
from mock_services.rest.errors import RestError

UTC = timezone.utc
HAS_OFFSET = re.compile(r"(?:[zZ]|[+-]\d\d:?\d\d)$")


def zone(name: str | None) -> ZoneInfo | timezone:
    if not name:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise RestError(400, "invalid", f"Invalid time zone definition: {name}") from None


def parse_instant(text: str, default_zone: str | None = None) -> datetime:
    """RFC 3339 (`2018-06-23T19:30:00-07:00`, `...Z`); without an offset, in `default_zone`."""
    try:
        value = datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        raise RestError(400, "invalid", f"Invalid value for time: {text}") from None
    return value if value.tzinfo else value.replace(tzinfo=zone(default_zone))


def parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except (ValueError, TypeError):
        raise RestError(400, "invalid", f"Invalid value for date: {text}") from None


def moment(when: dict, calendar_zone: str | None) -> datetime:
    """An EventDateTime as an aware instant (an all-day date: its midnight where it is)."""
    if not isinstance(when, dict):
        raise RestError(400, "invalid", "Invalid start or end time.")
    if when.get("dateTime"):
        return parse_instant(when["dateTime"], when.get("timeZone") or calendar_zone)
    if when.get("date"):
        day = parse_date(when["date"])
        return datetime.combine(day, time(), zone(when.get("timeZone") or calendar_zone))
    raise RestError(400, "required", "Missing time.")


def with_offset(when: dict, calendar_zone: str | None) -> dict:
    """A written EventDateTime as Google keeps and answers it: a `dateTime` given without an
    offset gets the offset of its `timeZone` (else the calendar's) at that wall-clock time
    (RFC 3339 requires one, and Google always answers with one). Every write of an event's
    times (insert, update, patch, import, quickAdd) goes through here."""
    text = when.get("dateTime")
    if not isinstance(text, str) or HAS_OFFSET.search(text):
        return when
    return when | {"dateTime": parse_instant(text, when.get("timeZone") or calendar_zone).isoformat(timespec="seconds")}


def local_column(when: dict) -> str | None:
    """AgentDiff's start_datetime/end_datetime: the wall-clock time, without an offset."""
    if when.get("dateTime"):
        return when["dateTime"][:19]
    if when.get("date"):
        return f"{when['date']}T00:00:00"
    return None


def utc_text(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def shifted(when: dict, to: datetime, all_day: bool) -> dict:
    """`when` moved to the instant `to` (an occurrence of a series), in its own zone."""
    if all_day:
        return {"date": to.date().isoformat()}
    result = {"dateTime": to.isoformat(timespec="seconds")}
    if when.get("timeZone"):
        result["timeZone"] = when["timeZone"]
    return result


def now_text() -> str:
    """Row timestamps in AgentDiff's style (naive UTC)."""
    return clock.utcnow().strftime("%Y-%m-%dT%H:%M:%S.%f")


def updated_text(row_value: str | None) -> str:
    """A row's naive UTC timestamp as Google's `updated` (RFC 3339, milliseconds, Z)."""
    if not row_value:
        return "1970-01-01T00:00:00.000Z"
    base, _, fraction = row_value.partition(".")
    return f"{base[:19]}.{(fraction + '000')[:3]}Z"
