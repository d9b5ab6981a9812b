"""Google Tasks over the pack generated from its discovery document (google-api-python-client's
tasks.v1.json): what a new task or list has unless the body says, and Google's error shape
(the discovery document describes none)."""

from mock_services.rest import google
from mock_services.rest.errors import RestError

DEFAULTS = {"tasks_tasks": {"kind": "tasks#task", "status": "needsAction"},
            "tasks_tasklists": {"kind": "tasks#taskList"}}
MISSING = {table: "Requested entity was not found." for table in ("tasks_tasks", "tasks_tasklists")}
# The engine's reasons as Google names them in `errors[].reason`.
REASONS = {400: "invalid", 401: "authError", 403: "forbidden", 404: "notFound", 501: "notImplemented"}


def error_body(error: RestError) -> dict:
    """Google's `{"error": {"code", "message", "errors": [...], "status"}}`, as its clients read it."""
    reason = error.reason if error.status == 429 else REASONS.get(error.status, error.reason)
    return google.error_body(RestError(error.status, reason, error.message))
