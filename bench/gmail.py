"""Gmail's row of `make bench`: a search with Gmail's query language over a 1,000-message
mailbox, through the proxy (the mailbox is filled with `messages.insert` first, untimed)."""

from __future__ import annotations

import base64
import statistics
import time

import httpx

from bench.stats import percentile
from certs.authority import CertificateAuthority
from detour.stack import Stack
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore

AUTH = {"Authorization": "Bearer ya29.bench"}
BASE = "https://gmail.googleapis.com/gmail/v1/users/me"
MAILBOX = 1000
QUERIES = ("from:john subject:(weekly report)", "is:unread newer_than:30d", "has:attachment OR label:finance",
           '"quarterly numbers" -from:priya')


def mail(n: int) -> str:
    sender = ("john", "sarah", "priya", "robert")[n % 4]
    subject = ("Weekly report", "Quarterly numbers", "Lunch?", "Release notes")[n % 4]
    text = f"From: {sender}@example.com\r\nTo: agent@example.com\r\nSubject: {subject} #{n}\r\n\r\nMessage {n}.\r\n"
    return base64.urlsafe_b64encode(text.encode()).decode()


def bench_gmail_search(state: StatePaths, stack: Stack, store: EnvironmentStore, runs: int = 10) -> None:
    env_id = store.create("gmail_default").env_id
    proxy = stack.info.access(env_id, secret_for(state, env_id)).url()
    bundle = str(CertificateAuthority(state).ensure().bundle)
    with httpx.Client(proxy=proxy, verify=bundle, timeout=120) as client:
        present = client.get(f"{BASE}/profile", headers=AUTH).json()["messagesTotal"]
        for n in range(max(0, MAILBOX - present)):
            made = client.post(f"{BASE}/messages", headers=AUTH, json={"raw": mail(n), "labelIds": ["INBOX", "UNREAD"]})
            assert made.status_code == 200, made.text[:300]
        for query in QUERIES:
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                found = client.get(f"{BASE}/messages", headers=AUTH, params={"q": query, "maxResults": 100})
                times.append((time.perf_counter() - started) * 1000)
                assert found.status_code == 200, found.text[:300]
            print(f"  Gmail search over {MAILBOX} messages {query!r:<40} median {statistics.median(times):6.1f} ms   "
                  f"p90 {percentile(times, 90):6.1f} ms   ({found.json().get('resultSizeEstimate', 0)} found, n={runs})")
