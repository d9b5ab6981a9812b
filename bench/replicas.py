"""The replica rows of `make bench`: environment creation (SQLite, Postgres), the diff, a mixed
Slack script and a nested Linear list."""

from __future__ import annotations

import os
import statistics
import time

import httpx

from bench.common import AUTH
from bench.stats import percentile
from detour.stack import StackInfo
from detour_core.paths import DATABASE_VARIABLE, StatePaths
from mock_services.store import EnvironmentStore


def bench_environment_creation(store: EnvironmentStore, label: str = "SQLite") -> None:
    """The first creation from a template also loads it (Postgres keeps a schema per template)."""
    for template in ("acme", "slack_default", "linear_default", "slack_bench_v2", "linear_expanded", "calendar_default",
                     "box_default", "drive_default", "gmail_default",
                     "github_default", "stripe_default", "jira_default", "twilio_default", "hubspot_default",
                     "zendesk_default", "jira_agile_default", "notion_default"):
        store.create(template)
        times = []
        for _ in range(30):
            start = time.perf_counter()
            store.create(template)
            times.append((time.perf_counter() - start) * 1000)
        print(f"  {label:<8} create from {template:<18} median {statistics.median(times):6.1f} ms   "
              f"p90 {percentile(times, 90):6.1f} ms   (n={len(times)})")
    bench_fork(store, label)


def bench_fork(store: EnvironmentStore, label: str) -> None:
    """One copy of a busy slack_bench_v2 environment at a time, then eight at once (goal on
    SQLite: at most 10 ms a fork)."""
    env = store.create("slack_bench_v2").env_id
    with store.open(env, write=True) as state:
        for n in range(50):
            state.insert("messages", {"message_id": f"9.{n:06d}", "channel_id": "C01ABCD1234", "message_text": "busy"})
    for count, runs in ((1, 30), (8, 5)):
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            store.fork(env, count)
            times.append((time.perf_counter() - start) * 1000 / count)
        print(f"  {label:<8} fork slack_bench_v2 x{count:<3}       median {statistics.median(times):6.1f} ms a fork   "
              f"p90 {percentile(times, 90):6.1f} ms   (n={runs})")


def bench_postgres_creation(state: StatePaths) -> None:
    """The same on a Postgres server of the bench's own (Debian's binaries, socket only)."""
    from tests.postgres import BINARIES, fresh_database, postgres_server
    if not BINARIES:
        print("  (no postgresql here: detour doctor --install)")
        return
    with postgres_server() as server, fresh_database(server) as url:
        os.environ[DATABASE_VARIABLE] = url
        try:
            bench_environment_creation(EnvironmentStore(state), "Postgres")
        finally:
            del os.environ[DATABASE_VARIABLE]


MIXED_CALLS = (
    ("chat.postMessage", {"channel": "general", "text": "bench"}),
    ("conversations.history", {"channel": "general", "limit": "20"}),
    ("conversations.list", {}),
    ("users.info", {"user": "U01AGENBOT9"}),
    ("conversations.info", {"channel": "general"}),
    ("users.list", {}),
    ("conversations.members", {"channel": "general"}),
    ("search.messages", {"query": "bench"}),
    ("auth.test", {}),
    ("conversations.replies", {"channel": "general", "ts": "{ts}"}),
)


def bench_slack_mixed(info: StackInfo, store: EnvironmentStore) -> None:
    """A script of 1,000 Slack calls of ten kinds, direct to the replica on one keep-alive connection."""
    env_id = store.create("slack_bench_v2").env_id
    base = f"{info.replica_url}/api/env/{env_id}/services/slack/api/"
    with httpx.Client(headers=AUTH) as client:
        ts = client.post(base + "chat.postMessage", data={"channel": "general", "text": "root"}).json()["ts"]
        latencies = []
        start = time.perf_counter()
        for i in range(1000):
            method, params = MIXED_CALLS[i % len(MIXED_CALLS)]
            began = time.perf_counter()
            response = client.post(base + method, data={k: v.format(ts=ts) for k, v in params.items()})
            latencies.append((time.perf_counter() - began) * 1000)
            assert response.json()["ok"], response.text
        elapsed = time.perf_counter() - start
    print(f"  1,000 mixed Slack calls (slack_bench_v2): {elapsed:5.2f} s   {1000 / elapsed:6.0f} calls/s   "
          f"p50 {statistics.median(latencies):5.1f} ms   p90 {percentile(latencies, 90):5.1f} ms")


ISSUE_LIST = """{ issues(first: 50) { nodes { id identifier title priority estimate createdAt
  team { id key name } state { id name type } assignee { id name email } labels { nodes { id name color } } } } }"""


def bench_linear_issue_list(info: StackInfo, store: EnvironmentStore) -> None:
    """A GraphQL list of 50 issues with nested team, state, assignee and labels (linear_expanded's 44
    issues and 6 more)."""
    env_id = store.create("linear_expanded").env_id
    url = f"{info.replica_url}/api/env/{env_id}/services/linear/graphql"
    with httpx.Client(headers={"Authorization": "lin_api_bench"}, timeout=30) as client:
        team = client.post(url, json={"query": "{ teams(first: 1) { nodes { id } } }"}).json()["data"]["teams"]["nodes"][0]
        for i in range(6):
            client.post(url, json={"query": "mutation($t: String!, $n: String!) { issueCreate(input: {teamId: $t, "
                                            "title: $n}) { success } }", "variables": {"t": team["id"], "n": f"bench {i}"}})
        first = client.post(url, json={"query": ISSUE_LIST}).json()
        assert len(first["data"]["issues"]["nodes"]) == 50, first
        latencies = []
        for _ in range(100):
            began = time.perf_counter()
            assert "errors" not in client.post(url, json={"query": ISSUE_LIST}).json()
            latencies.append((time.perf_counter() - began) * 1000)
    print(f"  issues(first: 50) with team, state, assignee, labels: median "
          f"{statistics.median(latencies):6.1f} ms   p90 {percentile(latencies, 90):6.1f} ms   (n={len(latencies)})")


def bench_diff_after_changes(store: EnvironmentStore) -> None:
    """Diff time once an environment has 1,000 changes (inserts, updates and deletes)."""
    env_id = store.create("slack_bench_v2").env_id
    with store.open(env_id, write=True) as state:
        for message in state.rows("messages"):  # the 116 seeded messages
            state.update("messages", {**message, "message_text": "edited"})
        for member in state.rows("channel_members"):  # 62
            state.delete("channel_members", member)
        for i in range(822):
            state.insert("messages", {"message_id": f"1800000000.{i:06d}", "channel_id": "C01ABCD1234",
                                      "user_id": "U01AGENBOT9", "message_text": f"bench {i}"})
    times = []
    for _ in range(20):
        start = time.perf_counter()
        diff = store.diff(env_id)
        times.append((time.perf_counter() - start) * 1000)
    changes = len(diff.inserts) + len(diff.updates) + len(diff.deletes)
    print(f"  diff with {changes} changes (slack_bench_v2)   median {statistics.median(times):6.1f} ms   (n={len(times)})")


def bench_world_diff(store: EnvironmentStore) -> None:
    """A world's one diff after 100 changes spread across four of its services (goal of acme's
    creation, printed beside it above: at most 50 ms on SQLite)."""
    env_id = store.create("acme").env_id
    with store.open(env_id, write=True, service="slack") as slack:
        for n in range(25):
            slack.insert("messages", {"message_id": f"1800000000.{n:06d}", "channel_id": "C04ENGINEER",
                                      "user_id": "U01AGENBOT9", "message_text": f"bench {n}"})
    with store.open(env_id, write=True, service="linear") as linear:
        for n in range(25):
            linear.insert("comments", {"id": f"bench-{n}", "issueId": "e5a1c9d2-7b3f-4e8a-9c1d-2f3a4b5c6d05",
                                       "body": f"bench {n}"})
    for service, table, field in (("calendar", "calendar_events", "summary"), ("box", "box_files", "description")):
        with store.open(env_id, write=True, service=service) as state:
            for row in state.rows(table)[:25]:
                state.update(table, {**row, field: "bench"})
    times = []
    for _ in range(20):
        start = time.perf_counter()
        diff = store.diff(env_id)
        times.append((time.perf_counter() - start) * 1000)
    services = sorted({r["__service__"] for r in [*diff.inserts, *diff.updates]})
    print(f"  diff of acme with {len(diff.inserts) + len(diff.updates)} changes across {', '.join(services)}   "
          f"median {statistics.median(times):6.1f} ms   (n={len(times)})")
