"""Slack's answers to the status faults an environment injects (detour_core.faults): 429 with
`ratelimited` and Retry-After as Slack rate-limits, and its errors for a failing server."""

from detour_core.faults import RETRY_AFTER_S, FaultAnswer

SERVER_ERRORS = {500: "internal_error", 502: "fatal_error", 503: "service_unavailable"}


def answer(status: int) -> FaultAnswer:
    if status == 429:
        return FaultAnswer(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(RETRY_AFTER_S)})
    return FaultAnswer(status, {"ok": False, "error": SERVER_ERRORS.get(status, "internal_error")})
