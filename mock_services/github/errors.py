"""GitHub's error shape and the errors its REST API answers with.

`{"message", "documentation_url", "status"}` (status as a string, as GitHub sends it), with
`errors` beside them for a validation failure (422). The generic engine's own reasons (a bad
parameter, an unknown path) come out in the same shape.
"""

from __future__ import annotations

from mock_services.rest import faults as rest_faults
from mock_services.rest.errors import RestError

DOCS = "https://docs.github.com/rest"
ENGINE_MESSAGES = {"notFound": "Not Found", "httpMethodNotAllowed": "Not Found", "parseError": "Problems parsing JSON"}


def error_body(error: RestError) -> dict:
    body: dict = {"message": ENGINE_MESSAGES.get(error.reason, error.message),
                  "documentation_url": (error.details or {}).get("documentation_url", DOCS),
                  "status": str(error.status)}
    if error.details and "errors" in error.details:
        body["errors"] = error.details["errors"]
    return body


def rate_limited(retry_after: int) -> RestError:
    return RestError(429, "rate_limited", "API rate limit exceeded. Try again later.",
                     {"Retry-After": str(retry_after), "X-RateLimit-Remaining": "0"})


def not_found() -> RestError:
    return RestError(404, "not_found", "Not Found")


def unauthorized() -> RestError:
    return RestError(401, "unauthorized", "Requires authentication")


def bad_credentials() -> RestError:
    return RestError(401, "bad_credentials", "Bad credentials")


def forbidden(message: str = "Resource not accessible by personal access token") -> RestError:
    return RestError(403, "forbidden", message)


def invalid(message: str, resource: str = "", field: str = "", code: str = "invalid") -> RestError:
    """422 Validation Failed, with GitHub's `errors` list."""
    detail = {"resource": resource, "field": field, "code": code} if resource else {"message": message}
    return RestError(422, "validation_failed", "Validation Failed" if resource else message,
                     details={"errors": [detail]})


def conflict(message: str) -> RestError:
    return RestError(409, "conflict", message)


def not_modeled(operation_id: str) -> RestError:
    return RestError(501, "not_modeled", f"detour's GitHub replica does not model {operation_id} yet")


# The status faults an environment injects, as GitHub answers them (detour_core.faults).
fault_answer = rest_faults.answers(rate_limited, error_body, {500: "server_error", 502: "bad_gateway",
                                                              503: "unavailable"})
