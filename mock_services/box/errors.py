"""Box's error shape and the errors its API answers with, by Box's codes.

`{"type": "error", "status", "code", "message", "request_id", "help_url", "context_info"}`.
The generic engine's own reasons (a bad parameter, an unknown path) are mapped to Box's codes
here, so every answer that is not a success reads as Box's.
"""

from __future__ import annotations


from mock_services import clock
from mock_services.rest import faults as rest_faults
from mock_services.rest.errors import RestError

ENGINE_CODES = {"invalid": "bad_request", "required": "bad_request", "parseError": "bad_request",
                "invalidParameter": "bad_request", "notFound": "not_found",
                "httpMethodNotAllowed": "method_not_allowed", "backendError": "internal_server_error"}
HELP_URL = "http://developers.box.com/docs/#errors"


def error_body(error: RestError) -> dict:
    body = {"type": "error", "status": error.status, "code": ENGINE_CODES.get(error.reason, error.reason),
            "help_url": HELP_URL, "message": error.message, "request_id": clock.token_hex(8)}
    if error.details is not None:
        body["context_info"] = error.details
    return body


def rate_limited(retry_after: int) -> RestError:
    return RestError(429, "rate_limit_exceeded", "Request rate limit exceeded, please try again later",
                     {"Retry-After": str(retry_after)})


def not_found(kind: str = "item") -> RestError:
    return RestError(404, "not_found", f"Not Found: the {kind} could not be found")


def trashed(kind: str) -> RestError:
    return RestError(404, "trashed", f"Item is trashed: the {kind} is in the trash")


def bad_request(message: str, **context: object) -> RestError:
    return RestError(400, "bad_request", message, details={"errors": [context]} if context else None)


def forbidden(message: str = "Access denied - insufficient permission") -> RestError:
    return RestError(403, "access_denied_insufficient_permissions", message)


def name_in_use(conflict: dict, as_list: bool) -> RestError:
    """409 with the conflicting item (folders give a list of them, files one)."""
    return RestError(409, "item_name_in_use", "Item with the same name already exists",
                     details={"conflicts": [conflict] if as_list else conflict})


def precondition_failed() -> RestError:
    return RestError(412, "precondition_failed", "The resource has been modified. Please retrieve the resource "
                                                 "again and retry")


def not_modeled(operation_id: str) -> RestError:
    return RestError(501, "not_implemented", f"detour's Box replica does not model {operation_id} yet")


# The status faults an environment injects, as Box answers them (detour_core.faults).
fault_answer = rest_faults.answers(rate_limited, error_body, {500: "internal_server_error", 502: "bad_gateway",
                                                              503: "unavailable"})
