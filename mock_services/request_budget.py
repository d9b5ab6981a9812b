"""Per-environment request budgets: the replica's stand-in for a real API's rate limits.

An environment may carry a budget (so many requests per so many seconds); a request
beyond it is refused with the service's own rate-limit answer and a Retry-After. The
count is kept in memory by the replica process, in a sliding window per environment.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque

from pydantic import BaseModel, Field


class RequestBudget(BaseModel):
    requests: int = Field(ge=1, le=1_000_000)
    per_seconds: float = Field(gt=0, le=86_400)

    @classmethod
    def parse(cls, spec: str) -> RequestBudget:
        """`N/S`: N requests per S seconds (`60/60`), or `N/m` for a minute."""
        count, _, window = spec.partition("/")
        seconds = {"s": "1", "m": "60", "h": "3600"}.get(window, window)
        try:
            return cls(requests=int(count), per_seconds=float(seconds))
        except ValueError:
            raise ValueError(f"invalid request budget {spec!r}: use N/SECONDS, e.g. 50/60 or 50/m") from None


class BudgetLedger:
    """Timestamps of each environment's recent requests, shared by the replica's threads."""

    def __init__(self) -> None:
        self._spent: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def spend(self, env_id: str, budget: RequestBudget | None) -> int | None:
        """Count one request; None if it is within budget, else the seconds until it would be."""
        if budget is None:
            return None
        now = time.monotonic()
        with self._lock:
            spent = self._spent.setdefault(env_id, deque())
            while spent and spent[0] <= now - budget.per_seconds:
                spent.popleft()
            if len(spent) >= budget.requests:
                return max(1, math.ceil(spent[0] + budget.per_seconds - now))
            spent.append(now)
            return None
