"""The service pack descriptor: everything the rest of detour knows of one replicated service.

Each pack's `pack.py` holds one; the registry (registry.py) lists them. A descriptor names its
code (the router, a warm-up) by dotted reference and imports none of it, so it stays a fact.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from detour_core.hosts import normal_pattern

DEFAULT_KEY = ("id",)


def resolve(reference: str) -> object:
    """A pack's "module:attribute" reference (descriptors name code, they do not import it); the
    attribute may be dotted (a generated pack's engine: "mock_services.rest.openapi.packs:stripe.router")."""
    module, _, attribute = reference.partition(":")
    return functools.reduce(getattr, attribute.split("."), importlib.import_module(module))


# Where an MCP host with OAuth answers it (RFC 9728, RFC 8414, RFC 7591, and the code flow's two).
OAUTH_PATHS = ("/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server", "/register",
               "/authorize", "/token")


@dataclass(frozen=True)
class McpSurface:
    """The vendor's hosted MCP server over the pack's state (mock_services/mcp serves it)."""

    hosts: tuple[str, ...]  # "host/path" of each endpoint; routed like the pack's own hosts
    tools: Path             # the tools table: what the vendor publishes (name, description, input schema)
    operations: str         # "module:attribute": tool name -> the pack's own operation that backs it
    source: str             # where the tools table comes from
    oauth: bool = False     # the vendor's OAuth at the MCP host: discovery, client registration, the code flow
    sse: tuple[str, ...] = ()  # "host/path" of its legacy HTTP+SSE endpoint, where the vendor still has one

    def __post_init__(self) -> None:
        object.__setattr__(self, "sse", tuple(self.sse))  # a generated pack's descriptor (JSON) gives a list

    def routes(self) -> tuple[str, ...]:
        """Every "host/path" the proxy sends to the pack for it: the endpoints, and where it has
        OAuth, the OAuth paths on their hosts."""
        hosts = sorted({entry.partition("/")[0] for entry in self.hosts}) if self.oauth else []
        return (*self.hosts, *self.sse, *(host + path for host in hosts for path in OAUTH_PATHS))


@dataclass(frozen=True)
class ServicePack:
    """One replicated service, as every floor needs to know it."""

    name: str                              # AgentDiff's service name: `.../services/{name}/...`
    hosts: tuple[str, ...]                 # "host", or "host/path/prefix" where only those paths land here
    router: str                            # "module:attribute" of its FastAPI router
    templates: Path                        # the folder of its built-in templates (AgentDiff seeds)
    signature_tables: tuple[str, ...]      # tables only this service's templates have
    primary_keys: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # where the key is not `id`
    users_table: str = "users"             # whose first row acts when nobody is named
    user_email: str = "email"              # its users' email field: how a world finds its people there
    spec: str = ""                         # where its API surface comes from (the vendor's description)
    warm_up: str | None = None             # "module:function" run in the background once its routes are built
    # Fields a row made by the API always has, given to seeded rows that lack them, so that a
    # diff reads `false -> true`, not `(absent) -> true`.
    row_defaults: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    # "module:function" (state) -> mock_services.issued_tokens.Credentials: the tokens it issues
    credentials: str | None = None
    # Every table its replica keeps rows in, seeded or made by its API: the entities an
    # assertion may name (a name outside them and the environment's own tables is a typo).
    tables: tuple[str, ...] = ()
    # "module:function" (status) -> detour_core.faults.FaultAnswer: an injected status fault in its shape
    faults: str | None = None
    # "module:attribute" of () -> {operation: "stateful" | "generated" | "not served"}: how much of
    # the vendor's API it serves, computed from its handlers (mock_services/coverage.py)
    coverage: str | None = None
    # "module:attribute" of its mock_services.events.rules.Events: which changes emit which events
    events: str | None = None
    # "module:function" (store, env_id, token, operation, args) -> dict: a call as the token's
    # user, made by detour itself (a timeline's step), answered as the vendor answers it
    act: str | None = None
    mcp: McpSurface | None = None          # its vendor's hosted MCP server, where it has one

    def primary_key(self, table: str) -> tuple[str, ...]:
        return self.primary_keys.get(table, DEFAULT_KEY)

    def host_routes(self) -> list[tuple[str, str]]:
        """(host, path prefix) pairs; a bare host serves every path."""
        pairs = []
        for entry in (*self.hosts, *(self.mcp.routes() if self.mcp else ())):
            host, slash, prefix = entry.partition("/")
            pairs.append((normal_pattern(host), slash + prefix if slash else "/"))
        return pairs
