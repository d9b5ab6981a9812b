"""Where detour keeps its state: the single definition of the state directory layout.

Everything that persists (CA, environment databases, audit log, the secret that signs
environment credentials) lives under one directory so that a sandbox backend can hide it
as a whole and a user can move or wipe it as a whole.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

HOME_VARIABLE = "DETOUR_HOME"
# "off" when `detour serve --no-auth` lets platform API callers in without a key (loopback only).
API_AUTH_VARIABLE = "DETOUR_API_AUTH"
# A postgresql:// URL: environments live there instead of in SQLite files (`detour serve --database`).
DATABASE_VARIABLE = "DETOUR_DATABASE_URL"
# The stack a replica server belongs to (StackInfo as JSON), when it has a proxy beside it.
STACK_VARIABLE = "DETOUR_STACK"
LOOPBACK = ("127.0.0.1", "localhost", "::1")

# Machine-wide runtime state of namespace sandboxes (which address is which environment,
# which sandbox owns which resources): shared by every detour home, so `detour doctor`
# can find leftovers, and the proxy can map a transparent client to its environment.
RUNTIME_DIR = Path("/run/detour")
SANDBOX_ADDRESSES = RUNTIME_DIR / "by-address"


def default_home() -> Path:
    """`$DETOUR_HOME`, else the XDG data directory, so tests and demos can point elsewhere."""
    explicit = os.environ.get(HOME_VARIABLE)
    if explicit:
        return Path(explicit).expanduser().resolve()
    data = os.environ.get("XDG_DATA_HOME") or "~/.local/share"
    return (Path(data).expanduser() / "detour").resolve()


@dataclass(frozen=True)
class StatePaths:
    """The files and folders under one detour home."""

    home: Path

    @classmethod
    def default(cls) -> StatePaths:
        return cls(default_home())

    @property
    def ca_dir(self) -> Path:
        return self.home / "ca"

    @property
    def mitmproxy_confdir(self) -> Path:
        return self.home / "mitmproxy"

    @property
    def environments_dir(self) -> Path:
        return self.home / "environments"

    @property
    def templates_dir(self) -> Path:
        """User templates; the built-in ones ship inside mock_services."""
        return self.home / "templates"

    @property
    def audit_dir(self) -> Path:
        """A folder per environment of audit records (detour_core.audit)."""
        return self.home / "audit"

    @property
    def database_file(self) -> Path:
        """The database URL `detour serve --database` chose for this home (absent: SQLite)."""
        return self.home / "database.url"

    @property
    def policies_dir(self) -> Path:
        """An environment's network policy, <env_id>.json (detour_core.policy); server.json for all."""
        return self.home / "policies"

    @property
    def secrets_dir(self) -> Path:
        """Secrets the proxy injects, <env_id>.json, 0600 (detour_core.secrets); never in a sandbox."""
        return self.home / "secrets"

    @property
    def signing_key(self) -> Path:
        """Signs environment credentials; read by the CLI and the proxy, never by a sandbox."""
        return self.home / "signing.key"

    @property
    def api_key_file(self) -> Path:
        """The key callers of the platform API send as X-API-Key (`detour api-key` prints it)."""
        return self.home / "api.key"

    @property
    def stack_file(self) -> Path:
        """Written by a running `detour serve` so that `detour run` can find it."""
        return self.home / "stack.json"

    @property
    def runs_dir(self) -> Path:
        return self.home / "runs"

    def ensure(self) -> StatePaths:
        self.home.mkdir(parents=True, exist_ok=True)
        # 0700; a stack's proxy user (detour/proxy_user.py) may keep passing through its group.
        # Changed only where it differs: the proxy user, which owns no home, ensures it too (the
        # replicas it runs in its own process) and may not chmod it.
        mode = self.home.stat().st_mode & 0o7777
        if mode != 0o700 | (mode & 0o010):
            os.chmod(self.home, 0o700 | (mode & 0o010))
        return self
