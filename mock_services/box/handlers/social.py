"""Comments, tasks and task assignments on files, with who may read and write them."""

from __future__ import annotations

from mock_services.box import access, errors, tree
from mock_services.box.access import DOWNLOAD, SEE
from mock_services.box.handlers.paging import offset_page
from mock_services.box.resources import existing, file_mini, new_id, now, user_mini
from mock_services.rest.router import Call
from mock_services.store import Row

TASK_ACTIONS = ("review", "complete")
COMPLETION_RULES = ("all_assignees", "any_assignee")
RESOLUTIONS = ("completed", "incomplete", "approved", "rejected")


def _comment(call: Call, row: Row) -> dict:
    target = {"type": row.get("item_type", "file"), "id": row.get("item_id")}
    return {"type": "comment", "id": row["id"], "is_reply_comment": bool(row.get("is_reply_comment")),
            "message": row.get("message", ""), "tagged_message": row.get("tagged_message") or row.get("message", ""),
            "created_by": user_mini(call, row.get("created_by_id")), "created_at": row.get("created_at"),
            "modified_at": row.get("modified_at"), "item": target}


def _comment_row(call: Call, needs: str = SEE) -> Row:
    row = existing(call, "box_comments", call.params["comment_id"], "comment")
    access.item(call, "file", row.get("file_id") or row["item_id"], needs)
    return row


def create_comment(call: Call) -> dict:
    body = call.body or {}
    target = body.get("item") or {}
    message = body.get("tagged_message") or body.get("message")
    if not isinstance(message, str) or not message.strip():
        raise errors.bad_request("message is required", name="message", reason="missing_parameter")
    if target.get("type") not in ("file", "comment"):
        raise errors.bad_request("item.type must be file or comment", name="item", reason="invalid_parameter")
    file_id, reply = str(target.get("id", "")), target["type"] == "comment"
    if reply:
        parent = existing(call, "box_comments", file_id, "comment")
        file_id = parent.get("file_id") or parent["item_id"]
    file_row = access.item(call, "file", file_id, DOWNLOAD)
    when = now()
    row = {"id": new_id(), "type": "comment", "item_id": str(target["id"]), "file_id": file_row["id"],
           "item_type": target["type"], "message": body.get("message") or message,
           "created_by_id": call.user, "created_at": when, "modified_at": when, "is_reply_comment": reply}
    if body.get("tagged_message"):
        row["tagged_message"] = body["tagged_message"]
    call.state.insert("box_comments", row)
    tree.record(call, "COMMENT_CREATE", file_row)
    call.status = 201
    return _comment(call, row)


def get_comment(call: Call) -> dict:
    return _comment(call, _comment_row(call))


def _may_manage(call: Call, row: Row) -> None:
    """A comment's author, or the file's owner or co-owner, may change or remove it."""
    file_row = access.item(call, "file", row.get("file_id") or row["item_id"])
    if row.get("created_by_id") != call.user and access.role_on(call, "file", file_row) not in ("owner", "co-owner"):
        raise errors.forbidden()


def update_comment(call: Call) -> dict:
    row = _comment_row(call)
    _may_manage(call, row)
    message = (call.body or {}).get("message")
    if not isinstance(message, str) or not message.strip():
        raise errors.bad_request("message is required", name="message", reason="missing_parameter")
    row.update(message=message, modified_at=now())
    call.state.update("box_comments", row)
    return _comment(call, row)


def delete_comment(call: Call) -> None:
    row = _comment_row(call)
    _may_manage(call, row)
    call.state.delete("box_comments", row)


def file_comments(call: Call) -> dict:
    file_row = access.item(call, "file", call.params["file_id"])
    rows = [r for r in call.state.rows("box_comments") if (r.get("file_id") or r.get("item_id")) == file_row["id"]]
    return offset_page(call, [_comment(call, r) for r in rows])


def _assignment(call: Call, row: Row) -> dict:
    file_row = call.state.first("box_files", id=row.get("item_id"))
    return {"type": "task_assignment", "id": row["id"], "item": file_mini(call, file_row) if file_row else None,
            "assigned_to": user_mini(call, row.get("assigned_to_id")), "message": row.get("message", ""),
            "completed_at": row.get("completed_at"), "assigned_at": row.get("assigned_at"),
            "reminded_at": None, "resolution_state": row.get("resolution_state", "incomplete"),
            "assigned_by": user_mini(call, row.get("assigned_by_id"))}


def _completed(call: Call, task: Row) -> bool:
    """Computed when read, so resolving an assignment changes only the assignment's row: a task
    is completed when its rule says its assignees have resolved it; a task without assignments
    is as its row (a seed's) says."""
    states = [a["resolution_state"] != "incomplete" for a in call.state.rows("box_task_assignments", task_id=task["id"])]
    if not states:
        return bool(task.get("is_completed"))
    return all(states) if task.get("completion_rule") == "all_assignees" else any(states)


def _task(call: Call, row: Row) -> dict:
    file_row = call.state.first("box_files", id=row.get("item_id"))
    assignments = [_assignment(call, a) for a in call.state.rows("box_task_assignments", task_id=row["id"])]
    return {"type": "task", "id": row["id"], "item": file_mini(call, file_row) if file_row else None,
            "due_at": row.get("due_at"), "action": row.get("action", "review"), "message": row.get("message", ""),
            "task_assignment_collection": {"total_count": len(assignments), "entries": assignments},
            "is_completed": _completed(call, row), "created_by": user_mini(call, row.get("created_by_id")),
            "created_at": row.get("created_at"), "completion_rule": row.get("completion_rule", "all_assignees")}


def _task_row(call: Call, task_id: str, needs: str = SEE) -> Row:
    row = existing(call, "box_tasks", task_id, "task")
    access.item(call, "file", row["item_id"], needs)
    return row


def _task_fields(body: dict, row: Row) -> None:
    if body.get("action", row.get("action", "review")) not in TASK_ACTIONS:
        raise errors.bad_request("Invalid task action", name="action", reason="invalid_parameter")
    if body.get("completion_rule", row.get("completion_rule", "all_assignees")) not in COMPLETION_RULES:
        raise errors.bad_request("Invalid completion rule", name="completion_rule", reason="invalid_parameter")
    for key in ("action", "message", "due_at", "completion_rule"):
        if key in body:
            row[key] = body[key]


def create_task(call: Call) -> dict:
    body = call.body or {}
    target = body.get("item") or {}
    if target.get("type") != "file":
        raise errors.bad_request("item must be a file", name="item", reason="invalid_parameter")
    file_row = access.item(call, "file", str(target.get("id", "")), DOWNLOAD)
    row = {"id": new_id(), "type": "task", "item_id": file_row["id"], "item_type": "file", "message": "",
           "created_by_id": call.user, "created_at": now(), "is_completed": False, "action": "review",
           "completion_rule": "all_assignees"}
    _task_fields(body, row)
    call.state.insert("box_tasks", row)
    call.status = 201
    return _task(call, row)


def get_task(call: Call) -> dict:
    return _task(call, _task_row(call, call.params["task_id"]))


def update_task(call: Call) -> dict:
    row = _task_row(call, call.params["task_id"], DOWNLOAD)
    _task_fields(call.body or {}, row)
    call.state.update("box_tasks", row)
    return _task(call, row)


def delete_task(call: Call) -> None:
    row = _task_row(call, call.params["task_id"], DOWNLOAD)
    for assignment in call.state.rows("box_task_assignments", task_id=row["id"]):
        call.state.delete("box_task_assignments", assignment)
    call.state.delete("box_tasks", row)


def file_tasks(call: Call) -> dict:
    file_row = access.item(call, "file", call.params["file_id"])
    tasks = [_task(call, r) for r in call.state.rows("box_tasks", item_id=file_row["id"])]
    return {"total_count": len(tasks), "entries": tasks}


def create_assignment(call: Call) -> dict:
    body = call.body or {}
    task = _task_row(call, str((body.get("task") or {}).get("id", "")), DOWNLOAD)
    target = body.get("assign_to") or {}
    user = call.state.first("box_users", id=str(target.get("id", ""))) if target.get("id") else \
        call.state.first("box_users", login=target.get("login"))
    if user is None:
        raise errors.not_found("user")
    row = {"id": new_id(), "task_id": task["id"], "item_id": task["item_id"], "assigned_to_id": user["id"],
           "assigned_by_id": call.user, "message": task.get("message", ""), "resolution_state": "incomplete",
           "assigned_at": now(), "completed_at": None}
    call.state.insert("box_task_assignments", row)
    call.status = 201
    return _assignment(call, row)


def _assignment_row(call: Call) -> Row:
    row = existing(call, "box_task_assignments", call.params["task_assignment_id"], "task_assignment")
    _task_row(call, row["task_id"])
    return row


def get_assignment(call: Call) -> dict:
    return _assignment(call, _assignment_row(call))


def update_assignment(call: Call) -> dict:
    row = _assignment_row(call)
    if row["assigned_to_id"] != call.user:
        raise errors.forbidden("Only the assignee may resolve a task assignment")
    body = call.body or {}
    if "resolution_state" in body:
        if body["resolution_state"] not in RESOLUTIONS:
            raise errors.bad_request("Invalid resolution state", name="resolution_state", reason="invalid_parameter")
        row["resolution_state"] = body["resolution_state"]
        row["completed_at"] = now() if body["resolution_state"] != "incomplete" else None
    if "message" in body:
        row["message"] = body["message"]
    call.state.update("box_task_assignments", row)
    return _assignment(call, row)


def delete_assignment(call: Call) -> None:
    row = _assignment_row(call)
    call.state.delete("box_task_assignments", row)


def task_assignments(call: Call) -> dict:
    task = _task_row(call, call.params["task_id"])
    found = [_assignment(call, a) for a in call.state.rows("box_task_assignments", task_id=task["id"])]
    return {"total_count": len(found), "entries": found}


HANDLERS = {
    "comments.create_comment": create_comment, "comments.get_comment_by_id": get_comment,
    "comments.update_comment_by_id": update_comment, "comments.delete_comment_by_id": delete_comment,
    "comments.get_file_comments": file_comments,
    "tasks.create_task": create_task, "tasks.get_task_by_id": get_task, "tasks.update_task_by_id": update_task,
    "tasks.delete_task_by_id": delete_task, "tasks.get_file_tasks": file_tasks,
    "task_assignments.create_task_assignment": create_assignment,
    "task_assignments.get_task_assignment_by_id": get_assignment,
    "task_assignments.update_task_assignment_by_id": update_assignment,
    "task_assignments.delete_task_assignment_by_id": delete_assignment,
    "task_assignments.get_task_assignments": task_assignments,
}
