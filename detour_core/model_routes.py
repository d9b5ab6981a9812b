"""The agent's own model calls: which vendors' hosts a policy may route, what each speaks, and
what a call's record says about it (model, tokens, time to first token), read from the
vendor's own answer fields, whole or streamed as server-sent events.

A route sends a model vendor's host to a target: the vendor itself (its key held by detour's
secrets, the sandbox holding a placeholder), a server the user runs that speaks the same
protocol (vLLM, SGLang, Ollama, a trainer's policy server: OpenAI-compatible) or the other one of
the pairs in TRANSLATED (the call translated on its way, proxy_addons/model_translation.py), or
the answers an earlier run recorded (replay). The proxy's side is proxy_addons/model_routes.py.
"""

from __future__ import annotations

import json
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, field_validator, model_validator

from detour_core.hosts import host_matches, normal_pattern
from detour_core.strict import Strict

Protocol = Literal["openai", "azure", "anthropic", "gemini"]

# The vendors' own hosts and what they speak; any other host a route names speaks `openai`
# unless the route says otherwise (a user's own OpenAI-compatible name).
VENDOR_HOSTS: dict[str, Protocol] = {
    "api.openai.com": "openai",
    "*.openai.azure.com": "azure",
    "api.anthropic.com": "anthropic",
    "generativelanguage.googleapis.com": "gemini",
}
# The part of a vendor's path that a same-protocol server's base URL stands for: the OpenAI
# SDKs' base URL ends in /v1 (as vLLM's, SGLang's and Ollama's do); the others' is the root.
BASE_PATH: dict[Protocol, str] = {"openai": "/v1", "azure": "", "anthropic": "", "gemini": ""}
# (what the agent speaks, what the target speaks): the calls litellm translates on their way.
TRANSLATED: frozenset[tuple[Protocol, Protocol]] = frozenset({("anthropic", "openai"), ("openai", "anthropic")})

# Where each vendor's answer (or a streamed event of it) says what a call used; the last value
# seen wins, since streamed counts are cumulative (Anthropic's message_delta, Gemini's chunks).
USAGE_AT = (("usage",), ("message", "usage"), ("response", "usage"), ("usageMetadata",))
MODEL_AT = (("model",), ("message", "model"), ("response", "model"), ("modelVersion",))
TOKENS = {"input_tokens": ("prompt_tokens", "input_tokens", "promptTokenCount"),
          "output_tokens": ("completion_tokens", "output_tokens", "candidatesTokenCount")}


def vendor_protocol(host: str) -> Protocol | None:
    """The protocol a vendor's host speaks, None for a host that is no known vendor's."""
    return next((protocol for pattern, protocol in VENDOR_HOSTS.items() if host_matches(host, pattern)), None)


class ModelRoute(Strict):
    """`{"host": "api.openai.com", "base_url": "http://127.0.0.1:8000/v1"}`: where a model
    vendor's host goes. Exactly one target: `base_url` (a server speaking `protocol`), `vendor`
    (the host itself, its key from detour's secrets) or `replay` (the model answers an
    environment's records hold)."""

    host: str = Field(description="A model vendor's host (api.openai.com, api.anthropic.com, "
                                  "generativelanguage.googleapis.com, *.openai.azure.com) or a name of your own.")
    base_url: str | None = Field(None, description="An http(s) base URL of a server speaking `protocol`, "
                                                   "as its SDK's base_url (http://127.0.0.1:8000/v1).")
    vendor: bool = Field(False, description="Pass through to the host itself (its key held by detour's secrets).")
    replay: str | None = Field(None, description="An environment whose recorded model calls answer these.")
    protocol: Protocol | None = Field(None, description="What the target speaks: by default what the host does "
                                                        "(openai for a name of your own).")

    @field_validator("base_url")
    @classmethod
    def _url(cls, url: str | None) -> str | None:
        if url is None:
            return None
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
            raise ValueError(f"base_url {url!r} is not an http(s) URL without query (http://127.0.0.1:8000/v1)")
        return url.rstrip("/")

    @model_validator(mode="after")
    def _one_target(self) -> ModelRoute:
        if [self.base_url is not None, self.vendor, self.replay is not None].count(True) != 1:
            raise ValueError(f"model route for {self.host}: give one target: base_url, vendor or replay")
        own = self.host_protocol()
        if self.protocol is None:
            self.protocol = own
        if self.protocol != own and self.base_url is None:
            raise ValueError(f"model route for {self.host}: only a base_url may speak another protocol than the host")
        if self.protocol != own and (own, self.protocol) not in TRANSLATED:
            pairs = ", ".join(f"{a} to {b}" for a, b in sorted(TRANSLATED))
            raise ValueError(f"model route for {self.host}: {self.host} speaks {own} and the target {self.protocol}; "
                             f"detour translates {pairs} only")
        return self

    def translated(self) -> bool:
        """Whether a call on this route is translated into the target's protocol on its way."""
        return self.protocol != self.host_protocol()

    def host_protocol(self) -> Protocol:
        host = normal_pattern(self.host)
        return vendor_protocol(host.removeprefix("*.")) or VENDOR_HOSTS.get(host) or "openai"

    def target(self) -> str:
        """What the record names as where the call went."""
        return self.base_url or (f"replay {self.replay}" if self.replay else "vendor")

    def rebased(self, path: str) -> str:
        """The request's path on the base URL: the vendor's own base part swapped for it."""
        assert self.base_url is not None
        base = BASE_PATH[self.host_protocol()]
        rest = path[len(base):] if base and (path == base or path.startswith(base + "/")) else path
        return (urlsplit(self.base_url).path + rest) or "/"


class ModelBudget(Strict):
    """An environment's model calls, spent: past either, calls answer the vendor's own 429."""

    calls: int | None = Field(None, gt=0, description="Model calls an environment may make.")
    tokens: int | None = Field(None, gt=0, description="Input and output tokens, as the vendors report them.")


class ModelCall(BaseModel):
    """What a record says of a model call: the model, the tokens the answer reported, when its
    first byte came (ms after the request began) and where it went."""

    model: str | None = None
    protocol: Protocol = Field(description="What the agent's call speaks (its SDK reads answers in it).")
    target: str
    translated_to: Protocol | None = Field(None, description="What the target spoke, where detour translated.")
    stream: bool = False
    input_tokens: int | None = None
    output_tokens: int | None = None
    ttft_ms: float | None = None


def _at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def read_usage(call: ModelCall, document: Any) -> None:
    """Fill in `call` from one JSON answer or streamed event, where it says."""
    model = next((m for p in MODEL_AT if isinstance(m := _at(document, p), str) and m), None)
    if model:
        call.model = model
    for usage in (_at(document, p) for p in USAGE_AT):
        if not isinstance(usage, dict):
            continue
        for field, names in TOKENS.items():
            value = next((usage[n] for n in names if isinstance(usage.get(n), int)), None)
            if value is not None:
                setattr(call, field, value)


def request_model(path: str, body: bytes) -> str | None:
    """The model a request asks for: its JSON body's `model`, or Gemini's `models/NAME:` path."""
    try:
        asked = json.loads(body).get("model") if body else None
    except (ValueError, AttributeError):
        asked = None
    if isinstance(asked, str):
        return asked
    marker = "/models/"
    if marker in path:
        return path.split(marker, 1)[1].split(":", 1)[0].split("?", 1)[0] or None
    return None


LONGEST_LINE = 1024 * 1024  # an event line longer than this is not read (its usage, if any, is lost)


class EventReader:
    """Server-sent events as they stream: each complete `data:` line's JSON goes to `read_usage`."""

    def __init__(self, call: ModelCall) -> None:
        self.call, self.rest = call, b""

    def feed(self, chunk: bytes) -> None:
        lines = (self.rest + chunk).split(b"\n")
        self.rest = lines.pop()
        if len(self.rest) > LONGEST_LINE:
            self.rest = b""
        for line in lines:
            if line.startswith(b"data:"):
                try:
                    read_usage(self.call, json.loads(line[5:]))
                except ValueError:
                    pass  # `[DONE]`, or an event that is not JSON


# A vendor's own error answer, per kind of refusal detour makes: (status, its type per protocol).
ERRORS: dict[str, tuple[int, dict[str, str]]] = {
    "budget": (429, {"openai": "insufficient_quota", "anthropic": "rate_limit_error", "gemini": "RESOURCE_EXHAUSTED"}),
    "unrecorded": (404, {"openai": "not_found", "anthropic": "not_found_error", "gemini": "NOT_FOUND"}),
    "unserved": (404, {"openai": "not_found", "anthropic": "not_found_error", "gemini": "NOT_FOUND"}),
    "invalid": (400, {"openai": "invalid_request_error", "anthropic": "invalid_request_error",
                      "gemini": "INVALID_ARGUMENT"}),
    "upstream": (502, {"openai": "api_error", "anthropic": "api_error", "gemini": "UNAVAILABLE"}),
}


def vendor_error(protocol: Protocol, kind: str, message: str, status: int | None = None) -> tuple[int, dict]:
    """The status (the kind's, unless given) and body a vendor's SDK reads as its own error."""
    status = status or ERRORS[kind][0]
    family = "openai" if protocol == "azure" else protocol
    kind_name = ERRORS[kind][1][family]
    if family == "anthropic":
        return status, {"type": "error", "error": {"type": kind_name, "message": message}}
    if family == "gemini":
        return status, {"error": {"code": status, "message": message, "status": kind_name}}
    return status, {"error": {"message": message, "type": kind_name, "param": None, "code": kind_name}}
