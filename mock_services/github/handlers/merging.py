"""Reviews and the merge of a pull request. A merge is real git: `merge` makes a commit with
both parents, `squash` one commit of the branch's changes, `rebase` replays each of the
branch's commits onto the base; the base branch moves, the pull request and its issue close,
and so do the issues it names with a closing keyword (closing.py)."""

from __future__ import annotations

from typing import Any

from dulwich.objects import Commit
from dulwich.repo import BaseRepo

from mock_services.github import errors, shapes
from mock_services.github.git import history
from mock_services.github.handlers import issues, protection
from mock_services.github.handlers.closing import close_referenced
from mock_services.github.handlers.common import acting, git, next_id, now, now_seconds, target
from mock_services.github.handlers.paging import page
from mock_services.github.handlers.pulls import _commits, base_sha, head_sha, pull_row
from mock_services.rest.router import Call
from mock_services.store import Row

REVIEWS = "github_reviews"
EVENTS = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}
WEB_FLOW = ("GitHub", "noreply@github.com")


def review_shape(call: Call, repository: Row, row: Row) -> dict[str, Any]:
    pull_url = f"{shapes.repo_url(call.state, repository)}/pulls/{row['pull_number']}"
    return {"id": row["id"], "node_id": f"PRR_{row['id']}", "user": shapes.user_by_id(call.state, row["user_id"]),
            "body": row.get("body") or "", "state": row["state"], "commit_id": row["commit_id"],
            "submitted_at": row.get("submitted_at"), "pull_request_url": pull_url,
            "html_url": pull_url.replace(shapes.API + "/repos", shapes.WEB).replace("/pulls/", "/pull/")
            + f"#pullrequestreview-{row['id']}",
            "author_association": "MEMBER", "_links": {"pull_request": {"href": pull_url}, "html": {
                "href": pull_url.replace(shapes.API + "/repos", shapes.WEB).replace("/pulls/", "/pull/")
                + f"#pullrequestreview-{row['id']}"}}}


def list_reviews(call: Call) -> list[Any]:
    repository = target(call)
    pull_row(call, repository, call.arg("pull_number"))
    rows = call.state.rows(REVIEWS, repository_id=repository["id"], pull_number=call.arg("pull_number"))
    return page(call, [review_shape(call, repository, r) for r in rows])


def create_review(call: Call) -> dict[str, Any]:
    repository = target(call)
    row = pull_row(call, repository, call.arg("pull_number"))
    body = call.body or {}
    me = acting(call)
    event = body.get("event")
    if event is not None and event not in EVENTS:
        raise errors.invalid(f"event {event} is not valid", "PullRequestReview", "event", "invalid")
    author = issues.issue_row(call, repository, row["number"])["user_id"]
    if event in ("APPROVE", "REQUEST_CHANGES") and author == me["id"]:
        verb = "approve" if event == "APPROVE" else "request changes on"
        raise errors.invalid(f"Unprocessable Entity: Can not {verb} your own pull request")
    if event in ("REQUEST_CHANGES", "COMMENT") and not body.get("body") and not body.get("comments"):
        raise errors.invalid(f"Unprocessable Entity: Review Comment is missing (body is required for {event})")
    review = call.state.insert(REVIEWS, {
        "id": next_id(call, REVIEWS), "repository_id": repository["id"], "pull_number": row["number"],
        "user_id": me["id"], "state": EVENTS.get(event, "PENDING"), "body": body.get("body") or "",
        "commit_id": body.get("commit_id") or head_sha(git(call, repository), row).decode(),
        "submitted_at": now() if event else None})
    if me["id"] in row.get("requested_reviewer_ids", []) and event:
        call.state.update("github_pulls", {**row, "requested_reviewer_ids": [
            u for u in row["requested_reviewer_ids"] if u != me["id"]]})
    return review_shape(call, repository, review)


def _rebase(repo: BaseRepo, onto: bytes, commits: list[Commit], merger: tuple[str, str]) -> bytes:
    tip = onto
    for commit in commits:
        parent_tree = repo.object_store[commit.parents[0]].tree if commit.parents else None  # type: ignore
        files = history.three_way(history.flatten(repo, parent_tree) if parent_tree else {},
                                  history.flatten(repo, repo.object_store[tip].tree),  # type: ignore[attr-defined]
                                  history.flatten(repo, commit.tree))
        if files is None:
            raise errors.RestError(405, "not_mergeable", "This branch can't be rebased")
        author = history.commit_row(0, commit)
        tip = history.make_commit(repo, history.build_tree(repo, files), [tip], commit.message.decode(),
                                  (author["author_name"], author["author_email"]), commit.author_time, merger)
    return tip


def merge(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    repo = git(call, repository)
    row = pull_row(call, repository, call.arg("pull_number"))
    issue = issues.issue_row(call, repository, row["number"])
    body = call.body or {}
    if row.get("merged_at") or issue["state"] != "open":
        raise errors.RestError(405, "not_mergeable", "Pull Request is not mergeable")
    head, base = head_sha(repo, row), base_sha(repo, row)
    if body.get("sha") and body["sha"] != head.decode():
        raise errors.conflict("Head branch was modified. Review and try the merge again.")
    refused = protection.merge_refusal(call.state, repository, row, issue["user_id"])
    if refused:
        raise errors.RestError(405, "not_mergeable", refused)
    tree = history.merged_tree(repo, base, head)
    if tree is None:
        raise errors.RestError(405, "not_mergeable", "Pull Request is not mergeable")
    me = acting(call)
    merger = (me.get("name") or me["login"], me["email"])
    method = body.get("merge_method", "merge")
    commits = _commits(repo, row)
    if method == "rebase":
        sha = _rebase(repo, base, commits, WEB_FLOW)
    elif method in ("merge", "squash"):
        owner = shapes.repository(call.state, repository)["owner"]["login"]
        title = body.get("commit_title") or (f"Merge pull request #{row['number']} from {owner}/{row['head_ref']}"
                                             if method == "merge" else f"{issue['title']} (#{row['number']})")
        detail = body.get("commit_message") or (issue["title"] if method == "merge" else "\n\n".join(
            f"* {c.message.decode().strip()}" for c in commits))
        sha = history.make_commit(repo, tree, [base, head] if method == "merge" else [base], f"{title}\n\n{detail}",
                                  merger, now_seconds(), WEB_FLOW)
    else:
        raise errors.invalid(f"merge_method {method} is not valid", "PullRequest", "merge_method", "invalid")
    repo.refs[f"refs/heads/{row['base_ref']}".encode()] = sha
    history.record(call.state, repo, repository["id"], [sha])
    stamp = now()
    call.state.update("github_pulls", {**row, "merged_at": stamp, "merge_commit_sha": sha.decode(),
                                       "merged_by_id": me["id"], "head_sha": head.decode(), "base_sha": base.decode()})
    call.state.update(issues.ISSUES, {**issue, "state": "closed", "state_reason": "completed", "closed_at": stamp,
                                      "closed_by_id": me["id"], "updated_at": stamp})
    close_referenced(call, repository, pull_row(call, repository, row["number"]), me, stamp)
    return {"sha": sha.decode(), "merged": True, "message": "Pull Request successfully merged"}


HANDLERS = {"pulls/list-reviews": list_reviews, "pulls/create-review": create_review, "pulls/merge": merge}
