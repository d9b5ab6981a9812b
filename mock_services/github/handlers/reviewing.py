"""Around a review: reviewers requested and withdrawn (a review by one clears their request),
review comments on a line of the diff, one review read, a pending review submitted, and a
pull request's branch updated with its base (a merge commit on the head branch)."""

from __future__ import annotations

from typing import Any

from mock_services.github import errors, shapes
from mock_services.github.git import history
from mock_services.github.handlers import issues
from mock_services.github.handlers.common import acting, git, next_id, now, now_seconds, target
from mock_services.github.handlers.merging import EVENTS, REVIEWS, review_shape
from mock_services.github.handlers.paging import page
from mock_services.github.handlers.pulls import base_sha, head_sha, pull_row, shaped
from mock_services.rest.router import Call
from mock_services.store import Row

COMMENTS = "github_review_comments"


def _requested(call: Call, row: Row) -> dict[str, Any]:
    return {"users": [shapes.user_by_id(call.state, u) for u in row.get("requested_reviewer_ids", [])], "teams": []}


def request_reviewers(call: Call) -> dict[str, Any]:
    repository = target(call, "triage")
    row = pull_row(call, repository, call.arg("pull_number"))
    author = issues.issue_row(call, repository, row["number"])["user_id"]
    wanted = list(row.get("requested_reviewer_ids", []))
    for login in (call.body or {}).get("reviewers") or []:
        user = call.state.first("github_users", login=login)
        if user is None or user["id"] == author:
            raise errors.invalid("Reviews may only be requested from collaborators. One or more of the users or "
                                 "teams you specified is not a collaborator of the repository.")
        if user["id"] not in wanted:
            wanted.append(user["id"])
    changed = call.state.update("github_pulls", {**row, "requested_reviewer_ids": wanted})
    call.status = 201
    return shaped(call, repository, changed)


def list_requested(call: Call) -> dict[str, Any]:
    repository = target(call)
    return _requested(call, pull_row(call, repository, call.arg("pull_number")))


def remove_requested(call: Call) -> dict[str, Any]:
    repository = target(call, "triage")
    row = pull_row(call, repository, call.arg("pull_number"))
    dropped = {u["id"] for login in (call.body or {}).get("reviewers") or []
               if (u := call.state.first("github_users", login=login))}
    changed = call.state.update("github_pulls", {**row, "requested_reviewer_ids": [
        u for u in row.get("requested_reviewer_ids", []) if u not in dropped]})
    return shaped(call, repository, changed)


def _review_comment(call: Call, repository: Row, row: Row) -> dict[str, Any]:
    base = shapes.repo_url(call.state, repository)
    return {"id": row["id"], "node_id": f"PRRC_{row['id']}", "url": f"{base}/pulls/comments/{row['id']}",
            "pull_request_review_id": row.get("review_id"), "diff_hunk": "", "path": row["path"],
            "line": row.get("line"), "side": row.get("side", "RIGHT"), "commit_id": row["commit_id"],
            "original_commit_id": row["commit_id"], "in_reply_to_id": row.get("in_reply_to_id"),
            "user": shapes.user_by_id(call.state, row["user_id"]), "body": row["body"],
            "created_at": row["created_at"], "updated_at": row["updated_at"], "html_url": "",
            "pull_request_url": f"{base}/pulls/{row['pull_number']}", "author_association": "MEMBER",
            "_links": {"self": {"href": f"{base}/pulls/comments/{row['id']}"}}}


def create_review_comment(call: Call) -> dict[str, Any]:
    repository = target(call)
    row = pull_row(call, repository, call.arg("pull_number"))
    body = call.body or {}
    reply = call.state.first(COMMENTS, repository_id=repository["id"], id=body["in_reply_to"]) \
        if body.get("in_reply_to") else None
    if not isinstance(body.get("body"), str) or not body["body"]:
        raise errors.invalid("body is missing", "PullRequestReviewComment", "body", "missing_field")
    if reply is None and (not body.get("path") or not (body.get("line") or body.get("position"))):
        raise errors.invalid("path and line are required", "PullRequestReviewComment", "path", "missing_field")
    stamp = now()
    created = call.state.insert(COMMENTS, {
        "id": next_id(call, COMMENTS), "repository_id": repository["id"], "pull_number": row["number"],
        "user_id": acting(call)["id"], "body": body["body"], "path": (reply or body)["path"],
        "line": (reply or body).get("line") or body.get("position"), "side": body.get("side", "RIGHT"),
        "commit_id": body.get("commit_id") or head_sha(git(call, repository), row).decode(),
        "in_reply_to_id": reply["id"] if reply else None, "review_id": None, "created_at": stamp,
        "updated_at": stamp})
    call.status = 201
    return _review_comment(call, repository, created)


def list_review_comments(call: Call) -> list[Any]:
    repository = target(call)
    pull_row(call, repository, call.arg("pull_number"))
    rows = call.state.rows(COMMENTS, repository_id=repository["id"], pull_number=call.arg("pull_number"))
    return page(call, [_review_comment(call, repository, r) for r in rows])


def _review_row(call: Call, repository: Row) -> Row:
    row = call.state.first(REVIEWS, repository_id=repository["id"], pull_number=call.arg("pull_number"),
                           id=call.arg("review_id"))
    if row is None:
        raise errors.not_found()
    return row


def get_review(call: Call) -> dict[str, Any]:
    repository = target(call)
    return review_shape(call, repository, _review_row(call, repository))


def submit_review(call: Call) -> dict[str, Any]:
    repository = target(call)
    row = _review_row(call, repository)
    event = (call.body or {}).get("event")
    if row["state"] != "PENDING" or row["user_id"] != acting(call)["id"]:
        raise errors.invalid("Unprocessable Entity: Can not submit a review that is not pending")
    if event not in EVENTS:
        raise errors.invalid(f"event {event} is not valid", "PullRequestReview", "event", "invalid")
    changed = call.state.update(REVIEWS, {**row, "state": EVENTS[event], "submitted_at": now(),
                                          "body": (call.body or {}).get("body") or row.get("body") or ""})
    return review_shape(call, repository, changed)


def update_branch(call: Call) -> dict[str, Any]:
    """The base merged into the head branch, as GitHub's "Update branch" button does."""
    repository = target(call, "write")
    repo = git(call, repository)
    row = pull_row(call, repository, call.arg("pull_number"))
    head, base = head_sha(repo, row), base_sha(repo, row)
    expected = (call.body or {}).get("expected_head_sha")
    if expected and expected != head.decode():
        raise errors.invalid("expected head sha didn't match current head ref.")
    if history.merge_base(repo, head, base) == base:
        raise errors.invalid("There are no new commits on the base branch.")
    tree = history.merged_tree(repo, head, base)
    if tree is None:
        raise errors.invalid("merge conflict between base and head")
    me = acting(call)
    sha = history.make_commit(repo, tree, [head, base], f"Merge branch '{row['base_ref']}' into {row['head_ref']}",
                              (me.get("name") or me["login"], me["email"]), now_seconds())
    repo.refs[f"refs/heads/{row['head_ref']}".encode()] = sha
    history.record(call.state, repo, repository["id"], [sha])
    call.status = 202
    return {"message": "Updating pull request branch.", "url": f"{shapes.repo_url(call.state, repository)}/pulls/"
                                                              f"{row['number']}"}


HANDLERS = {"pulls/request-reviewers": request_reviewers, "pulls/list-requested-reviewers": list_requested,
            "pulls/remove-requested-reviewers": remove_requested, "pulls/create-review-comment": create_review_comment,
            "pulls/list-review-comments": list_review_comments, "pulls/get-review": get_review,
            "pulls/submit-review": submit_review, "pulls/update-branch": update_branch}
