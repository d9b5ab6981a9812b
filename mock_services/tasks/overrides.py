"""Google Tasks over the pack generated from its discovery document (google-api-python-client's
tasks.v1.json): what a new task or list has unless the body says, and Google's error shape
(the discovery document describes none)."""

from mock_services.rest.google import generated_error_body as error_body

DEFAULTS = {"tasks_tasks": {"kind": "tasks#task", "status": "needsAction"},
            "tasks_tasklists": {"kind": "tasks#taskList"}}
MISSING = {table: "Requested entity was not found." for table in ("tasks_tasks", "tasks_tasklists")}

__all__ = ["DEFAULTS", "MISSING", "error_body"]
