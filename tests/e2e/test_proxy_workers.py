"""Several proxy workers on one set of ports, each answering the replicas in its own process:
connections spread over the workers, and what one environment sees stays one whole (its
state, its request budget, its audit records, its faults' counts)."""

import json
from concurrent.futures import ThreadPoolExecutor

import httpx
import psutil
import pytest
from httpx_sse import connect_sse

from certs.authority import CertificateAuthority
from detour_core.audit import AuditLog
from detour_core.credentials import secret_for
from detour_core.faults import Fault
from detour_core.paths import StatePaths
from detour_core.policy import set_faults
from detour.stack import Stack, StackError
from mock_services.request_budget import RequestBudget
from mock_services.store import EnvironmentStore

CONNECTIONS = 16
AUTH = {"Authorization": "Bearer xoxb-workers"}


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory):
    """One stack for the module: each test makes environments of its own."""
    state = StatePaths(tmp_path_factory.mktemp("workers") / "home").ensure()
    stack = Stack(state, workers=2)
    with stack as info:
        yield state, stack, info


def clients(state: StatePaths, info, env_id: str) -> list[httpx.Client]:
    proxy = info.access(env_id, secret_for(state, env_id)).url()
    bundle = str(CertificateAuthority(state).ensure().bundle)
    # Not httpx's 5 s: a busy machine's first calls (each worker's first handshakes) may take longer.
    return [httpx.Client(proxy=proxy, verify=bundle, headers=AUTH, timeout=60) for _ in range(CONNECTIONS)]


def established(pid: int, port: int) -> int:
    return sum(c.status == psutil.CONN_ESTABLISHED and c.laddr.port == port
               for c in psutil.Process(pid).net_connections("tcp"))


def test_connections_spread_over_the_workers_and_one_environment_stays_whole(two_workers):
    state, stack, info = two_workers
    assert sorted(stack.processes) == ["dns", "proxy", "proxy-2", "replicas"]
    env_id = EnvironmentStore(state).create("slack_default").env_id
    open_clients = clients(state, info, env_id)
    try:
        def post(n: int) -> dict:
            return open_clients[n].post("https://slack.com/api/chat.postMessage",
                                        json={"channel": "general", "text": f"from connection {n}"}).json()
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(post, range(CONNECTIONS)))
        assert all(a["ok"] for a in answers), answers
        per_worker = [established(stack.processes[name].pid, info.proxy_port) for name in ("proxy", "proxy-2")]
    finally:
        for client in open_clients:
            client.close()
    assert sum(per_worker) == CONNECTIONS and min(per_worker) > 0, per_worker
    texts = {row["message_text"] for row in EnvironmentStore(state).diff(env_id).inserts}
    assert texts == {f"from connection {n}" for n in range(CONNECTIONS)}
    records = AuditLog(state.audit_dir).read(env_id)[0]
    assert sorted(r.path for r in records) == ["/api/chat.postMessage"] * CONNECTIONS
    assert all(r.decision == "routed" and r.status == 200 for r in records)


def test_a_request_budget_holds_across_workers(two_workers):
    state, _, info = two_workers
    env_id = EnvironmentStore(state).create("slack_default", request_budget=RequestBudget(
        requests=10, per_seconds=600)).env_id
    open_clients = clients(state, info, env_id)
    try:
        with ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(lambda c: c.post("https://slack.com/api/auth.test").status_code, open_clients))
    finally:
        for client in open_clients:
            client.close()
    assert sorted(statuses) == [200] * 10 + [429] * (CONNECTIONS - 10)


def test_a_fault_hits_as_often_as_it_says_across_workers(two_workers):
    """`times=1` is once for the environment, not once per worker."""
    state, _, info = two_workers
    env_id = EnvironmentStore(state).create("slack_default").env_id
    set_faults(state, env_id, [Fault(kind="error", match="POST slack.com/api/chat.postMessage", times=1)])
    open_clients = clients(state, info, env_id)
    try:
        with ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(lambda c: c.post("https://slack.com/api/chat.postMessage", json={
                "channel": "general", "text": "once"}).status_code, open_clients))
    finally:
        for client in open_clients:
            client.close()
    assert sorted(statuses) == [200] * (CONNECTIONS - 1) + [503]
    assert [r.fault for r in AuditLog(state.audit_dir).read(env_id)[0] if r.fault] == [
        "fault 1: error POST slack.com/api/chat.postMessage"]


def test_a_seeded_fault_hits_the_same_requests_in_every_environment(two_workers):
    """Three environments, the same policy, the same requests one after another over connections
    the kernel spreads over both workers: the same requests are hit in each."""
    state, _, info = two_workers
    store, patterns = EnvironmentStore(state), []
    for _ in range(3):
        env_id = store.create("slack_default").env_id
        set_faults(state, env_id, [Fault(kind="error", match="POST slack.com/api/chat.postMessage",
                                         probability=0.5, seed=7)])
        open_clients = clients(state, info, env_id)
        try:
            patterns.append([c.post("https://slack.com/api/chat.postMessage", json={
                "channel": "general", "text": f"n{n}"}).status_code for n, c in enumerate(open_clients)])
        finally:
            for client in open_clients:
                client.close()
    assert patterns[0] == patterns[1] == patterns[2] and {200, 503} == set(patterns[0]), patterns


def test_a_legacy_sse_sessions_messages_reach_the_worker_holding_its_stream(two_workers):
    """Linear's legacy `/sse`: one worker holds the session's stream; its messages go over a
    connection the kernel gave the other worker (told by the workers' own sockets), and the
    answers come on the stream, as the SDK's SSE client reads them."""
    state, stack, info = two_workers
    env_id = EnvironmentStore(state).create("linear_default").env_id
    workers = [stack.processes[name].pid for name in ("proxy", "proxy-2")]
    open_clients = clients(state, info, env_id)
    try:
        with connect_sse(open_clients[0], "GET", "https://mcp.linear.app/sse") as source:
            events = source.iter_sse()
            endpoint = next(events).data
            other = workers[[established(pid, info.proxy_port) for pid in workers].index(0)]
            poster = next(client for client in open_clients[1:] if opens_a_connection_to(client, other, info))
            statuses = [poster.post(f"https://mcp.linear.app{endpoint}", json=message).status_code
                        for message in SSE_MESSAGES]
            answers = [json.loads(next(events).data) for _ in range(2)]
    finally:
        for client in open_clients:
            client.close()
    assert statuses == [202, 202, 202]
    assert answers[0]["result"]["serverInfo"]["name"] == "detour-linear"
    assert "create_issue" in {tool["name"] for tool in answers[1]["result"]["tools"]}


SSE_MESSAGES = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bare", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]


def opens_a_connection_to(client: httpx.Client, pid: int, info) -> bool:
    """Whether the client's (first) connection to Linear's MCP host went to the worker `pid`."""
    before = established(pid, info.proxy_port)
    client.get("https://mcp.linear.app/.well-known/oauth-authorization-server").raise_for_status()
    return established(pid, info.proxy_port) > before


def test_a_stack_needs_a_worker(tmp_path):
    from detour_core.errors import DetourError
    with pytest.raises(DetourError, match="at least one proxy worker"):
        Stack(StatePaths(tmp_path / "home").ensure(), workers=0)


def test_workers_never_share_a_port_with_another_stack(two_workers, tmp_path):
    _, _, info = two_workers
    other = Stack(StatePaths(tmp_path / "other").ensure(), proxy_port=info.proxy_port, workers=2)
    with pytest.raises(StackError, match=f"cannot listen on 127.0.0.1:{info.proxy_port}"):
        other.start()
    assert not other.processes


def test_records_from_both_workers_form_one_chain_that_detour_logs_verifies(two_workers):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from detour_core.audit import segment_file
    state, _, info = two_workers
    env_id = EnvironmentStore(state).create("slack_default").env_id
    open_clients = clients(state, info, env_id)
    try:
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda n: open_clients[n].post("https://slack.com/api/auth.test"), range(CONNECTIONS)))
    finally:
        for client in open_clients:
            client.close()
    detour = [str(Path(sys.executable).parent / "detour"), "logs", "--verify", "--env", env_id]
    home = os.environ | {"DETOUR_HOME": str(state.home)}
    intact = subprocess.run(detour, env=home, capture_output=True, text=True, timeout=60)
    assert (intact.returncode, intact.stdout) == (0, f"{env_id}: {CONNECTIONS} records, chain intact\n")
    segment = segment_file(AuditLog(state.audit_dir).folder(env_id), 1)
    lines = segment.read_text().splitlines(keepends=True)
    segment.write_text("".join(lines[:5] + lines[6:]))  # one record removed
    broken = subprocess.run(detour, env=home, capture_output=True, text=True, timeout=60)
    assert broken.returncode == 1 and "1 broken link(s)" in broken.stdout
    assert "segment 000001 line 6" in broken.stdout and "follow segment 000001 line 5" in broken.stdout
