"""The rest of an issue's life: lock and unlock (with a reason), assignees added and removed,
labels removed or replaced, comments read, edited and deleted (by their author or a
maintainer), and milestones (list, create, get, update; open and closed counts on read)."""

from __future__ import annotations

from typing import Any

from mock_services.github import access, errors, shapes
from mock_services.github.handlers import issues
from mock_services.github.handlers.common import acting, next_id, now, target
from mock_services.github.handlers.paging import page
from mock_services.rest.router import Call
from mock_services.store import Row

MILESTONES = "github_milestones"
LOCK_REASONS = ("off-topic", "too heated", "resolved", "spam")


def lock(call: Call) -> None:
    repository = target(call, "triage")
    row = issues.issue_row(call, repository, call.arg("issue_number"))
    reason = (call.body or {}).get("lock_reason")
    if reason is not None and reason not in LOCK_REASONS:
        raise errors.invalid(f"lock_reason {reason} is not valid", "Issue", "lock_reason", "invalid")
    call.state.update(issues.ISSUES, {**row, "locked": True, "active_lock_reason": reason, "updated_at": now()})


def unlock(call: Call) -> None:
    repository = target(call, "triage")
    row = issues.issue_row(call, repository, call.arg("issue_number"))
    call.state.update(issues.ISSUES, {**row, "locked": False, "active_lock_reason": None, "updated_at": now()})


def _assignees(call: Call, add: bool) -> dict[str, Any]:
    repository = target(call, "triage")
    row = issues.issue_row(call, repository, call.arg("issue_number"))
    named = [u["id"] for login in (call.body or {}).get("assignees") or []
             if (u := call.state.first("github_users", login=login))]
    current = row.get("assignee_ids", [])
    wanted = current + [u for u in named if u not in current] if add else [u for u in current if u not in named]
    logins = [call.state.first("github_users", id=u)["login"] for u in wanted]  # type: ignore[index]
    changed = issues.update_row(call, repository, row, {"assignees": logins})
    call.status = 201 if add else 200
    return issues.shaped(call, repository, changed)


def add_assignees(call: Call) -> dict[str, Any]:
    return _assignees(call, True)


def remove_assignees(call: Call) -> dict[str, Any]:
    return _assignees(call, False)


def remove_label(call: Call) -> list[Any]:
    repository = target(call, "triage")
    row = issues.issue_row(call, repository, call.arg("issue_number"))
    if call.arg("name") not in row.get("labels", []):
        raise errors.RestError(404, "not_found", "Label does not exist")
    changed = issues.update_row(call, repository, row, {"labels": [n for n in row["labels"] if n != call.arg("name")]})
    return _labels(call, repository, changed)


def set_labels(call: Call) -> list[Any]:
    repository = target(call, "triage")
    row = issues.issue_row(call, repository, call.arg("issue_number"))
    body = call.body
    wanted = body.get("labels", []) if isinstance(body, dict) else body or []
    return _labels(call, repository, issues.update_row(call, repository, row, {"labels": list(wanted)}))


def _labels(call: Call, repository: Row, row: Row) -> list[Any]:
    base = shapes.repo_url(call.state, repository)
    return [shapes.label(base, found) for name in row.get("labels", [])
            if (found := call.state.first(issues.LABELS, repository_id=repository["id"], name=name))]


def _comment_row(call: Call, repository: Row) -> Row:
    row = call.state.first(issues.COMMENTS, repository_id=repository["id"], id=call.arg("comment_id"))
    if row is None:
        raise errors.not_found()
    return row


def _may_edit(call: Call, repository: Row, row: Row) -> None:
    me = acting(call)
    role = access.role_on(call.state, call.user, repository) or "read"
    if row["user_id"] != me["id"] and access.ROLES.index(role) < access.ROLES.index("write"):
        raise errors.forbidden("Must have admin rights to Repository.")


def list_comments_for_repo(call: Call) -> list[Any]:
    repository = target(call)
    rows = call.state.rows(issues.COMMENTS, repository_id=repository["id"])
    return page(call, [issues.comment(call, repository, r) for r in rows])


def get_comment(call: Call) -> dict[str, Any]:
    repository = target(call)
    return issues.comment(call, repository, _comment_row(call, repository))


def update_comment(call: Call) -> dict[str, Any]:
    repository = target(call)
    row = _comment_row(call, repository)
    _may_edit(call, repository, row)
    text = (call.body or {}).get("body")
    if not isinstance(text, str) or not text:
        raise errors.invalid("body is missing", "IssueComment", "body", "missing_field")
    changed = call.state.update(issues.COMMENTS, {**row, "body": text, "updated_at": now()})
    return issues.comment(call, repository, changed)


def delete_comment(call: Call) -> None:
    repository = target(call)
    row = _comment_row(call, repository)
    _may_edit(call, repository, row)
    call.state.delete(issues.COMMENTS, row)


def _milestone_row(call: Call, repository: Row) -> Row:
    row = call.state.first(MILESTONES, repository_id=repository["id"], number=call.arg("milestone_number"))
    if row is None:
        raise errors.not_found()
    return row


def list_milestones(call: Call) -> list[Any]:
    repository = target(call)
    wanted = call.arg("state", "open")
    rows = [r for r in call.state.rows(MILESTONES, repository_id=repository["id"]) if wanted in ("all", r["state"])]
    return page(call, [shapes.milestone(call.state, repository, r) for r in rows])


def create_milestone(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    body = call.body or {}
    if not isinstance(body.get("title"), str) or not body["title"]:
        raise errors.invalid("title is missing", "Milestone", "title", "missing_field")
    existing = call.state.rows(MILESTONES, repository_id=repository["id"])
    if any(m["title"] == body["title"] for m in existing):
        raise errors.invalid("already_exists", "Milestone", "title", "already_exists")
    stamp = now()
    row = call.state.insert(MILESTONES, {
        "id": next_id(call, MILESTONES), "repository_id": repository["id"],
        "number": max((m["number"] for m in existing), default=0) + 1, "title": body["title"],
        "state": body.get("state", "open"), "description": body.get("description"), "due_on": body.get("due_on"),
        "created_at": stamp, "updated_at": stamp, "closed_at": None})
    call.status = 201
    return shapes.milestone(call.state, repository, row)


def get_milestone(call: Call) -> dict[str, Any]:
    repository = target(call)
    return shapes.milestone(call.state, repository, _milestone_row(call, repository))


def update_milestone(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    row = _milestone_row(call, repository)
    body = call.body or {}
    changed = {**row, **{k: body[k] for k in ("title", "state", "description", "due_on") if k in body},
               "updated_at": now()}
    if changed["state"] != row["state"]:
        changed["closed_at"] = now() if changed["state"] == "closed" else None
    call.state.update(MILESTONES, changed)
    return shapes.milestone(call.state, repository, changed)


HANDLERS = {"issues/lock": lock, "issues/unlock": unlock, "issues/add-assignees": add_assignees,
            "issues/remove-assignees": remove_assignees, "issues/remove-label": remove_label,
            "issues/set-labels": set_labels, "issues/list-comments-for-repo": list_comments_for_repo,
            "issues/get-comment": get_comment, "issues/update-comment": update_comment,
            "issues/delete-comment": delete_comment, "issues/list-milestones": list_milestones,
            "issues/create-milestone": create_milestone, "issues/get-milestone": get_milestone,
            "issues/update-milestone": update_milestone}
