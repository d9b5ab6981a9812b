"""Issues, their comments and labels. A pull request is an issue too (its number, title, body,
state, labels and comments are the issue's), as GitHub keeps them."""

from __future__ import annotations

from typing import Any

from mock_services.github import access, errors, shapes
from mock_services.github.handlers.common import acting, next_id, now, target
from mock_services.github.handlers.paging import page
from mock_services.rest.router import Call
from mock_services.store import Row

ISSUES, COMMENTS, LABELS = "github_issues", "github_issue_comments", "github_labels"


def issue_row(call: Call, repository: Row, number: int) -> Row:
    found = call.state.first(ISSUES, repository_id=repository["id"], number=number)
    if found is None:
        raise errors.not_found()
    return found


def new_issue(call: Call, repository: Row, body: dict, pull: bool) -> Row:
    title = body.get("title")
    if not isinstance(title, str) or not title.strip():
        raise errors.invalid("title is missing", "Issue", "title", "missing_field")
    stamp = now()
    number = max((i["number"] for i in call.state.rows(ISSUES, repository_id=repository["id"])), default=0) + 1
    row = {"id": next_id(call, ISSUES), "repository_id": repository["id"], "number": number, "title": title,
           "body": body.get("body"), "state": "open", "state_reason": None, "user_id": acting(call)["id"],
           "labels": _label_names(call, repository, body.get("labels") or []),
           "assignee_ids": _assignees(call, body), "milestone_id": _milestone_id(call, repository, body.get("milestone")),
           "locked": False,
           "created_at": stamp, "updated_at": stamp, "closed_at": None, "closed_by_id": None,
           "pull_request": pull}
    return call.state.insert(ISSUES, row)


def _milestone_id(call: Call, repository: Row, number: object) -> int | None:
    if number is None:
        return None
    found = call.state.first("github_milestones", repository_id=repository["id"], number=number)
    if found is None:
        raise errors.invalid("milestone is invalid", "Issue", "milestone", "invalid")
    return found["id"]


def _label_names(call: Call, repository: Row, wanted: list) -> list[str]:
    names = []
    for entry in wanted:
        name = entry.get("name") if isinstance(entry, dict) else entry
        if not isinstance(name, str):
            raise errors.invalid("labels must be names", "Label", "name", "invalid")
        if call.state.first(LABELS, repository_id=repository["id"], name=name) is None:
            call.state.insert(LABELS, {"id": next_id(call, LABELS), "repository_id": repository["id"], "name": name,
                                       "color": "ededed", "description": None})
        if name not in names:
            names.append(name)
    return names


def _assignees(call: Call, body: dict) -> list[int]:
    logins = body.get("assignees") or ([body["assignee"]] if body.get("assignee") else [])
    found = [call.state.first("github_users", login=login) for login in logins]
    return [u["id"] for u in found if u is not None]


def shaped(call: Call, repository: Row, row: Row) -> dict[str, Any]:
    base = shapes.repo_url(call.state, repository)
    url = f"{base}/issues/{row['number']}"
    assignees = [shapes.user_by_id(call.state, a) for a in row.get("assignee_ids", [])]
    labels = [shapes.label(base, lbl) for name in row.get("labels", [])
              if (lbl := call.state.first(LABELS, repository_id=repository["id"], name=name))]
    result = {"id": row["id"], "node_id": f"I_{row['id']}", "url": url, "repository_url": base,
              "html_url": base.replace(shapes.API + "/repos", shapes.WEB) + f"/issues/{row['number']}",
              "comments_url": f"{url}/comments", "labels_url": f"{url}/labels{{/name}}", "number": row["number"],
              "events_url": f"{url}/events",
              "state": row["state"], "state_reason": row.get("state_reason"), "title": row["title"],
              "body": row.get("body"), "user": shapes.user_by_id(call.state, row["user_id"]), "labels": labels,
              "assignee": assignees[0] if assignees else None, "assignees": assignees, "milestone": _milestone(
                  call, repository, row.get("milestone_id")), "locked": row.get("locked", False),
              "active_lock_reason": row.get("active_lock_reason"),
              "comments": len(call.state.rows(COMMENTS, repository_id=repository["id"], issue_number=row["number"])),
              "created_at": row["created_at"], "updated_at": row["updated_at"], "closed_at": row.get("closed_at"),
              "closed_by": shapes.user_by_id(call.state, row.get("closed_by_id")),
              "author_association": "MEMBER",
              "reactions": shapes.reaction_rollup(call.state, url, repository["id"], "issue", row["number"])}
    if row.get("pull_request"):
        merged = call.state.first("github_pulls", repository_id=repository["id"], number=row["number"]) or {}
        result["pull_request"] = {"url": f"{base}/pulls/{row['number']}",
                                  "html_url": result["html_url"].replace("/issues/", "/pull/"),
                                  "diff_url": None, "patch_url": None, "merged_at": merged.get("merged_at")}
    return result


def _milestone(call: Call, repository: Row, milestone_id: int | None) -> dict[str, Any] | None:
    found = call.state.first("github_milestones", id=milestone_id) if milestone_id else None
    return shapes.milestone(call.state, repository, found) if found else None


def list_for_repo(call: Call) -> list[Any]:
    repository = target(call)
    rows = call.state.rows(ISSUES, repository_id=repository["id"])
    wanted = call.arg("state", "open")
    rows = [r for r in rows if wanted == "all" or r["state"] == wanted]
    if call.arg("labels"):
        needed = {n.strip() for n in call.arg("labels").split(",")}
        rows = [r for r in rows if needed <= set(r.get("labels", []))]
    for field, table_field in (("creator", "user_id"), ("assignee", "assignee_ids")):
        login = call.arg(field)
        if login:
            user = call.state.first("github_users", login=login)
            uid = user["id"] if user else -1
            rows = [r for r in rows if (uid in r[table_field] if table_field == "assignee_ids" else r[table_field] == uid)]
    key = {"updated": "updated_at", "comments": "number"}.get(call.arg("sort", ""), "created_at")
    rows = sorted(rows, key=lambda r: (r[key], r["number"]), reverse=call.arg("direction", "desc") == "desc")
    return page(call, [shaped(call, repository, r) for r in rows])


def get(call: Call) -> dict[str, Any]:
    repository = target(call)
    return shaped(call, repository, issue_row(call, repository, call.arg("issue_number")))


def create(call: Call) -> dict[str, Any]:
    repository = target(call)
    call.status = 201
    return shaped(call, repository, new_issue(call, repository, call.body or {}, pull=False))


def update_row(call: Call, repository: Row, row: Row, body: dict) -> Row:
    """Title, body, state (with its reason), labels, assignees: what issues and pulls update alike."""
    changed = dict(row)
    for field in ("title", "body"):
        if field in body:
            changed[field] = body[field]
    if body.get("state") in ("open", "closed") and body["state"] != row["state"]:
        closing = body["state"] == "closed"
        changed.update(state=body["state"], closed_at=now() if closing else None,
                       closed_by_id=acting(call)["id"] if closing else None,
                       state_reason=body.get("state_reason") or ("completed" if closing else "reopened"))
    elif body.get("state") not in (None, "open", "closed"):
        raise errors.invalid("state is not valid", "Issue", "state", "invalid")
    if "labels" in body:
        changed["labels"] = _label_names(call, repository, body["labels"] or [])
    if "assignees" in body or "assignee" in body:
        changed["assignee_ids"] = _assignees(call, body)
    if "milestone" in body:
        changed["milestone_id"] = _milestone_id(call, repository, body["milestone"])
    if changed != row:
        changed["updated_at"] = now()
        call.state.update(ISSUES, changed)
    return changed


def update(call: Call) -> dict[str, Any]:
    repository = target(call, "triage")
    row = issue_row(call, repository, call.arg("issue_number"))
    return shaped(call, repository, update_row(call, repository, row, call.body or {}))


def comment(call: Call, repository: Row, row: Row) -> dict[str, Any]:
    base = shapes.repo_url(call.state, repository)
    return {"id": row["id"], "node_id": f"IC_{row['id']}", "url": f"{base}/issues/comments/{row['id']}",
            "html_url": base.replace(shapes.API + "/repos", shapes.WEB) + f"/issues/{row['issue_number']}"
            f"#issuecomment-{row['id']}", "issue_url": f"{base}/issues/{row['issue_number']}", "body": row["body"],
            "user": shapes.user_by_id(call.state, row["user_id"]), "created_at": row["created_at"],
            "updated_at": row["updated_at"], "author_association": "MEMBER",
            "reactions": shapes.reaction_rollup(call.state, f"{base}/issues/comments/{row['id']}", repository["id"],
                                                "comment", row["id"])}


def list_comments(call: Call) -> list[Any]:
    repository = target(call)
    issue_row(call, repository, call.arg("issue_number"))
    rows = call.state.rows(COMMENTS, repository_id=repository["id"], issue_number=call.arg("issue_number"))
    return page(call, [comment(call, repository, r) for r in rows])


def create_comment(call: Call) -> dict[str, Any]:
    repository = target(call)
    issue = issue_row(call, repository, call.arg("issue_number"))
    text = (call.body or {}).get("body")
    if not isinstance(text, str) or not text:
        raise errors.invalid("body is missing", "IssueComment", "body", "missing_field")
    role = access.role_on(call.state, call.user, repository) or "read"
    if issue.get("locked") and access.ROLES.index(role) < access.ROLES.index("write"):
        raise errors.forbidden("Unable to create comment because issue is locked.")
    stamp = now()
    row = call.state.insert(COMMENTS, {"id": next_id(call, COMMENTS), "repository_id": repository["id"],
                                       "issue_number": issue["number"], "user_id": acting(call)["id"], "body": text,
                                       "created_at": stamp, "updated_at": stamp})
    call.status = 201
    return comment(call, repository, row)


def list_labels(call: Call) -> list[Any]:
    repository = target(call)
    base = shapes.repo_url(call.state, repository)
    return page(call, [shapes.label(base, r) for r in call.state.rows(LABELS, repository_id=repository["id"])])


def create_label(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    body = call.body or {}
    if not isinstance(body.get("name"), str) or not body["name"]:
        raise errors.invalid("name is missing", "Label", "name", "missing_field")
    if call.state.first(LABELS, repository_id=repository["id"], name=body["name"]):
        raise errors.invalid("already_exists", "Label", "name", "already_exists")
    row = call.state.insert(LABELS, {"id": next_id(call, LABELS), "repository_id": repository["id"],
                                     "name": body["name"], "color": body.get("color", "ededed").lstrip("#"),
                                     "description": body.get("description")})
    call.status = 201
    return shapes.label(shapes.repo_url(call.state, repository), row)


def add_labels(call: Call) -> list[Any]:
    repository = target(call, "triage")
    row = issue_row(call, repository, call.arg("issue_number"))
    wanted = call.body.get("labels", []) if isinstance(call.body, dict) else call.body or []
    changed = update_row(call, repository, row, {"labels": row.get("labels", []) + list(wanted)})
    base = shapes.repo_url(call.state, repository)
    return [shapes.label(base, call.state.first(LABELS, repository_id=repository["id"], name=n))
            for n in changed["labels"]]


def list_labels_on_issue(call: Call) -> list[Any]:
    return page(call, get(call)["labels"])


HANDLERS = {"issues/list-for-repo": list_for_repo, "issues/get": get, "issues/create": create,
            "issues/update": update, "issues/list-comments": list_comments,
            "issues/create-comment": create_comment, "issues/list-labels-for-repo": list_labels,
            "issues/create-label": create_label, "issues/add-labels": add_labels,
            "issues/list-labels-on-issue": list_labels_on_issue}
