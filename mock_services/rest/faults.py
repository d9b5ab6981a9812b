"""A REST pack's answers to the status faults an environment injects (detour_core.faults), laid
out by the pack's own `error_body` and rate-limit answer (Google's, Box's)."""

from collections.abc import Callable
from http import HTTPStatus

from detour_core.faults import RETRY_AFTER_S, FaultAnswer
from mock_services.rest.errors import RestError


def answers(rate_limited: Callable[[int], RestError], error_body: Callable[[RestError], dict],
            server_reasons: dict[int, str]) -> Callable[[int], FaultAnswer]:
    """The `faults` hook of a pack with these error makers."""
    def answer(status: int) -> FaultAnswer:
        error = rate_limited(RETRY_AFTER_S) if status == 429 else \
            RestError(status, server_reasons.get(status, "backendError"), HTTPStatus(status).phrase)
        return FaultAnswer(error.status, error_body(error), error.headers)
    return answer
