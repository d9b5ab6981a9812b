"""The service registry: which replicated services detour has, and which real hosts (and
paths) land in each. The proxy routes with it, the rewrite preludes rewrite with it, the
store seeds and diffs with it, and the faces list it; none of them names a service.

A service is a pack: a package under mock_services/ whose `pack.py` holds one `ServicePack`
(detour_core/pack.py), or, for a pack generated from a vendor's description, whose
`spec/pack.json` holds the same fields as data (named here by that path). A descriptor is facts
only (names, hosts, tables; its router by dotted name), so this floor can load it without
pulling in a replica. Adding a service is a package and one line of `PACK_MODULES`. Packs that
live outside detour's tree (a user's, or a test's) are named in `DETOUR_SERVICE_PACKS` (module
names or descriptor paths, comma-separated), read by every process of a stack.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
from functools import cache
from pathlib import Path

from detour_core.errors import DetourError
from detour_core.hosts import host_matches, normal_host, path_matches
from detour_core.pack import McpSurface, ServicePack

PACK_MODULES: tuple[str, ...] = (
    "mock_services.slack.pack",
    "mock_services.linear.pack",
    "mock_services.calendar.pack",
    "mock_services.box.pack",
    "mock_services.gmail.pack",
    "mock_services.drive.pack",
    "mock_services/stripe/spec/pack.json",
    "mock_services/jira/spec/pack.json",
    "mock_services/jira_agile/spec/pack.json",
    "mock_services/twilio/spec/pack.json",
    "mock_services/hubspot/spec/pack.json",
    "mock_services/zendesk/spec/pack.json",
    "mock_services/notion/spec/pack.json",
    "mock_services/tasks/spec/pack.json",
    "mock_services/docs/spec/pack.json",
    "mock_services/sheets/spec/pack.json",
    "mock_services/people/spec/pack.json",
    "mock_services/chat/spec/pack.json",
    "mock_services/pubsub/spec/pack.json",
    "mock_services/pagerduty/spec/pack.json",
    "mock_services/sendgrid/spec/pack.json",
    "mock_services/asana/spec/pack.json",
    "mock_services/intercom/spec/pack.json",
    "mock_services/sentry/spec/pack.json",
    "mock_services/discord/spec/pack.json",
    "mock_services/trello/spec/pack.json",
    "mock_services/gitlab/spec/pack.json",
    "mock_services/outlook_mail/spec/pack.json",
    "mock_services/outlook_calendar/spec/pack.json",
    "mock_services/teams/spec/pack.json",
    "mock_services/onedrive/spec/pack.json",
    "mock_services.github.pack",
)
EXTRA_PACKS_VARIABLE = "DETOUR_SERVICE_PACKS"

# Rewrite mode's contract between the preludes and the gateway: who is calling, and which
# real host the rewritten URL stood for (for the audit log only; never trusted for routing).
CREDENTIALS_HEADER = "X-Detour-Credentials"
ORIGINAL_HOST_HEADER = "X-Detour-Original-Host"

# Ports a replicated host is served on; anything else on such a host is denied.
SERVICE_PORTS: frozenset[int] = frozenset({80, 443})


class InvalidServicePack(DetourError):
    pass


DATA_DESCRIPTOR = "/spec/pack.json"  # a generated pack's descriptor, below its package's folder


def _data_file(entry: str) -> Path:
    """Where `package/path/spec/pack.json` is: below the first folder of that top-level package."""
    top, _, rest = entry.partition("/")
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        found = None
    for base in (found.submodule_search_locations or []) if found else []:
        if (Path(base) / rest).is_file():
            return Path(base) / rest
    raise InvalidServicePack(f"service pack {entry!r} cannot be loaded: no such file below an importable package")


def _from_data(entry: str) -> ServicePack:
    """A generated pack's descriptor from its data; its paths are relative to its package's folder."""
    path = _data_file(entry)
    try:
        fields = json.loads(path.read_text())
        folder = path.parent.parent
        fields["templates"] = folder / fields.get("templates", "templates")
        if "mcp" in fields:  # its tools table, like its templates, relative to its package's folder
            mcp = fields["mcp"]
            fields["mcp"] = McpSurface(**{**mcp, "hosts": tuple(mcp["hosts"]), "tools": folder / mcp["tools"]})
        tuples = ("hosts", "signature_tables", "tables")
        return ServicePack(**{k: tuple(v) if k in tuples else v for k, v in fields.items()})
    except (ValueError, TypeError, KeyError) as e:  # JSON's errors among them
        raise InvalidServicePack(f"service pack {entry!r} cannot be loaded: {e}") from None


def package_of(name: str) -> str:
    """The package a registered pack's files are in (a generated pack's overrides live there)."""
    extra = os.environ.get(EXTRA_PACKS_VARIABLE, "")
    for entry, candidate in zip(_entries(extra), _packs(extra), strict=True):
        if candidate.name == name:
            return entry.removesuffix(DATA_DESCRIPTOR).replace("/", ".") if entry.endswith(".json") \
                else entry.rpartition(".")[0]
    raise InvalidServicePack(f"no service pack {name!r}; known: {', '.join(service_names())}")


def _load(module: str) -> ServicePack:
    if module.endswith(".json"):
        return _from_data(module)
    try:
        pack = importlib.import_module(module).PACK
    except (ImportError, AttributeError) as e:
        raise InvalidServicePack(f"service pack {module!r} cannot be loaded: {e}") from None
    if not isinstance(pack, ServicePack):
        raise InvalidServicePack(f"{module}.PACK is not a ServicePack")
    return pack


def _entries(extra: str) -> list[str]:
    return [*PACK_MODULES, *(m.strip() for m in extra.split(",") if m.strip())]


@cache
def _packs(extra: str) -> tuple[ServicePack, ...]:
    packs = tuple(_load(m) for m in _entries(extra))
    names = [p.name for p in packs]
    if len(set(names)) != len(names):
        raise InvalidServicePack(f"two service packs share a name: {names}")
    return packs


def packs() -> tuple[ServicePack, ...]:
    """Every registered pack: detour's own, then the ones `DETOUR_SERVICE_PACKS` names."""
    return _packs(os.environ.get(EXTRA_PACKS_VARIABLE, ""))


def added_packs() -> tuple[ServicePack, ...]:
    """The packs `DETOUR_SERVICE_PACKS` names: a user's code, after detour's own in `packs()`."""
    return packs()[len(PACK_MODULES):]


def pack(name: str) -> ServicePack:
    for candidate in packs():
        if candidate.name == name:
            return candidate
    raise InvalidServicePack(f"no service pack {name!r}; known: {', '.join(service_names())}")


def service_names() -> list[str]:
    return [p.name for p in packs()]


def replicated_hosts() -> list[str]:
    """Every named host any pack serves (some only on some paths); a tenant's pattern such as
    `*.atlassian.net` is not a host (nothing can resolve it) and is left out."""
    return sorted({host for p in packs() for host, _ in p.host_routes() if not host.startswith("*.")})


Route = tuple[str, str, str]  # (host or *.pattern, path prefix, service), in registry order


@cache
def _routes(extra: str) -> tuple[dict[str, list[Route]], tuple[Route, ...]]:
    """Every pack's routes, once: by named host, and the tenant patterns (the proxy asks per request)."""
    named: dict[str, list[Route]] = {}
    patterns: list[Route] = []
    for p in _packs(extra):
        for route_host, prefix in p.host_routes():
            route = (route_host, prefix, p.name)
            if route_host.startswith("*."):
                patterns.append(route)
            else:
                named.setdefault(route_host, []).append(route)
    return named, tuple(patterns)


def _routes_of(host: str) -> list[Route]:
    """The routes whose host (or pattern) matches `host`, in registry order within each kind."""
    named, patterns = _routes(os.environ.get(EXTRA_PACKS_VARIABLE, ""))
    return named.get(host, []) + [route for route in patterns if host_matches(host, route[0])]


def services_for(host: str, path: str = "/") -> list[str]:
    """The services a request to host+path may land in: the longest matching prefix wins, and a
    named host before a tenant pattern. Several where packs share a route (Google's token
    endpoint: every Google pack's), in registry order; the proxy picks the one the environment holds."""
    host = normal_host(host)
    path = re.sub("//+", "/", path.split("?", 1)[0]) or "/"  # vendors read `/v1.0//users` as `/v1.0/users`
    best: tuple[tuple[int, int], list[str]] = ((-1, -1), [])
    for route_host, prefix, name in _routes_of(host):
        rank = (0 if route_host.startswith("*.") else 1, len(prefix))
        if not path_matches(path, prefix):  # a `*` segment is any one (Graph's `/v1.0/users/*/messages`)
            continue
        if rank > best[0]:
            best = (rank, [name])
        elif rank == best[0] and name not in best[1]:
            best[1].append(name)
    return best[1]


def service_for(host: str, path: str = "/", held: list[str] | tuple[str, ...] | None = None) -> str | None:
    """The service a request to host+path lands in: the longest matching prefix wins; where
    packs share it, the first of them that `held` (the environment's services) names."""
    found = services_for(host, path)
    return next((s for s in found if held is not None and s in held), found[0] if found else None)


def is_replicated_host(host: str) -> bool:
    return bool(_routes_of(normal_host(host)))


def rewrite_table() -> str:
    """The preludes' map, `host[/prefix]=service` separated by spaces (rewrite mode)."""
    return " ".join(f"{host}{'' if prefix == '/' else prefix}={p.name}"
                    for p in packs() for host, prefix in p.host_routes())


def replica_path(env_id: str, service: str, path: str) -> str:
    """AgentDiff's URL shape: the real API path below the environment's service prefix.

    https://slack.com/api/chat.postMessage -> /api/env/E/services/slack/api/chat.postMessage
    https://api.linear.app/graphql        -> /api/env/E/services/linear/graphql
    """
    return f"/api/env/{env_id}/services/{service}{path if path.startswith('/') else '/' + path}"


def canonical_host(service: str) -> str:
    """The first host of `service`: how logs name it when only the service is known."""
    return pack(service).host_routes()[0][0]


def parse_replica_path(path: str) -> tuple[str, str, str] | None:
    """Inverse of replica_path: (env_id, service, real API path), or None if not that shape."""
    parts = path.split("/", 6)
    if len(parts) < 6 or parts[:3] != ["", "api", "env"] or parts[4] != "services":
        return None
    service = parts[5].split("?", 1)[0]
    if service not in service_names():
        return None
    rest = path[len(f"/api/env/{parts[3]}/services/{service}"):]
    return parts[3], service, rest if rest.startswith("/") else "/" + rest


def signature_tables() -> dict[str, str]:
    """Table -> service, for tables that tell a template's service apart."""
    return {table: p.name for p in packs() for table in p.signature_tables}


def template_folders() -> list[Path]:
    return [p.templates for p in packs()]
