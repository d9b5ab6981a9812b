"""The addons without a running proxy, as mitmproxy tests its own (taddons + tflow)."""

import asyncio
import json

import pytest
from mitmproxy.addons.proxyauth import mkauth
from mitmproxy.proxy import server_hooks
from mitmproxy.test import taddons, tflow

from detour_core.credentials import env_secret, load_or_create_key
from proxy_addons import detour_proxy
from proxy_addons.audit_recorder import AuditRecorder
from proxy_addons.env_auth import ENV_KEY, EnvAuth
from proxy_addons.policies import Policies
from proxy_addons.routing import Router
from proxy_addons.upstream_guard import UpstreamGuard
from proxy_addons.verdict import METADATA_KEY

REPLICA = ("127.0.0.1", 8999)


@pytest.fixture
def addons(state):
    key = load_or_create_key(state.signing_key)
    chain = [EnvAuth(), Policies(), Router(), UpstreamGuard(), AuditRecorder()]
    with taddons.context(*chain) as tctx:
        tctx.options.update(detour_signing_key=str(state.signing_key),
                            detour_replica=f"{REPLICA[0]}:{REPLICA[1]}",
                            detour_audit_dir=str(state.audit_dir), detour_policies_dir=str(state.policies_dir))
        yield chain, key, state


def request_flow(host="slack.com", port=443, path="/api/chat.postMessage", host_header=None, sni=None):
    flow = tflow.tflow()
    flow.request.scheme = "https" if port == 443 else "http"
    flow.request.host, flow.request.port, flow.request.path = host, port, path
    flow.request.headers["Host"] = host_header or host
    flow.client_conn.sni = sni
    return flow


def connect_flow(host="slack.com", port=443, auth=None):
    flow = tflow.tflow()
    flow.request.method, flow.request.host, flow.request.port = "CONNECT", host, port
    if auth:
        flow.request.headers["Proxy-Authorization"] = mkauth(*auth)
    return flow


def authenticated(chain, key, env_id="env-a", **kwargs):
    env_auth = chain[0]
    connect = connect_flow(auth=(env_id, env_secret(key, env_id)))
    env_auth.http_connect(connect)
    assert connect.response is None
    flow = request_flow(**kwargs)
    connect.client_conn.sni = flow.client_conn.sni
    flow.client_conn = connect.client_conn
    env_auth.requestheaders(flow)
    return flow


ORDER = ["AnsweredBodies", "SharedPorts", "FastPath", "EnvAuth", "Policies", "HeldServices", "Router", "RequestLimits", "RateLimits",
         "ModelRoutes", "ModelBudgets", "ModelReplay", "ModelTranslator", "EgressWatch", "SecretInjector", "AnswerScrubber",
         "ModelMeter", "McpCalls", "Faults", "InProcessReplicas", "EventDelivery", "UpstreamGuard", "AuditRecorder"]


def test_shipped_script_loads_the_addons_in_order(state):
    with taddons.context() as tctx:
        script = tctx.script(detour_proxy.__file__)
        names = [type(a).__name__ for a in script.addons]
    assert names == ORDER


def test_the_stacks_proxy_has_the_addons_before_it_listens():
    """`python -m proxy_addons`: part of the master from its construction, so no listener is
    ever open without routing and the upstream guard (a script loads only after they open)."""
    from mitmproxy import options
    from proxy_addons.__main__ import DetourMaster

    async def build() -> list[str]:
        master = DetourMaster(options.Options())
        return [type(a).__name__ for a in master.addons.chain if type(a).__module__.startswith("proxy_addons")]
    assert asyncio.run(build()) == ORDER


@pytest.mark.parametrize("auth", [None, ("env-a", "wrong"), ("env-b", "SECRET-OF-A"), ("bad id!", "x")])
def test_connect_without_valid_credentials_gets_407(addons, auth):
    chain, key, _ = addons
    if auth and auth[1] == "SECRET-OF-A":
        auth = (auth[0], env_secret(key, "env-a"))
    flow = connect_flow(auth=auth)
    chain[0].http_connect(flow)
    assert flow.response.status_code == 407
    assert flow.response.headers["Proxy-Authenticate"].startswith("Basic")
    assert flow.metadata[METADATA_KEY].decision == "unauthorized"


def test_tunnel_credentials_carry_to_requests_inside_it(addons):
    chain, key, _ = addons
    flow = authenticated(chain, key)
    assert flow.metadata[ENV_KEY] == "env-a"
    assert "Proxy-Authorization" not in flow.request.headers


@pytest.mark.parametrize("host, path, expected", [
    ("slack.com", "/api/chat.postMessage", "/api/env/env-a/services/slack/api/chat.postMessage"),
    ("api.slack.com", "/api/auth.test?x=1", "/api/env/env-a/services/slack/api/auth.test?x=1"),
    ("API.Linear.App", "/graphql", "/api/env/env-a/services/linear/graphql"),
])
def test_mapped_hosts_are_routed_to_the_replica(addons, host, path, expected):
    chain, key, _ = addons
    flow = authenticated(chain, key, host=host, path=path)
    chain[2].requestheaders(flow)
    assert flow.response is None
    assert (flow.request.scheme, flow.request.host, flow.request.port) == ("http", *REPLICA)
    assert flow.request.path == expected
    assert flow.metadata[METADATA_KEY].decision == "routed"


@pytest.mark.parametrize("kwargs, reason", [
    ({"host": "evil.example.com"}, "host not allowed"),
    ({"host": "slack.com.evil.example"}, "host not allowed"),
    ({"host": "slack.com", "port": 8443}, "port 8443 not allowed"),
    ({"host": "slack.com", "host_header": "evil.example.com"}, "host mismatch"),
    ({"host": "slack.com", "sni": "evil.example.com"}, "host mismatch"),
    ({"host": "evil.example.com", "sni": "slack.com", "host_header": "slack.com"}, "host mismatch"),
])
def test_everything_else_is_denied_with_a_readable_403(addons, kwargs, reason):
    chain, key, _ = addons
    flow = authenticated(chain, key, **kwargs)
    chain[2].requestheaders(flow)
    assert flow.response.status_code == 403
    assert flow.response.headers["X-Detour-Decision"] == "denied"
    assert reason in json.loads(flow.response.content)["reason"]
    assert flow.request.host != REPLICA[0]


def test_an_allowed_host_on_another_port_is_denied_for_its_port(addons):
    from detour_core.policy import Policy
    from proxy_addons.policies import POLICY_KEY
    chain, key, _ = addons
    flow = authenticated(chain, key, host="api.partner.test", port=8443)
    flow.metadata[POLICY_KEY] = Policy(allow=["api.partner.test"])
    chain[2].requestheaders(flow)
    assert json.loads(flow.response.content)["reason"] == (
        "port 8443 not allowed: api.partner.test is allowed on ports 80, 443")


@pytest.mark.parametrize("address, blocked", [(REPLICA, False), (("evil.example.com", 443), True),
                                              (("127.0.0.1", 22), True)])
def test_upstream_guard_only_lets_the_replica_through(addons, address, blocked):
    chain, _, _ = addons
    data = server_hooks.ServerConnectionHookData(server=tflow.tserver_conn(), client=tflow.tclient_conn())
    data.server.address = address
    data.server.error = None
    asyncio.run(chain[3].server_connect(data))
    assert bool(data.server.error) is blocked


def test_upstream_guard_connects_to_the_name_s_address_and_keeps_the_name_for_reuse(addons):
    """Sent to the address the stack gave for the name; once open, the connection's address is
    the name again, so mitmproxy gives the next request to that name this connection."""
    from mitmproxy.connection import ConnectionState
    from mitmproxy.proxy.layers.http import GetHttpConnection
    from proxy_addons.verdict import PERMITTED
    chain, _, _ = addons
    chain[3].hosts = {"api.partner.test": "10.214.3.2"}
    data = server_hooks.ServerConnectionHookData(server=tflow.tserver_conn(), client=tflow.tclient_conn())
    data.server.address, data.server.error = ("api.partner.test", 443), None
    PERMITTED.setdefault(data.client, set()).add(("api.partner.test", 443))
    asyncio.run(chain[3].server_connect(data))
    assert data.server.address == ("10.214.3.2", 443) and not data.server.error
    data.server.state = ConnectionState.OPEN
    chain[3].server_connected(data)
    later = GetHttpConnection(("api.partner.test", 443), data.server.tls, data.server.via, data.server.transport_protocol)
    assert data.server.address == ("api.partner.test", 443) and later.connection_spec_matches(data.server)


def test_audit_log_writes_one_redacted_line_per_decision(addons):
    chain, key, state = addons
    routed = authenticated(chain, key)
    routed.request.headers["Authorization"] = "Bearer xoxb-SECRET"
    chain[2].requestheaders(routed)
    denied = authenticated(chain, key, host="evil.example.com", path="/x?token=SECRET2&a=1")
    chain[2].requestheaders(denied)
    refused = connect_flow(auth=("env-a", "PROXY-PASSWORD"))
    chain[0].http_connect(refused)
    chain[4].response(routed)
    chain[4].response(denied)
    chain[4].http_connect(refused)
    files = sorted(state.audit_dir.rglob("*.jsonl"))
    assert [f.relative_to(state.audit_dir).as_posix() for f in files] == ["env-a/000001.jsonl"]
    text = files[0].read_text()
    assert "SECRET" not in text and "PROXY-PASSWORD" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["decision"] for line in lines] == ["routed", "denied", "unauthorized"]
    assert lines[0]["host"] == "slack.com" and lines[0]["path"] == "/api/chat.postMessage"
    assert lines[1]["path"] == "/x?token=[REDACTED]&a=1"
    assert {line["env_id"] for line in lines} == {"env-a"}


def transparent_flow(address: str, host="slack.com"):
    from mitmproxy.proxy.mode_specs import ProxyMode
    flow = request_flow(host=host, sni=host)
    flow.client_conn.proxy_mode = ProxyMode.parse("transparent")
    flow.client_conn.peername = (address, 40000)
    flow.request.data.host = "10.213.0.1"  # transparent mode: the original destination address
    return flow


@pytest.fixture
def registry(addons, tmp_path):
    folder = tmp_path / "by-address"
    folder.mkdir()
    (folder / "10.213.0.2").write_text("env-a")
    with taddons.context(*addons[0]) as tctx:
        tctx.options.update(detour_sandbox_addresses=str(folder))
        yield addons


def test_transparent_flows_take_the_environment_of_their_sandbox_address(registry):
    chain, _, _ = registry
    flow = transparent_flow("10.213.0.2")
    chain[0].requestheaders(flow)
    chain[2].requestheaders(flow)
    assert flow.metadata[ENV_KEY] == "env-a"
    assert flow.request.path == "/api/env/env-a/services/slack/api/chat.postMessage"


def test_transparent_flow_from_an_unknown_address_is_refused(registry):
    chain, _, _ = registry
    flow = transparent_flow("10.213.0.6")
    chain[0].requestheaders(flow)
    assert flow.response.status_code == 403
    assert flow.metadata[METADATA_KEY].decision == "unauthorized"


def test_a_sandbox_cannot_use_another_environments_valid_credentials(registry):
    chain, key, _ = registry
    connect = connect_flow(auth=("env-b", env_secret(key, "env-b")))
    connect.client_conn.peername = ("10.213.0.2", 40000)
    chain[0].http_connect(connect)
    assert connect.response.status_code == 407
    verdict = connect.metadata[METADATA_KEY]
    assert (verdict.env_id, verdict.reason) == ("env-a", "credentials of another environment (env-b)")


def test_method_and_path_rules_decide_first_match_and_the_record_names_the_rule(addons):
    from detour_core.policy import Policy, Rule, policy_file, save_policy
    chain, key, state = addons
    save_policy(policy_file(state, "env-a"), Policy(allow=["api.partner.test"], rules=[
        Rule.parse("deny POST slack.com/api/chat.delete"), Rule.parse("allow GET api.partner.test/v1/*"),
        Rule.parse("deny * api.partner.test/*")]))

    def decided(method: str, host: str, path: str):
        flow = authenticated(chain, key, host=host, path=path)
        flow.request.method = method
        chain[1].requestheaders(flow)
        chain[2].requestheaders(flow)
        verdict = flow.metadata[METADATA_KEY]
        return verdict.decision, verdict.rule, flow.response.status_code if flow.response else None
    assert decided("POST", "slack.com", "/api/chat.delete") == (
        "denied", "rule 1: deny POST slack.com/api/chat.delete", 403)
    assert decided("GET", "slack.com", "/api/chat.delete") == ("routed", None, None)  # another method
    assert decided("GET", "api.partner.test", "/v1/items?page=2") == (
        "allowed", "rule 2: allow GET api.partner.test/v1/*", None)
    assert decided("POST", "api.partner.test", "/v1/items") == ("denied", "rule 3: deny * api.partner.test/*", 403)


@pytest.mark.parametrize("text, message", [
    ("deny slack.com", "ACTION METHOD HOST/PATH"), ("block GET slack.com/x", "action"),
    ("deny G-T slack.com/x", "not an HTTP method"), ("deny GET 10.0.0.1/x", "IP address")])
def test_bad_rules_get_clear_errors(text, message):
    from detour_core.policy import InvalidPolicy, Rule
    with pytest.raises(InvalidPolicy, match=message):
        Rule.parse(text)


def test_the_stacks_proxy_runs_no_mitmdump_addon_it_does_not_need():
    """Playback, map-remote, modify-headers, save and the rest would look at every request."""
    from mitmproxy import options
    from proxy_addons.__main__ import DetourMaster

    async def build() -> list[str]:
        master = DetourMaster(options.Options())
        return [type(a).__name__ for a in master.addons.chain if not type(a).__module__.startswith("proxy_addons")]
    assert asyncio.run(build()) == ["TermLog", "Core", "Block", "DisableH2C", "Proxyserver", "NextLayer",
                                    "TlsConfig", "ErrorCheck"]


def limited_flow(limits, env_id, policy, client=None, size="0"):
    """A routed request of `env_id` through RateLimits alone."""
    from detour_core.audit import Verdict
    made = tflow.tflow()
    made.request.headers["content-length"] = size
    if client is not None:
        made.client_conn = client
    made.metadata.update({ENV_KEY: env_id, "detour.policy": policy,
                          METADATA_KEY: Verdict(decision="routed", host="slack.com", port=443, scheme="https",
                                                path="/")})
    asyncio.run(limits.requestheaders(made))
    return made


@pytest.fixture
def waited(monkeypatch):
    """The seconds each held request or answer would sleep (none is slept)."""
    seconds = []

    async def sleep(wait):
        seconds.append(wait)
    monkeypatch.setattr("proxy_addons.rate_limits.asyncio.sleep", sleep)
    return seconds


def test_rate_limits_count_per_environment_and_free_a_closed_connection(waited):
    from detour_core.policy import Policy
    from proxy_addons.rate_limits import RateLimits
    limits, policy = RateLimits(), Policy(max_connections=1, max_bytes_per_second=100)
    first = limited_flow(limits, "env-a", policy)
    assert first.response is None and limited_flow(limits, "env-a", policy, first.client_conn).response is None
    second = limited_flow(limits, "env-a", policy)
    assert second.response.status_code == 429 and "connections" in second.metadata[METADATA_KEY].reason
    assert limited_flow(limits, "env-b", policy).response is None  # another environment's count is its own
    limits.client_disconnected(first.client_conn)
    third = limited_flow(limits, "env-a", policy, size="90")
    assert third.response is None and all(w <= 1 / 2000 for w in waited)  # the default rate's turns
    waited.clear()
    over = limited_flow(limits, "env-a", policy, third.client_conn, size="20")
    assert over.response.status_code == 429 and "bytes in one second" in over.metadata[METADATA_KEY].reason
    assert waited == [pytest.approx(1.0, abs=0.05)], "over a rate, the answer is held for its Retry-After"


def test_an_environments_requests_leave_paced_and_a_seconds_worth_is_the_most_that_waits(waited):
    from detour_core.policy import Policy
    from proxy_addons.rate_limits import RateLimits
    limits, policy = RateLimits(), Policy(max_requests_per_second=4)
    flows = [limited_flow(limits, "env-a", policy) for _ in range(6)]
    assert [f.response for f in flows[:4]] == [None] * 4
    assert waited[:3] == [pytest.approx(s, abs=0.05) for s in (0.25, 0.5, 0.75)], "one turn each, 1/4 s apart"
    assert [f.response.status_code for f in flows[4:]] == [429, 429]
    assert "more than 4 requests in one second" in flows[4].metadata[METADATA_KEY].reason
    assert waited[3:] == [pytest.approx(s, abs=0.05) for s in (1.0, 1.25)], "refusals held and spread out too"
    assert limited_flow(limits, "env-b", policy).response is None and len(waited) == 5  # env-b's first goes at once


def test_an_answered_requests_body_is_kept_to_its_first_mib_and_the_rest_only_counted():
    from types import SimpleNamespace

    from mitmproxy.proxy.layers.http._events import RequestData

    from proxy_addons.answered_bodies import DROPPED_BYTES_KEY, KEPT_BYTES, _dropping

    def consume(stream, event):  # mitmproxy's own: every chunk into the buffer
        stream.request_body_buf += event.data
        yield from ()
    chunk = b"x" * 65536
    for answered, kept in ((True, KEPT_BYTES), (False, 40 * len(chunk))):
        flow = tflow.tflow()
        flow.response = tflow.tresp() if answered else None
        stream = SimpleNamespace(flow=flow, request_body_buf=bytearray())
        for _ in range(40):  # 2.5 MiB
            list(_dropping(consume)(stream, RequestData(1, chunk)))
        assert len(stream.request_body_buf) == kept
        assert flow.metadata.get(DROPPED_BYTES_KEY, 0) == 40 * len(chunk) - kept
