"""Calendar rows of `make bench`: a month of a busy calendar listed as single events."""

from __future__ import annotations

import statistics
import time

import httpx

from bench.stats import percentile
from detour.stack import StackInfo
from mock_services.store import EnvironmentStore

AUTH = {"Authorization": "Bearer ya29.bench"}
MONTH = {"singleEvents": "true", "orderBy": "startTime", "timeMin": "2018-07-01T00:00:00-07:00",
         "timeMax": "2018-08-01T00:00:00-07:00", "maxResults": "2500"}


def busy_month(client: httpx.Client, base: str) -> int:
    """30 weekly and 10 daily series, and 150 single events, on one calendar in July 2018."""
    calendar = client.post(f"{base}/calendars", json={"summary": "Busy"}).json()["id"]
    for i in range(190):
        day, hour = 1 + i % 28, 8 + i % 10
        body = {"summary": f"event {i}", "start": {"dateTime": f"2018-07-{day:02d}T{hour:02d}:00:00",
                                                   "timeZone": "America/Los_Angeles"},
                "end": {"dateTime": f"2018-07-{day:02d}T{hour:02d}:30:00", "timeZone": "America/Los_Angeles"}}
        if i < 30:
            body["recurrence"] = ["RRULE:FREQ=WEEKLY"]
        elif i < 40:
            body["recurrence"] = ["RRULE:FREQ=DAILY;COUNT=40"]
        client.post(f"{base}/calendars/{calendar}/events", json=body).raise_for_status()
    return calendar


def bench_calendar_month(info: StackInfo, store: EnvironmentStore) -> None:
    env_id = store.create("calendar_default").env_id
    base = f"{info.replica_url}/api/env/{env_id}/services/calendar/calendar/v3"
    with httpx.Client(headers=AUTH, timeout=60) as client:
        calendar = busy_month(client, base)
        items = len(client.get(f"{base}/calendars/{calendar}/events", params=MONTH).json()["items"])
        latencies = []
        for _ in range(30):
            began = time.perf_counter()
            client.get(f"{base}/calendars/{calendar}/events", params=MONTH).raise_for_status()
            latencies.append((time.perf_counter() - began) * 1000)
    print(f"  events.list singleEvents, a month of a busy calendar ({items} instances of 40 series and 150 "
          f"events): median {statistics.median(latencies):6.1f} ms   p90 {percentile(latencies, 90):6.1f} ms   "
          f"(n={len(latencies)})")
