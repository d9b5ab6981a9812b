"""events.quickAdd's reading of a text, as Google's: the date, time and duration come out of
the text and the rest is the title ("Appointment at Somewhere on June 3rd 10am-10:25am" is
"Appointment at Somewhere" from 10:00 to 10:25 on June 3rd). The date expressions are found
by dateparser, relative to now in the calendar's time zone; this module only joins a start to
its end ("10am-10:25am", "3pm to 4pm", "for 30 minutes") and cuts them out of the title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from dateparser.search import search_dates

DEFAULT_LENGTH = timedelta(hours=1)  # Google's length for an event the text gives no end
RANGE_DASH = re.compile(r"(?<=[\dmM])\s*[-–]\s*(?=\d)")  # "10am-10:25am": a dash between two times
UNTIL = re.compile(r"^\s*(?:to|until|till|through)\s*$", re.IGNORECASE)
LENGTH = re.compile(r"\bfor\s+(\d+)\s*(minutes?|mins?|hours?|hrs?)\b", re.IGNORECASE)
HAS_TIME = re.compile(r"\d\s*(?:am|pm)\b|\d:\d\d|\bnoon\b|\bmidnight\b", re.IGNORECASE)
DANGLING = re.compile(r"\s+(?:on|at|from|for)$", re.IGNORECASE)


@dataclass
class QuickEvent:
    title: str
    start: datetime | date
    end: datetime | date


def _length(text: str) -> tuple[str, timedelta | None]:
    """The text without its "for 30 minutes", and that length."""
    found = LENGTH.search(text)
    if found is None:
        return text, None
    amount, unit = int(found.group(1)), found.group(2).lower()
    length = timedelta(hours=amount) if unit.startswith("h") else timedelta(minutes=amount)
    return text[:found.start()] + text[found.end():], length


def _title(text: str, spans: list[str]) -> str:
    for span in spans:
        text = text.replace(span, " ", 1)
    text = DANGLING.sub("", " ".join(text.split()))
    return text or "(No title)"


def read(text: str, now: datetime) -> QuickEvent | None:
    """The event `text` describes, its times naive in the calendar's zone (`now` is the zone's
    wall clock); None where the text names no date or time."""
    plain, length = _length(RANGE_DASH.sub(" to ", text))
    found = search_dates(plain, languages=["en"], settings={
        "RELATIVE_BASE": now, "PREFER_DATES_FROM": "future", "RETURN_AS_TIMEZONE_AWARE": False})
    if not found:
        return None
    start_text, start = found[0]
    spans = [start_text]
    end = None
    if len(found) > 1:
        between = plain[plain.index(start_text) + len(start_text):plain.index(found[1][0])]
        if UNTIL.match(between):
            end = datetime.combine(start.date(), found[1][1].time())
            spans += [between, found[1][0]]
    if not HAS_TIME.search(start_text):
        return QuickEvent(_title(plain, spans), start.date(), start.date() + timedelta(days=1))
    end = end if end is not None and end > start else start + (length or DEFAULT_LENGTH)
    return QuickEvent(_title(plain, spans), start, end)
