"""Which network policy a flow falls under: the server's, plus its environment's own.

Runs after EnvAuth (the environment is known) and before Router and AuditRecorder, which read the
result from `flow.metadata`. Policy files are read again when they change, so `detour env
policy` takes effect on the next request.
"""

from __future__ import annotations

from pathlib import Path

from mitmproxy import ctx, http

from detour_core.policy import InvalidPolicy, Policy, load_policy
from proxy_addons.env_auth import ENV_KEY

POLICY_KEY = "detour.policy"


class Policies:
    def __init__(self) -> None:
        self.cache: dict[Path, tuple[float, Policy]] = {}

    def load(self, loader) -> None:
        loader.add_option("detour_policy", str, "", "The server's policy file (JSON), for every environment.")
        loader.add_option("detour_policies_dir", str, "", "Folder of <env_id>.json policy files.")

    def read(self, path: Path) -> Policy:
        """A missing file is the empty policy; a broken one denies as if empty, and says so."""
        try:
            mtime = path.stat().st_mtime
        except OSError:
            return Policy()
        cached = self.cache.get(path)
        if cached and cached[0] == mtime:
            return cached[1]
        try:
            policy = load_policy(path)
        except InvalidPolicy as e:
            ctx.log.warn(f"detour: ignoring {e}")
            policy = Policy()
        self.cache[path] = (mtime, policy)
        return policy

    def for_env(self, env_id: str | None) -> Policy:
        server = self.read(Path(ctx.options.detour_policy)) if ctx.options.detour_policy else Policy()
        if env_id and ctx.options.detour_policies_dir:
            return server.merged(self.read(Path(ctx.options.detour_policies_dir) / f"{env_id}.json"))
        return server

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        flow.metadata[POLICY_KEY] = self.for_env(flow.metadata.get(ENV_KEY))
