"""A recurring event's occurrences: its RRULE, EXRULE, RDATE and EXDATE lines (RFC 5545),
expanded with python-dateutil in the event's own time zone, so a weekly 7pm stays 7pm
across a change of daylight saving time."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from dateutil.rrule import rruleset, rrulestr

from mock_services.calendar.times import UTC, moment, zone
from mock_services.rest.errors import RestError
from mock_services.store import Row

MOST = 2500                          # occurrences listed at most (Google's page limit)
HORIZON = timedelta(days=366 * 3)   # how far an unbounded series is followed without a timeMax


def _values(line: str, tz) -> list[datetime]:
    """The dates of an RDATE/EXDATE line (`EXDATE;TZID=Europe/Paris:20180618T190000,...`)."""
    head, _, values = line.partition(":")
    params = dict(p.split("=", 1) for p in head.split(";")[1:] if "=" in p)
    where = zone(params["TZID"]) if "TZID" in params else tz
    found = []
    for text in values.split(","):
        text = text.strip()
        if len(text) == 8:
            found.append(datetime.combine(date(int(text[:4]), int(text[4:6]), int(text[6:])), time(), where))
        elif text.endswith("Z"):
            found.append(datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).astimezone(where))
        elif text:
            found.append(datetime.strptime(text, "%Y%m%dT%H%M%S").replace(tzinfo=where))
    return found


def series(event: Row, calendar_zone: str | None) -> rruleset:
    start = moment(event["start"], calendar_zone)
    tz = zone(event["start"].get("timeZone") or calendar_zone)
    start = start.astimezone(tz)
    rules = rruleset()
    try:
        for line in event.get("recurrence") or []:
            name = line.split(":", 1)[0].split(";", 1)[0].upper()
            if name in ("RRULE", "EXRULE"):
                rule = rrulestr(line.split(":", 1)[1], dtstart=start)
                (rules.rrule if name == "RRULE" else rules.exrule)(rule)
            elif name in ("RDATE", "EXDATE"):
                for value in _values(line, tz):
                    (rules.rdate if name == "RDATE" else rules.exdate)(value)
            else:
                raise ValueError(line)
    except (ValueError, TypeError, KeyError, IndexError):
        raise RestError(400, "invalid", "Invalid recurrence rule.") from None
    return rules


def occurrences(event: Row, calendar_zone: str | None, after: datetime | None,
                before: datetime | None) -> list[datetime]:
    """Starts of the occurrences whose span reaches into [after, before)."""
    duration = moment(event["end"], calendar_zone) - moment(event["start"], calendar_zone)
    first = moment(event["start"], calendar_zone)
    low = (after - duration) if after else first
    high = before or max(first, after or first) + HORIZON
    found = []
    for start in series(event, calendar_zone).between(low - timedelta(seconds=1), high, inc=True):
        if (after is None or start + duration > after) and (before is None or start < before):
            found.append(start)
            if len(found) >= MOST:
                break
    return found


def instance_id(event_id: str, start: datetime, all_day: bool) -> str:
    """Google's instance ids: `<event>_20180618T020000Z`, or `<event>_20180618` all day."""
    return f"{event_id}_{start.strftime('%Y%m%d')}" if all_day else \
        f"{event_id}_{start.astimezone(UTC).strftime('%Y%m%dT%H%M%SZ')}"
