"""Reactions on issues (and pull requests) and on their comments: add (one of each kind per
user: adding it again answers the one there, 200), list (by `content`), remove. An issue's or a
comment's `reactions` rollup is counted from these rows when it is answered."""

from __future__ import annotations

from typing import Any

from mock_services.github import errors, shapes
from mock_services.github.handlers import issues
from mock_services.github.handlers.common import acting, next_id, now, target
from mock_services.github.handlers.paging import page
from mock_services.rest.router import Call
from mock_services.store import Row

REACTIONS = "github_reactions"


def _shape(call: Call, row: Row) -> dict[str, Any]:
    return {"id": row["id"], "node_id": f"REA_{row['id']}", "user": shapes.user_by_id(call.state, row["user_id"]),
            "content": row["content"], "created_at": row["created_at"]}


def _subject(call: Call) -> tuple[Row, str, int]:
    repository = target(call)
    if call.arg("comment_id") is not None:
        comment = call.state.first(issues.COMMENTS, repository_id=repository["id"], id=call.arg("comment_id"))
        if comment is None:
            raise errors.not_found()
        return repository, "comment", comment["id"]
    return repository, "issue", issues.issue_row(call, repository, call.arg("issue_number"))["number"]


def create(call: Call) -> dict[str, Any]:
    repository, subject, subject_id = _subject(call)
    content = (call.body or {}).get("content")
    if content not in shapes.REACTIONS:
        raise errors.invalid(f"content {content} is not a reaction", "Reaction", "content", "invalid")
    me = acting(call)
    existing = call.state.first(REACTIONS, repository_id=repository["id"], subject=subject, subject_id=subject_id,
                                user_id=me["id"], content=content)
    if existing is not None:
        return _shape(call, existing)
    row = call.state.insert(REACTIONS, {"id": next_id(call, REACTIONS), "repository_id": repository["id"],
                                        "subject": subject, "subject_id": subject_id, "user_id": me["id"],
                                        "content": content, "created_at": now()})
    call.status = 201
    return _shape(call, row)


def list_reactions(call: Call) -> list[Any]:
    repository, subject, subject_id = _subject(call)
    rows = call.state.rows(REACTIONS, repository_id=repository["id"], subject=subject, subject_id=subject_id)
    return page(call, [_shape(call, r) for r in rows if call.arg("content", r["content"]) == r["content"]])


def delete(call: Call) -> None:
    repository, subject, subject_id = _subject(call)
    row = call.state.first(REACTIONS, repository_id=repository["id"], subject=subject, subject_id=subject_id,
                           id=call.arg("reaction_id"))
    if row is None:
        raise errors.not_found()
    if row["user_id"] != acting(call)["id"]:
        raise errors.forbidden("Only the reaction's author may remove it")
    call.state.delete(REACTIONS, row)


HANDLERS = {f"reactions/{verb}-for-{kind}": handler for kind in ("issue", "issue-comment")
            for verb, handler in (("create", create), ("list", list_reactions), ("delete", delete))}
