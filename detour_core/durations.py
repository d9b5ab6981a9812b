"""Durations as people write them (90s, 30m, 2h, 7d): the CLI's options and timelines' steps."""

from __future__ import annotations

import re

DURATION = re.compile(r"\+?(\d+(?:\.\d+)?)([smhd])")
UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def seconds(text: str) -> float:
    """`90s`, `30m`, `2h`, `7d` (a leading `+` allowed: "at +2m") in seconds; ValueError otherwise."""
    match = DURATION.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"a duration is a number and a unit (90s, 30m, 12h, 7d), not {text!r}")
    return float(match[1]) * UNIT_S[match[2]]
