"""detour: run agent code whose only way out is mitmproxy, routed to per-environment replicas.

`from detour import Client` is the Python API (detour.client); the names load on first use,
so the modules below (paths, errors, credentials) stay cheap for the replicas and the proxy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from detour.client import Client, Executor
    from mock_services.clock import Clock
    from sandbox.base import Limits, RunControl

_API = {"Client": "detour.client", "Clock": "mock_services.clock", "Executor": "detour.client", "Limits": "sandbox.base",
        "RunControl": "sandbox.base"}
__all__ = list(_API)


def __getattr__(name: str) -> Any:
    if name not in _API:
        raise AttributeError(f"module 'detour' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(_API[name]), name)
