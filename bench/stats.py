"""Figures the bench modules share."""

from __future__ import annotations

import statistics


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]
