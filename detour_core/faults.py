"""Faults on demand: what an environment's policy may make go wrong, so an evaluation can see
whether an agent retries, backs off, gives up, or checks before it retries a write.

A fault names the requests it hits (`METHOD HOST/PATH` as egress rules have it, plus body fields
and a GraphQL operation's name), what happens to them, and how often: with a probability from a
seed, or exactly N times. The proxy applies them (proxy_addons/faults.py); a replicated service
answers a status fault in its own error shape (its pack's `faults` hook).

    rate_limited   the service's rate-limit answer (429 and Retry-After, or its own form)
    error          a server error: `status` 500, 502 or 503, in the service's shape
    latency        the answer comes `latency_ms` later (a number, or [low, high] drawn evenly)
    hang           no answer until the client gives up (the proxy closes it after HANG_S)
    drop           the connection is closed with no answer, the request never served
    lost_answer    the request is served (a write commits) and its answer is lost on the way back
"""

from __future__ import annotations

import fnmatch
import hashlib
import random
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from detour_core.hosts import host_matches, normal_host, normal_pattern
from detour_core.strict import Strict

FaultKind = Literal["rate_limited", "error", "latency", "hang", "drop", "lost_answer"]
HANG_S = 300.0
RETRY_AFTER_S = 1
METHODS = frozenset({"*", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


@dataclass(frozen=True)
class FaultAnswer:
    """A status fault as a service answers it: its pack's `faults` hook makes one."""
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


class Fault(Strict):
    """One fault of an environment's policy."""

    kind: FaultKind
    match: str = Field(description="`METHOD HOST/PATH` (`POST slack.com/api/chat.postMessage`, `* api.linear.app/*`); "
                                   "HOST may be *.domain, METHOD *, PATH a glob.")
    operation: str | None = Field(None, description="A GraphQL operation's name the request must carry, or the "
                                                    "tool an MCP call names (a hosted MCP server's tools/call).")
    body: dict[str, Any] = Field({}, description="Fields the request's JSON or form body must have, with these values.")
    status: Literal[500, 502, 503] = Field(503, description="The status of an `error`.")
    latency_ms: float | tuple[float, float] = Field(0, description="A `latency`: fixed, or [low, high].")
    probability: float = Field(1.0, gt=0, le=1, description="The chance a matching request is hit.")
    times: int | None = Field(None, ge=1, description="Hit exactly this many matching requests, then none.")
    seed: int = Field(0, description="Seeds the draws, so a run with the same requests is hit the same way.")

    @field_validator("match")
    @classmethod
    def _match(cls, text: str) -> str:
        words = text.split()
        if len(words) != 2 or not (words[0] == "*" or words[0].isalpha()) or words[1].startswith("/"):
            raise ValueError(f"{text!r}: write METHOD HOST/PATH, e.g. 'POST slack.com/api/chat.postMessage'")
        if words[0].upper() not in METHODS:  # `PSOT` would match no request, ever
            raise ValueError(f"{words[0]!r} is no HTTP method: one of {', '.join(sorted(METHODS))}")
        return f"{words[0].upper()} {words[1]}"

    @model_validator(mode="after")
    def _latency_given(self) -> Fault:
        if self.kind == "latency" and not any(self.latency_ms if isinstance(self.latency_ms, tuple)
                                                else (self.latency_ms,)):
            raise ValueError("a latency fault needs latency_ms (--latency-ms MS or LOW,HIGH) above 0")
        return self

    def parts(self) -> tuple[str, str, str]:
        """(method, host pattern, path glob)."""
        method, target = self.match.split()
        host, slash, path = target.partition("/")
        return method, normal_pattern(host), slash + path if slash else "/*"

    def hits(self, method: str, host: str, path: str, body: dict[str, Any], operation: str | None) -> bool:
        """Whether a request is one this fault is about (before its probability and count)."""
        want_method, want_host, want_path = self.parts()
        host_ok = want_host == "*" or host_matches(normal_host(host), want_host)
        return (host_ok and want_method in ("*", method.upper())
                and fnmatch.fnmatchcase(path.split("?", 1)[0], want_path)
                and (self.operation is None or self.operation == operation)
                and all(body.get(k) == v for k, v in self.body.items()))

    def latency_s(self, draw: random.Random) -> float:
        low, high = self.latency_ms if isinstance(self.latency_ms, tuple) else (self.latency_ms,) * 2
        return draw.uniform(low, high) / 1000

    def label(self, number: int) -> str:
        """How the audit record names it: `fault 2: rate_limited POST slack.com/api/chat.postMessage`."""
        return f"fault {number}: {self.kind} {self.match}"


def draw(number: int, fault: Fault, nth: int) -> random.Random:
    """The draw for the `nth` request fault `number` matched (from 0): a function of the fault and
    that place alone, so the same requests in the same order are hit the same way in every
    environment with that policy, whichever proxy worker takes each."""
    return random.Random(f"{number}:{fault.seed}:{nth}")


def fires(number: int, fault: Fault, seen: int, fired: int) -> bool:
    """Whether the fault hits the request after `seen` matching ones, `fired` of which it hit."""
    if fault.times is not None and fired >= fault.times:
        return False
    return fault.probability >= 1 or draw(number, fault, seen).random() < fault.probability


def count_key(number: int, fault: Fault) -> str:
    """Where a fault's counts are kept: a changed fault (or one moved in the list) starts anew."""
    return f"{number}:{hashlib.sha256(fault.model_dump_json().encode()).hexdigest()[:16]}"
