"""Per-environment request budgets: the replica's stand-in for a real API's rate limits.

An environment may carry a budget (so many requests per so many seconds); a request
beyond it is refused with the service's own rate-limit answer and a Retry-After, counted
in a sliding window.
"""

from __future__ import annotations

import math

from pydantic import Field

from detour_core.strict import Strict


class RequestBudget(Strict):
    requests: int = Field(ge=1, le=1_000_000, description="Requests allowed in any window of `per_seconds`.")
    per_seconds: float = Field(gt=0, le=86_400, description="The sliding window, in seconds.")

    @classmethod
    def parse(cls, spec: str) -> RequestBudget:
        """`N/S`: N requests per S seconds (`60/60`), or `N/m` for a minute."""
        count, _, window = spec.partition("/")
        seconds = {"s": "1", "m": "60", "h": "3600"}.get(window, window)
        try:
            return cls(requests=int(count), per_seconds=float(seconds))
        except ValueError:
            raise ValueError(f"invalid request budget {spec!r}: use N/SECONDS, e.g. 50/60 or 50/m") from None


SPENT_KEY = "request_budget_spent"


def spend(spent: list[float], budget: RequestBudget, now: float) -> tuple[list[float], int | None]:
    """Count one request against the times of the recent ones: the times to keep, and None if
    it is within budget, else the seconds until it would be. The times live with the
    environment's state, so every process and node that serves it counts against one budget."""
    recent = [t for t in spent if t > now - budget.per_seconds]
    if len(recent) >= budget.requests:
        return recent, max(1, math.ceil(recent[0] + budget.per_seconds - now))
    return [*recent, now], None
