"""Linear's answers to the status faults an environment injects (detour_core.faults): GraphQL
errors whose `extensions.type` @linear/sdk reads (`ratelimited`, `internal error`)."""

from detour_core.faults import RETRY_AFTER_S, FaultAnswer


def answer(status: int) -> FaultAnswer:
    if status == 429:
        return FaultAnswer(429, _errors("Rate limit exceeded", "RATELIMITED", "ratelimited"),
                           {"Retry-After": str(RETRY_AFTER_S)})
    return FaultAnswer(status, _errors("Internal server error", "INTERNAL_SERVER_ERROR", "internal error"))


def _errors(message: str, code: str, kind: str) -> dict:
    return {"errors": [{"message": message, "extensions": {"code": code, "type": kind, "userError": False,
                                                           "userPresentableMessage": message}}]}
