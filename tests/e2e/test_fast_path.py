"""The proxy's fast path (proxy_addons/fast_path.py): which tunnels it carries and which it leaves
to mitmproxy, and that what a client gets and what the record says are the same either way.

Who carried a tunnel shows in its TLS: the fast path offers HTTP/1.1 alone, mitmproxy offers h2
to a client that asks for it."""

import base64
import contextlib
import socket
import ssl
from collections.abc import Iterator

import httpx
import pytest

from certs.authority import CertificateAuthority
from detour.stack import Stack
from detour_core.audit import AuditLog
from detour_core.credentials import secret_for
from detour_core.faults import Fault
from detour_core.policy import Policy, policy_file, save_policy
from detour_core.secrets import SecretStore
from tests.conftest import LiveStack

AUTH = {"Authorization": "Bearer xoxb-1"}


def tunnel(stack: LiveStack, env_id: str, host: str = "slack.com") -> socket.socket:
    """A connection to the proxy whose CONNECT to `host`:443 it has answered 200."""
    raw = socket.create_connection((stack.info.host, stack.info.proxy_port), timeout=10)
    credentials = base64.b64encode(f"{env_id}:{secret_for(stack.state, env_id)}".encode()).decode()
    with contextlib.ExitStack() as closing:
        closing.callback(raw.close)  # unless the proxy answered 200
        raw.sendall(f"CONNECT {host}:443 HTTP/1.1\r\nHost: {host}:443\r\n"
                    f"Proxy-Authorization: Basic {credentials}\r\n\r\n".encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += raw.recv(4096)
        assert answer.startswith(b"HTTP/1.1 200"), answer
        closing.pop_all()
    return raw


def trusting(stack: LiveStack, *protocols: str) -> ssl.SSLContext:
    """A client's TLS context trusting the stack's CA, offering `protocols` by ALPN."""
    context = ssl.create_default_context(cafile=str(CertificateAuthority(stack.state).ensure().cert))
    context.set_alpn_protocols(list(protocols))
    return context


def negotiated(stack: LiveStack, env_id: str, host: str = "slack.com") -> str | None:
    """The application protocol a tunnel to `host` settles on, for a client offering h2 first."""
    with tunnel(stack, env_id, host) as raw, trusting(stack, "h2", "http/1.1").wrap_socket(
            raw, server_hostname=host) as tls:
        return tls.selected_alpn_protocol()


def test_plain_replica_tunnels_are_carried_and_the_rest_left_to_mitmproxy(live_stack):
    plain, faulty, secret = live_stack.env(), live_stack.env(), live_stack.env()
    save_policy(policy_file(live_stack.state, faulty),
                Policy(faults=[Fault(kind="error", status=500, match="GET slack.com/api/never.called")]))
    SecretStore(live_stack.state.secrets_dir).set(secret, "token", "sk-live-1", hosts=["api.example.test"])
    # No waiting here: where this runs first on the session's stack its replica app is still loading
    # (a second or two after the proxy listens), and the first tunnel waits for it.
    assert negotiated(live_stack, plain) == "http/1.1"
    assert negotiated(live_stack, plain, "api.github.com") == "http/1.1"
    assert negotiated(live_stack, faulty) == "h2"
    assert negotiated(live_stack, secret) == "h2"


def exchange(stack: LiveStack, env_id: str) -> list:
    """One kept connection's requests (routed, then one a rule denies, then more), and one on a
    connection of its own whose Host header names another host; what each answered."""
    proxy = stack.info.access(env_id, secret_for(stack.state, env_id)).url()
    verify = str(CertificateAuthority(stack.state).ensure().bundle)
    out = []
    with httpx.Client(proxy=proxy, verify=verify, headers=AUTH, timeout=60) as client:
        for method, url, body in [("POST", "https://slack.com/api/auth.test", None),
                                  ("POST", "https://slack.com/api/chat.postMessage", {"channel": "general", "text": "a"}),
                                  ("POST", "https://slack.com/api/conversations.list", None),
                                  ("GET", "https://slack.com/not/an/api", None),
                                  ("POST", "https://slack.com/api/chat.delete", {"channel": "general", "ts": "1"}),
                                  ("POST", "https://slack.com/api/chat.postMessage", {"channel": "general", "text": "b" * 300}),
                                  ("POST", "https://slack.com/api/auth.test", None)]:
            answer = client.request(method, url, json=body)
            fields = sorted((name, value) for name, value in answer.headers.multi_items()
                            if name not in ("date", "server"))  # the replica server's uvicorn names itself
            out.append((answer.status_code, answer.reason_phrase, fields, answer.json().get("ok"),
                        answer.json().get("error")))
    with httpx.Client(proxy=proxy, verify=verify, headers=AUTH | {"Host": "api.github.com"}, timeout=60) as client:
        out.append(client.post("https://slack.com/api/auth.test").status_code)
    return out


def read_records(stack: LiveStack, env_id: str) -> list:
    return AuditLog(stack.state.audit_dir).read(env_id)[0]


def records(stack: LiveStack, env_id: str) -> list:
    return [(r.decision, r.status, r.method, r.path, r.service, r.reason, r.rule, r.http_version, r.request_bytes,
             r.response_bytes, r.mode, r.request, r.response) for r in read_records(stack, env_id)]


@pytest.fixture(scope="module")
def mitmproxy_only(tmp_path_factory) -> Iterator[LiveStack]:
    """A stack whose proxy leaves every flow to mitmproxy's layers, to hold the fast path against."""
    from mock_services.store import EnvironmentStore
    from detour_core.paths import StatePaths
    root = tmp_path_factory.mktemp("mitmproxy-only")
    state = StatePaths(root / "home").ensure()
    with Stack(state, fast_path=False) as info:
        yield LiveStack(state, info, EnvironmentStore(state), root)


def test_answers_and_records_are_mitmproxys(live_stack, mitmproxy_only):
    policy = Policy(rules=["deny POST slack.com/api/chat.delete"], max_request_bytes=200)
    seen = {}
    for name, stack in (("fast", live_stack), ("mitmproxy", mitmproxy_only)):
        env_id = stack.env()
        save_policy(policy_file(stack.state, env_id), policy)
        seen[name] = exchange(stack, env_id), records(stack, env_id)
    assert seen["fast"] == seen["mitmproxy"]
    answers, recorded = seen["fast"]
    assert [a if isinstance(a, int) else a[0] for a in answers] == [200, 200, 200, 404, 403, 413, 200, 403]
    assert [r[0] for r in recorded] == ["routed"] * 4 + ["denied", "denied", "routed", "denied"]


def test_a_fault_set_while_a_connection_is_kept_hits_its_next_request(live_stack):
    env_id = live_stack.env()
    proxy = live_stack.info.access(env_id, secret_for(live_stack.state, env_id)).url()
    verify = str(CertificateAuthority(live_stack.state).ensure().bundle)
    with httpx.Client(proxy=proxy, verify=verify, headers=AUTH, timeout=60) as client:
        assert client.post("https://slack.com/api/auth.test").json()["ok"] is True
        save_policy(policy_file(live_stack.state, env_id),
                    Policy(faults=[Fault(kind="error", status=500, match="POST slack.com/api/auth.test")]))
        assert client.post("https://slack.com/api/auth.test").status_code == 500
    assert [(r.status, r.fault) for r in read_records(live_stack, env_id)] == [
        (200, None), (500, "fault 1: error POST slack.com/api/auth.test")]


def tunnelled(stack: LiveStack, env_id: str, context: ssl.SSLContext, session: ssl.SSLSession | None = None,
              host: str = "slack.com") -> tuple[ssl.SSLSession | None, bool]:
    """One auth.test over a new tunnel, offering `session`: the session the proxy's ticket gives,
    and whether the handshake resumed the one offered."""
    with tunnel(stack, env_id, host) as raw, context.wrap_socket(raw, server_hostname=host, session=session) as tls:
        tls.sendall(f"POST /api/auth.test HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer xoxb-1\r\n"
                    "Content-Length: 0\r\nConnection: close\r\n\r\n".encode())
        reply = b""
        while chunk := tls.recv(65536):
            reply += chunk
        assert reply.startswith(b"HTTP/1.1 200") and b'"ok":true' in reply.replace(b" ", b""), reply[:200]
        return tls.session, tls.session_reused


def test_a_client_that_offers_its_session_resumes_it(live_stack):
    """TLS 1.3 resumption on the fast path: the proxy's ticket from one tunnel resumes the next."""
    env_id = live_stack.env()
    context = trusting(live_stack, "http/1.1")
    session, resumed = tunnelled(live_stack, env_id, context)
    assert session is not None and not resumed
    assert tunnelled(live_stack, env_id, context, session)[1]
