"""An environment's network policy: what its audit records capture, and which hosts beyond
the replicas it may reach. Default deny: nothing is allowed unless a policy names it.

Rules narrow a host down to methods and paths: ordered `{host, method, path, action}`, the
first that matches a request decides (allow or deny), and its text goes into the record.
They apply to allowed hosts and to the replicas' hosts alike (forbid `chat.delete`, say).

The server's policy (`detour serve --policy FILE`, `--allow`, `--capture`) applies to every
environment; an environment's own (`detour env create --policy FILE --allow --capture`,
`detour env policy`) adds to it. The proxy reads both from files under $DETOUR_HOME, so a
change takes effect on the next request.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from detour_core.credentials import validate_env_id
from detour_core.errors import DetourError
from detour_core.faults import Fault
from detour_core.hosts import host_matches, is_address, normal_host, normal_pattern
from detour_core.model_routes import ModelBudget, ModelRoute
from detour_core.paths import StatePaths
from detour_core.registry import is_replicated_host, replicated_hosts
from detour_core.strict import Strict, first_error

Capture = Literal["off", "headers", "bodies"]
Watch = Literal["record", "redact", "block"]
WATCH_ORDER: tuple[Watch, ...] = ("record", "redact", "block")
CAPTURE_ORDER: tuple[Capture, ...] = ("off", "headers", "bodies")
ALLOWED_PORTS = frozenset({80, 443})
DEFAULT_MAX_REQUEST_BYTES = 64 * 1024 * 1024  # above the largest upload a replica takes (Slack: 50 MB)
MOST_REQUEST_BYTES = 1024 * 1024 * 1024  # the largest limit a policy may set (mitmproxy caps bodies at it)
# One environment's share of the proxy that every environment uses; a policy may set its own.
DEFAULT_MAX_CONNECTIONS = 256
DEFAULT_MAX_RPS = 2000
DEFAULT_MAX_BYTES_PER_SECOND = 256 * 1024 * 1024
LIMITS = ("max_request_bytes", "max_connections", "max_requests_per_second", "max_bytes_per_second")


class InvalidPolicy(DetourError):
    pass


def host_pattern(pattern: str) -> str:
    """A host name, or `*.domain` for its subdomains, in its one spelling (detour_core.hosts);
    never an address (in any spelling: `0177.0.0.1` is 127.0.0.1) or a port."""
    name = normal_pattern(pattern)
    bare = name.removeprefix("*.")
    if is_address(bare):
        raise ValueError(f"{pattern!r} is an IP address (or ends in a number, which URL parsers read as one): "
                         "only host names may be named")
    if not bare or "*" in bare or ":" in bare or "/" in bare or "." not in bare:
        raise ValueError(f"{pattern!r} is not a host name or *.domain (no ports, paths or other wildcards)")
    return name


def check_host_pattern(pattern: str) -> str:
    """An allowed host: a host pattern that covers no replica's host."""
    name = host_pattern(pattern)
    bare = name[2:] if name.startswith("*.") else name
    covered = [h for h in replicated_hosts() if h == bare or (name.startswith("*.") and h.endswith("." + bare))]
    if covered:
        raise ValueError(f"{pattern!r} covers {', '.join(covered)}, which detour's replicas serve: "
                         "it can never be passed through")
    return name


class Rule(Strict):
    """`deny POST slack.com/api/chat.delete`: an action, a method (or *), a host (or *.domain)
    and a path glob; in a policy file as that text or as an object of those four keys."""

    action: Literal["allow", "deny"]
    host: str
    method: str = "*"
    path: str = "/*"

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, data: Any) -> Any:
        """The command line's form, `ACTION METHOD HOST/PATH`, is a policy file's too."""
        if not isinstance(data, str):
            return data
        words = data.split()
        if len(words) != 3:
            raise ValueError("write ACTION METHOD HOST/PATH, e.g. 'deny POST slack.com/api/chat.delete'")
        host, slash, path = words[2].partition("/")
        return {"action": words[0].lower(), "method": words[1], "host": host, "path": slash + path if slash else "/*"}

    @field_validator("host")
    @classmethod
    def _host(cls, host: str) -> str:
        return host_pattern(host)  # a replica's host may carry rules too

    @field_validator("method")
    @classmethod
    def _method(cls, method: str) -> str:
        if method != "*" and not method.isalpha():
            raise ValueError(f"rule method {method!r} is not an HTTP method or *")
        return method.upper()

    @field_validator("path")
    @classmethod
    def _path(cls, path: str) -> str:
        if not path.startswith("/"):
            raise ValueError(f"rule path {path!r} must start with /")
        return path

    @classmethod
    def parse(cls, text: str) -> Rule:
        """The command line's form: `ACTION METHOD HOST/PATH` (`allow GET api.partner.test/v1/*`)."""
        try:
            return cls.model_validate(text)
        except ValidationError as e:
            raise InvalidPolicy(f"rule {text!r}: {first_error(e)}") from None

    def text(self) -> str:
        return f"{self.action} {self.method} {self.host}{self.path}"

    def matches(self, host: str, method: str, path: str) -> bool:
        return (host_matches(host, self.host) and self.method in ("*", method.upper())
                and fnmatch.fnmatchcase(path.split("?", 1)[0], self.path))


Placement = Literal["header", "query", "body"]


class SecretRules(Strict):
    """Where a secret's value may be put in a request to its hosts, and what happens to an answer
    from them that the proxy cannot check for the value (detour_core.secrets, proxy_addons)."""
    inject: list[Placement] = Field(["header"], min_length=1, description=(
        "Parts of a request where its placeholder becomes the value: the header (Authorization and "
        "the `headers` named), the query, the body. A placeholder anywhere else goes as it is."))
    headers: list[str] = Field([], description="Header names besides Authorization (x-api-key, ...).")
    unchecked: Literal["refuse", "pass"] = Field("refuse", description=(
        "An answer the proxy cannot scrub (an unknown compression, a protocol switch): refused with "
        "a 502, or passed and recorded as unchecked."))

    @field_validator("inject")
    @classmethod
    def _places(cls, places: list[Placement]) -> list[Placement]:
        return sorted(set(places), key=["header", "query", "body"].index)

    @field_validator("headers")
    @classmethod
    def _header_names(cls, names: list[str]) -> list[str]:
        for name in names:
            if not re.fullmatch(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+", name):
                raise ValueError(f"{name!r} is not a header name")
        return sorted({n.lower() for n in names} - {"authorization"})

    def header_names(self) -> frozenset[str]:
        """The headers whose placeholder is swapped, lower case; none unless `header` is a place."""
        return frozenset(["authorization", *self.headers]) if "header" in self.inject else frozenset()


class SecretSource(SecretRules):
    """A secret a policy file asks for: where its value is read when the policy is applied (the
    value itself never is in a policy), and the hosts it may go to (detour_core.secrets)."""
    name: str
    hosts: list[str] = Field(min_length=1)
    from_env: str | None = Field(None, description="A variable of the process that applies the policy.")
    file: Path | None = Field(None, description="A file holding the value.")

    @model_validator(mode="after")
    def _one_source(self) -> SecretSource:
        if (self.file is None) == (self.from_env is None):
            raise ValueError("a secret takes its value from_env or from a file: one of them")
        return self

    def value(self) -> str:
        """Read now; a clear error where the source is missing."""
        if self.from_env is not None:
            if self.from_env not in os.environ:
                raise InvalidPolicy(f"secret {self.name}: the variable {self.from_env} is not set")
            return os.environ[self.from_env]
        try:
            return Path(self.file).read_text().rstrip("\n")  # type: ignore[arg-type]
        except OSError as e:
            raise InvalidPolicy(f"secret {self.name}: cannot read {self.file}: {e}") from None


class Policy(Strict):
    capture: Capture = "off"
    allow: list[str] = Field([], description="Host names, or *.domain for subdomains, passed through to the real host.")
    redact: list[str] = Field([], description="Regular expressions whose matches never reach a record.")
    body_limit: int = Field(65536, gt=0, description="Bytes of a body kept; the rest is cut with a marker.")
    rules: list[Rule] = Field([], description="Ordered rules, each 'ACTION METHOD HOST/PATH' or an object of those "
                                              "keys (action, method, host, path); the first that matches decides.")
    max_request_bytes: int | None = Field(None, gt=0, le=MOST_REQUEST_BYTES,
                                          description="A request body's largest size (default 64 MiB).")
    max_connections: int | None = Field(None, gt=0, description="Client connections open at once "
                                                                 f"(default {DEFAULT_MAX_CONNECTIONS}).")
    max_requests_per_second: int | None = Field(None, gt=0, description="Requests a second, paced 1/N s apart "
                                                                         f"(default {DEFAULT_MAX_RPS}).")
    max_bytes_per_second: int | None = Field(None, gt=0, description="Request body bytes in any one second "
                                                                      "(default 256 MiB).")
    secrets: list[SecretSource] = Field([], description="Secrets stored when the policy is applied (their "
                                                        "sources, never their values).")
    faults: list[Fault] = Field([], description="What goes wrong on purpose, in order: the first that "
                                                "hits a request decides (detour_core.faults).")
    models: list[ModelRoute] = Field([], description="Where the agent's own model calls go, per vendor host "
                                                     "(detour_core.model_routes); the first that names a host decides.")
    model_budget: ModelBudget | None = Field(None, description="Model calls or tokens an environment may spend.")
    watch: dict[str, Watch] = Field({}, description=(
        "Per allowed host (or *.domain): what a credential found in a request to it does "
        "(detour_core.egress_watch): record it, block the request (403 naming it), or redact it. "
        "An allowed host not named here is recorded."))

    @field_validator("allow")
    @classmethod
    def _hosts(cls, hosts: list[str]) -> list[str]:
        return sorted({check_host_pattern(h) for h in hosts})

    @field_validator("models")
    @classmethod
    def _model_hosts(cls, routes: list[ModelRoute]) -> list[ModelRoute]:
        for route in routes:
            route.host = check_host_pattern(route.host)
        return routes

    @field_validator("watch")
    @classmethod
    def _watched_hosts(cls, watch: dict[str, Watch]) -> dict[str, Watch]:
        return {host_pattern(host): action for host, action in watch.items()}

    @field_validator("redact")
    @classmethod
    def _patterns(cls, patterns: list[str]) -> list[str]:
        for p in patterns:
            try:
                re.compile(p)
            except re.error as e:
                raise ValueError(f"redact pattern {p!r}: {e}") from None
        return patterns

    def merged(self, other: Policy) -> Policy:
        """The stricter capture never wins over the wider one: an environment may capture more
        than the server does; hosts and patterns add up; the smaller body limit holds; the
        environment's own request size limit, where it sets one, holds over the server's."""
        capture = max(self.capture, other.capture, key=CAPTURE_ORDER.index)
        return Policy(capture=capture, allow=[*self.allow, *other.allow], redact=[*self.redact, *other.redact],
                      body_limit=min(self.body_limit, other.body_limit), rules=[*self.rules, *other.rules],
                      faults=[*self.faults, *other.faults],
                      models=[*other.models, *self.models], model_budget=other.model_budget or self.model_budget,
                      watch={host: max(self.watch.get(host, "record"), other.watch.get(host, "record"),
                                       key=WATCH_ORDER.index) for host in {*self.watch, *other.watch}},
                      **{limit: getattr(other, limit) or getattr(self, limit) for limit in LIMITS})

    def rule_for(self, host: str, method: str, path: str) -> tuple[int, Rule] | None:
        """The first rule that matches (its number from 1, and it), or None. The server's rules
        come first in a merged policy, so an environment cannot allow what the server denies."""
        host = normal_host(host)
        return next(((n, r) for n, r in enumerate(self.rules, 1) if r.matches(host, method, path)), None)

    def allows(self, host: str, port: int) -> bool:
        host = normal_host(host)
        if port not in ALLOWED_PORTS or is_address(host) or is_replicated_host(host):
            return False
        return any(host_matches(host, p) for p in self.allow) or self.model_route(host) is not None

    def watch_for(self, host: str) -> Watch:
        """What a credential in a request to this allowed host does: the strictest entry naming it."""
        host = normal_host(host)
        return max((w for p, w in self.watch.items() if host_matches(host, p)), key=WATCH_ORDER.index, default="record")

    def model_route(self, host: str) -> ModelRoute | None:
        """The model route of a host (an environment's own before the server's), or None."""
        return next((r for r in self.models if host_matches(host, r.host)), None)


def load_policy(path: Path) -> Policy:
    try:
        return Policy.model_validate(json.loads(path.read_text()))
    except OSError as e:
        raise InvalidPolicy(f"cannot read policy {path}: {e.strerror}") from None
    except ValueError as e:  # JSON and validation errors both
        raise InvalidPolicy(f"policy {path}: {first_error(e)}") from None


def build_policy(base: Policy | None = None, **changes) -> Policy:
    """A policy from a file's and the command line's parts, with a clear error for bad ones."""
    try:
        data = (base or Policy()).model_dump() | {k: v for k, v in changes.items() if v is not None}
        return Policy.model_validate(data)
    except ValidationError as e:
        raise InvalidPolicy(first_error(e)) from None


def server_policy_file(state: StatePaths) -> Path:
    """Written by the stack at start: every environment's policy starts from it."""
    return state.policies_dir / "_server.json"


def policy_file(state: StatePaths, env_id: str) -> Path:
    return state.policies_dir / f"{validate_env_id(env_id)}.json"


def save_policy(path: Path, policy: Policy) -> None:
    """Whole or not at all: the proxy may read it at any moment."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".writing")
    partial.write_text(policy.model_dump_json(indent=2))
    partial.replace(path)


def set_faults(state: StatePaths, env_id: str, faults: list[Fault]) -> Policy:
    """An environment's faults replaced (the rest of its policy kept); the proxy applies them
    from its next request on."""
    path = policy_file(state, env_id)
    current = load_policy(path) if path.exists() else Policy()
    updated = current.model_copy(update={"faults": faults})
    save_policy(path, updated)
    return updated
