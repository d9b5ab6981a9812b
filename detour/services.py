"""The host-to-service map: which real API hosts detour serves, and from which replica.

This is the one place that says slack.com goes to the Slack replica and api.linear.app to
the Linear replica. The proxy addon routes with it and the rewrite preludes rewrite with it.
"""

from __future__ import annotations

from typing import Literal

Service = Literal["slack", "linear"]

SERVICE_HOSTS: dict[str, Service] = {
    "slack.com": "slack",
    "api.slack.com": "slack",
    "files.slack.com": "slack",  # upload URLs of files.getUploadURLExternal, files' url_private
    "api.linear.app": "linear",
}

# Rewrite mode's contract between the preludes and the gateway: who is calling, and which
# real host the rewritten URL stood for (for the audit log only; never trusted for routing).
CREDENTIALS_HEADER = "X-Detour-Credentials"
ORIGINAL_HOST_HEADER = "X-Detour-Original-Host"

# Ports a mapped host is served on; anything else on a mapped host is denied.
SERVICE_PORTS: frozenset[int] = frozenset({80, 443})


def service_for_host(host: str) -> Service | None:
    return SERVICE_HOSTS.get(host.lower().rstrip("."))


def replica_path(env_id: str, service: Service, path: str) -> str:
    """AgentDiff's URL shape: the real API path below the environment's service prefix.

    https://slack.com/api/chat.postMessage -> /api/env/E/services/slack/api/chat.postMessage
    https://api.linear.app/graphql        -> /api/env/E/services/linear/graphql
    """
    return f"/api/env/{env_id}/services/{service}{path if path.startswith('/') else '/' + path}"


def canonical_host(service: Service) -> str:
    """The first host that maps to `service`: how logs name it when only the service is known."""
    return next(host for host, s in SERVICE_HOSTS.items() if s == service)


def parse_replica_path(path: str) -> tuple[str, Service, str] | None:
    """Inverse of replica_path: (env_id, service, real API path), or None if not that shape."""
    parts = path.split("/", 6)
    if len(parts) < 6 or parts[:3] != ["", "api", "env"] or parts[4] != "services":
        return None
    service = parts[5].split("?", 1)[0]
    if service not in set(SERVICE_HOSTS.values()):
        return None
    rest = path[len(f"/api/env/{parts[3]}/services/{service}"):]
    return parts[3], service, rest if rest.startswith("/") else "/" + rest
