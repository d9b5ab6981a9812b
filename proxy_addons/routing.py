"""Send mapped hosts to the environment's replica; pass through what the environment's policy
allows; deny every other host.

The logical host is cross-checked across the CONNECT target (or absolute URL), the TLS
SNI and the Host header: if they disagree (domain fronting) the request is denied. A
denied host is never resolved or connected to: the answer is made here, and the
UpstreamGuard refuses any connection that is not the replica.
"""

from __future__ import annotations

from mitmproxy import ctx, exceptions, http, tcp

from detour_core.hosts import is_address, normal_host
from detour_core.policy import ALLOWED_PORTS
from detour_core.registry import (ORIGINAL_HOST_HEADER, SERVICE_PORTS, canonical_host, is_replicated_host,
                                  parse_replica_path, replica_path, service_for, services_for)
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.held_services import SERVICES_KEY
from proxy_addons.policies import POLICY_KEY
from proxy_addons.verdict import HOST_HEADER_KEY, METADATA_KEY, PERMITTED, Verdict, json_response


def parse_address(spec: str) -> tuple[str, int]:
    host, sep, port = spec.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise exceptions.OptionsError(f"expected host:port, got {spec!r}")
    return host, int(port)


def header_host(header: str) -> str:
    """The host a Host header names: host[:port], [v6][:port], or a bare v6 address (no port can
    follow it)."""
    return (header[:header.index("]") + 1] if header.startswith("[") and "]" in header
            else header if header.count(":") > 1 else header.rsplit(":", 1)[0])


def host_names(flow: http.HTTPFlow) -> set[str]:
    """Every name the request claims (CONNECT target or URL host, SNI, Host header), each in its
    one spelling (detour_core.hosts). A target address is left out: in transparent mode it is the
    proxy's own, and the names beside it decide."""
    names = set()
    header = flow.request.host_header
    if header:
        names.add(header_host(header))
    if flow.client_conn.sni:
        names.add(flow.client_conn.sni)
    if flow.request.host and not is_address(flow.request.host):
        names.add(flow.request.host)
    return {normal_host(n) for n in names if n}


class Router:
    def __init__(self) -> None:
        self.replica: tuple[str, int] | None = None

    def load(self, loader) -> None:
        loader.add_option("detour_replica", str, "", "host:port of the replica server.")

    def configure(self, updated: set[str]) -> None:
        if "detour_replica" in updated:
            self.replica = parse_address(ctx.options.detour_replica)

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if flow.response or flow.error or not flow.live:
            return
        if flow.client_conn.proxy_mode.type_name == "reverse":
            self.gateway(flow)
            return
        env_id = flow.metadata.get(ENV_KEY)
        names = host_names(flow)
        host = next(iter(names)) if len(names) == 1 else (flow.request.host or "")
        verdict = Verdict(decision="denied", env_id=env_id, host=host, port=flow.request.port,
                          scheme=flow.request.scheme, path=flow.request.path)
        flow.metadata[METADATA_KEY] = verdict
        service = service_for(host, flow.request.path, flow.metadata.get(SERVICES_KEY)) if len(names) == 1 else None
        if len(names) > 1:
            verdict.reason = "host mismatch: " + ", ".join(sorted(names))
        elif not names or is_address(host):
            verdict.reason = "no host name (address-only requests are not allowed)"
        elif service is None and env_id and self.allowed(flow, host):
            if not self.refused_by_rule(flow, verdict, host, flow.request.path):
                self.allow(flow, verdict, host)
                return
        elif service is None and is_replicated_host(host):
            verdict.reason = "path not served by a replica"
        elif service is None:
            verdict.reason = self.denied_host(flow, host)
        elif flow.request.port not in SERVICE_PORTS:
            verdict.reason = f"port {flow.request.port} not allowed"
        elif env_id is None:
            verdict.reason = "no environment"
        elif not_held := self.not_held(flow, service):
            verdict.reason = not_held
        elif not self.refused_by_rule(flow, verdict, host, flow.request.path):
            self.route(flow, verdict, service, env_id)
            return
        flow.response = json_response(403, "denied", {
            "error": "denied", "host": host, "reason": verdict.reason,
            "detail": "detour: this sandbox may only reach the APIs of its environment"})

    def gateway(self, flow: http.HTTPFlow) -> None:
        """A rewritten URL already names its replica; it may name only its own environment."""
        env_id = flow.metadata.get(ENV_KEY)
        parsed = parse_replica_path(flow.request.path)
        claimed = flow.request.headers.pop(ORIGINAL_HOST_HEADER, "").lower()
        if parsed and self.not_held(flow, parsed[1]):  # a route packs share: the preludes name its first pack
            shared = service_for(claimed, parsed[2], flow.metadata.get(SERVICES_KEY))
            if shared and shared != parsed[1] and parsed[1] in services_for(claimed, parsed[2]):
                parsed = (parsed[0], shared, parsed[2])
                flow.request.path = replica_path(parsed[0], shared, parsed[2])
        service = parsed[1] if parsed else None
        host = claimed if service and service_for(claimed, parsed[2]) == service else (
            canonical_host(service) if service else flow.request.host_header or "")
        verdict = Verdict(decision="denied", env_id=env_id, host=host, port=443, scheme="https",
                          path=parsed[2] if parsed else flow.request.path, service=service)
        flow.metadata[METADATA_KEY] = verdict
        if parsed is None:
            verdict.reason = "not a replica path"
        elif parsed[0] != env_id:
            verdict.reason = f"another environment ({parsed[0]})"
        elif not_held := self.not_held(flow, parsed[1]):
            verdict.reason = not_held
        elif not self.refused_by_rule(flow, verdict, host, parsed[2]):
            verdict.decision = "routed"
            return
        verdict.service = None
        flow.response = json_response(403, "denied", {"error": "denied", "reason": verdict.reason})

    @staticmethod
    def not_held(flow: http.HTTPFlow, service: str) -> str:
        """Why `service` may not be reached: the environment does not hold it ("" if it may)."""
        held = flow.metadata.get(SERVICES_KEY)
        if held is None or service in held:
            return ""
        return f"service {service} is not in this environment (it holds {', '.join(held)})"

    @staticmethod
    def refused_by_rule(flow: http.HTTPFlow, verdict: Verdict, host: str, path: str) -> bool:
        """The policy's first matching rule decides; the record names it either way."""
        policy = flow.metadata.get(POLICY_KEY)
        found = policy.rule_for(host, flow.request.method, path) if policy else None
        if found is None:
            return False
        number, rule = found
        verdict.rule = f"rule {number}: {rule.text()}"
        if rule.action == "allow":
            return False
        verdict.reason = f"denied by {verdict.rule}"
        return True

    @staticmethod
    def allowed(flow: http.HTTPFlow, host: str) -> bool:
        policy = flow.metadata.get(POLICY_KEY)
        return policy is not None and policy.allows(host, flow.request.port)

    @staticmethod
    def denied_host(flow: http.HTTPFlow, host: str) -> str:
        """Why a host no replica answers is denied: the port, where the policy allows the host on
        another (`host not allowed` would send its user to the wrong fix)."""
        policy, port = flow.metadata.get(POLICY_KEY), flow.request.port
        if policy is not None and port not in ALLOWED_PORTS and any(policy.allows(host, p) for p in ALLOWED_PORTS):
            return f"port {port} not allowed: {host} is allowed on ports {', '.join(map(str, sorted(ALLOWED_PORTS)))}"
        return "host not allowed"

    def allow(self, flow: http.HTTPFlow, verdict: Verdict, host: str) -> None:
        """Pass through to the real host, by name (in transparent mode the destination address
        is the proxy's own); mitmproxy verifies its certificate."""
        verdict.decision = "allowed"
        flow.request.host = host
        PERMITTED.setdefault(flow.client_conn, set()).add((host, flow.request.port))

    def request(self, flow: http.HTTPFlow) -> None:
        """An HTTP/2 body needs no length header (its frames end it), and a client may send none
        (git's pushes over 1 MB); the replica server speaks HTTP/1, where such a body is read as
        empty. A routed request goes on with its length."""
        verdict = flow.metadata.get(METADATA_KEY)
        headers = flow.request.headers
        if verdict is not None and verdict.decision == "routed" and not flow.request.stream \
                and flow.request.raw_content and "content-length" not in headers and "transfer-encoding" not in headers:
            headers["content-length"] = str(len(flow.request.raw_content))

    def route(self, flow: http.HTTPFlow, verdict: Verdict, service: str, env_id: str) -> None:
        assert self.replica is not None
        verdict.decision, verdict.service = "routed", service
        flow.metadata[HOST_HEADER_KEY] = flow.request.host_header
        flow.request.scheme = "http"
        flow.request.host, flow.request.port = self.replica
        flow.request.path = replica_path(env_id, service, flow.request.path)
        if flow.request.http_version.startswith("HTTP/1"):  # absolute form goes on in origin form, as uvicorn
            flow.request.authority = ""                       # wants (an HTTP/2 one's is its Host header)

    def tcp_start(self, flow: tcp.TCPFlow) -> None:
        """Non-HTTP bytes inside a tunnel have no host to check: refuse them."""
        address = flow.server_conn.address or ("", 0)
        flow.metadata[METADATA_KEY] = Verdict(decision="denied", host=address[0], port=address[1],
                                              scheme="tcp", path="", reason="non-HTTP traffic")
        flow.kill()
