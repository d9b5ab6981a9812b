"""Figures the bench modules share."""

from __future__ import annotations

import statistics


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def print_transfers(service: str, ups: list[float], downs: list[float]) -> None:
    """A service's upload and download rates (MB/s): median and the slowest tenth."""
    for label, rates in (("upload", ups), ("download", downs)):
        print(f"  {service} 10 MB {label:<9} through the proxy: median {statistics.median(rates):6.1f} MB/s   "
              f"p90 {percentile(rates, 10):6.1f} MB/s (the slowest tenth)   (n={len(rates)})")
