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
    "api.linear.app": "linear",
}

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
