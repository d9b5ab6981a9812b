"""Which network policy a flow falls under: the server's, plus its environment's own.

Runs after EnvAuth (the environment is known) and before Router and AuditRecorder, which read the
result from `flow.metadata`. Policy files are read again when they change, so `detour env
policy` takes effect on the next request; until then each request gets the same merged policy
object (read-only to the addons), not a new one.
"""

from __future__ import annotations

import os
from pathlib import Path

from mitmproxy import ctx, http

from detour_core.policy import InvalidPolicy, Policy, load_policy
from proxy_addons.env_auth import ENV_KEY

POLICY_KEY = "detour.policy"
EMPTY = Policy()
KEPT = 4096  # environments whose merged policy is kept (the oldest is forgotten first)


def _remember(kept: dict, key: str, value: tuple) -> None:
    """Keep `value` as the newest entry; past KEPT entries the oldest is forgotten."""
    kept.pop(key, None)
    kept[key] = value
    if len(kept) > KEPT:
        kept.pop(next(iter(kept)))


class Policies:
    def __init__(self) -> None:
        self.cache: dict[str, tuple[float, Policy]] = {}
        self.merged: dict[str, tuple[Policy, Policy, Policy]] = {}  # env -> (server's, its own, merged)
        self.server_file, self.folder = "", ""

    def load(self, loader) -> None:
        loader.add_option("detour_policy", str, "", "The server's policy file (JSON), for every environment.")
        loader.add_option("detour_policies_dir", str, "", "Folder of <env_id>.json policy files.")

    def configure(self, updated: set[str]) -> None:
        if updated & {"detour_policy", "detour_policies_dir"}:  # kept: an option read costs a deep copy
            self.server_file, self.folder = ctx.options.detour_policy, ctx.options.detour_policies_dir

    def read(self, path: str) -> Policy:
        """A missing file is the empty policy; a broken one denies as if empty, and says so."""
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return EMPTY
        cached = self.cache.get(path)
        if cached and cached[0] == mtime:
            return cached[1]
        try:
            policy = load_policy(Path(path))
        except InvalidPolicy as e:
            ctx.log.warn(f"detour: ignoring {e}")
            policy = EMPTY
        _remember(self.cache, path, (mtime, policy))
        return policy

    def for_env(self, env_id: str | None) -> Policy:
        server = self.read(self.server_file) if self.server_file else EMPTY
        if not (env_id and self.folder):
            return server
        own = self.read(os.path.join(self.folder, f"{env_id}.json"))
        kept = self.merged.get(env_id)
        if kept and kept[0] is server and kept[1] is own:
            return kept[2]
        merged = server.merged(own)
        _remember(self.merged, env_id, (server, own, merged))
        return merged

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        flow.metadata[POLICY_KEY] = self.for_env(flow.metadata.get(ENV_KEY))
