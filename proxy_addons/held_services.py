"""Which services a flow's environment holds: a world holds several, a service's template one.

Runs after EnvAuth and before Router, which denies a replicated host whose service the
environment does not hold (the record's reason names what it holds) instead of handing it to
a replica that has no state for it. An environment's services never change, so its answer is
kept; a few seconds only, since an id may be deleted and made again.
"""

from __future__ import annotations

import time

from mitmproxy import http

from detour_core.errors import DetourError
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore
from proxy_addons.env_auth import ENV_KEY

SERVICES_KEY = "detour.services"
KEPT_S = 5.0


class HeldServices:
    def __init__(self) -> None:
        self.kept: dict[str, tuple[float, tuple[str, ...] | None]] = {}
        self.store: EnvironmentStore | None = None

    def of(self, env_id: str) -> tuple[str, ...] | None:
        """The services `env_id` holds; None where it cannot be read (the replica then answers
        in its service's shape, as for any unknown environment)."""
        now = time.monotonic()
        kept = self.kept.get(env_id)
        if kept and kept[0] > now:
            return kept[1]
        if self.store is None:
            self.store = EnvironmentStore(StatePaths.default())
        try:
            services: tuple[str, ...] | None = tuple(self.store.get(env_id).held())
        except DetourError:
            services = None
        self.kept[env_id] = (now + KEPT_S, services)
        return services

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        env_id = flow.metadata.get(ENV_KEY)
        if env_id and not flow.response:
            flow.metadata[SERVICES_KEY] = self.of(env_id)
