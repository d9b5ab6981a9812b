"""Pull requests: open from a branch, read (with `mergeable`, derived from a trial merge of the
branches as they stand), list, update, their files and commits, and merge by merge, squash or
rebase: a real commit on the base branch that `git fetch` brings down."""

from __future__ import annotations

from typing import Any

from dulwich.repo import BaseRepo

from mock_services.github import access, errors, shapes
from mock_services.github.git import history
from mock_services.github.git.store import EnvRefs
from mock_services.github.handlers import issues
from mock_services.github.handlers.commits import files_between
from mock_services.github.handlers.common import commit_json, git, next_id, target
from mock_services.github.handlers.paging import page
from mock_services.rest.router import Call
from mock_services.store import Row

PULLS = "github_pulls"


def pull_row(call: Call, repository: Row, number: int) -> Row:
    found = call.state.first(PULLS, repository_id=repository["id"], number=number)
    if found is None:
        raise errors.not_found()
    return found


def head_sha(repo: BaseRepo, row: Row) -> bytes:
    """The branch's tip while it lasts and the pull request is open; else the one it had. A
    fork's branch is read from the fork's refs (the objects are the environment's, shared)."""
    name = f"refs/heads/{row['head_ref']}"
    refs: EnvRefs = repo.refs  # type: ignore[assignment]
    if row.get("head_repository_id", refs.repository_id) != refs.repository_id:
        found = refs.state.first("github_refs", repository_id=row["head_repository_id"], ref=name)
        live = found["sha"].encode() if found else None
    else:
        live = repo.get_refs().get(name.encode())
    return live if live is not None and not row.get("merged_at") else row["head_sha"].encode()


def base_sha(repo: BaseRepo, row: Row) -> bytes:
    return repo.get_refs().get(f"refs/heads/{row['base_ref']}".encode()) or row["base_sha"].encode()


def _commits(repo: BaseRepo, row: Row) -> list[Any]:
    head, base = head_sha(repo, row), base_sha(repo, row)
    if row.get("merged_at"):
        base = row["base_sha"].encode()
    return list(reversed([e.commit for e in repo.get_walker(include=[head], exclude=[base])]))


def _side(call: Call, repository: Row, ref: str, sha: bytes) -> dict[str, Any]:
    repo_json = shapes.repository(call.state, repository)
    owner = repo_json["owner"]
    return {"label": f"{owner['login']}:{ref}", "ref": ref, "sha": sha.decode(), "user": owner, "repo": repo_json}


def _head_repository(call: Call, repository: Row, row: Row) -> Row:
    head = row.get("head_repository_id", repository["id"])
    return repository if head == repository["id"] else call.state.first("github_repositories", id=head) or repository


def shaped(call: Call, repository: Row, row: Row) -> dict[str, Any]:
    repo = git(call, repository)
    issue = issues.issue_row(call, repository, row["number"])
    as_issue = issues.shaped(call, repository, issue)
    head, base = head_sha(repo, row), base_sha(repo, row)
    merged = bool(row.get("merged_at"))
    mergeable = None if merged or issue["state"] != "open" else history.merged_tree(repo, base, head) is not None
    commits = _commits(repo, row)
    ancestor = history.merge_base(repo, base, head) if not merged else row["base_sha"].encode()
    files = files_between(call, repository, repo, repo.object_store[ancestor].tree if ancestor else None,  # type: ignore
                          repo.object_store[head].tree)  # type: ignore[attr-defined]
    url = f"{shapes.repo_url(call.state, repository)}/pulls/{row['number']}"
    html = as_issue["html_url"].replace("/issues/", "/pull/")
    reviews = call.state.rows("github_reviews", repository_id=repository["id"], pull_number=row["number"])
    return {**{k: as_issue[k] for k in ("id", "number", "state", "locked", "title", "body", "user", "labels",
                                         "milestone", "assignee", "assignees", "created_at", "updated_at",
                                         "closed_at", "author_association", "active_lock_reason")},
            "id": row["id"], "node_id": f"PR_{row['id']}", "url": url, "html_url": html,
            "diff_url": html + ".diff", "patch_url": html + ".patch", "issue_url": as_issue["url"],
            "commits_url": url + "/commits", "review_comments_url": url + "/comments",
            "review_comment_url": url.rsplit("/", 1)[0] + "/comments{/number}",
            "comments_url": as_issue["comments_url"],
            "statuses_url": f"{shapes.repo_url(call.state, repository)}/statuses/{head.decode()}",
            "head": _side(call, _head_repository(call, repository, row), row["head_ref"], head),
            "base": _side(call, repository, row["base_ref"], base),
            "draft": row.get("draft", False), "merged": merged, "merged_at": row.get("merged_at"),
            "merge_commit_sha": row.get("merge_commit_sha"), "merged_by": shapes.user_by_id(call.state,
                                                                                             row.get("merged_by_id")),
            "mergeable": mergeable, "rebaseable": mergeable, "mergeable_state": "unknown" if mergeable is None else
            "clean" if mergeable else "dirty", "requested_teams": [],
            "requested_reviewers": [shapes.user_by_id(call.state, u) for u in row.get("requested_reviewer_ids", [])],
            "comments": as_issue["comments"], "review_comments": len(call.state.rows(
                "github_review_comments", repository_id=repository["id"], pull_number=row["number"])), "commits": len(commits),
            "additions": sum(f["additions"] for f in files), "deletions": sum(f["deletions"] for f in files),
            "changed_files": len(files), "maintainer_can_modify": False, "auto_merge": None,
            "_links": {name: {"href": href} for name, href in (
                ("self", url), ("html", html), ("issue", as_issue["url"]), ("comments", as_issue["comments_url"]),
                ("review_comments", url + "/comments"), ("commits", url + "/commits"),
                ("review_comment", url.rsplit("/", 1)[0] + "/comments{/number}"),
                ("statuses", f"{shapes.repo_url(call.state, repository)}/statuses/{head.decode()}"))},
            "review_decision": next((r["state"] for r in reversed(reviews) if r["state"] != "COMMENTED"), None)}


def create(call: Call) -> dict[str, Any]:
    repository = target(call)
    repo = git(call, repository)
    body = call.body or {}
    head_owner, _, head_ref = str(body.get("head", "")).rpartition(":")
    base_ref = str(body.get("base", ""))
    head_repository = _fork(call, repository, head_owner) if head_owner else repository
    head = git(call, head_repository).get_refs().get(f"refs/heads/{head_ref}".encode())
    base = repo.get_refs().get(f"refs/heads/{base_ref}".encode())
    for field, found in (("base", base), ("head", head)):
        if not body.get(field) or found is None:
            raise errors.invalid(f"{field} is invalid", "PullRequest", field, "invalid")
    if not list(repo.get_walker(include=[head], exclude=[base])):
        raise errors.invalid(f"No commits between {base_ref} and {head_ref}")
    for other in call.state.rows(PULLS, repository_id=repository["id"], head_ref=head_ref, base_ref=base_ref):
        same_head = other.get("head_repository_id", repository["id"]) == head_repository["id"]
        if same_head and issues.issue_row(call, repository, other["number"])["state"] == "open":
            owner = shapes.repository(call.state, repository)["owner"]["login"]
            raise errors.invalid(f"A pull request already exists for {owner}:{head_ref}.")
    issue = issues.new_issue(call, repository, body, pull=True)
    row = call.state.insert(PULLS, {"id": next_id(call, PULLS), "repository_id": repository["id"],
                                    "number": issue["number"], "head_ref": head_ref, "base_ref": base_ref,
                                    "head_repository_id": head_repository["id"],
                                    "head_sha": head.decode(), "base_sha": base.decode(),  # type: ignore[union-attr]
                                    "draft": bool(body.get("draft")), "merged_at": None, "merge_commit_sha": None,
                                    "merged_by_id": None})
    call.status = 201
    return shaped(call, repository, row)


def _fork(call: Call, repository: Row, owner: str) -> Row:
    """The head's repository in `owner:branch`: the base itself, or a fork of it that owner has."""
    account = call.state.first("github_users", login=owner)
    if account is None:
        raise errors.invalid("head is invalid", "PullRequest", "head", "invalid")
    if account["id"] == repository["owner_id"]:
        return repository
    fork = next((r for r in call.state.rows("github_repositories", owner_id=account["id"])
                 if r.get("parent_id") == repository["id"]), None)
    if fork is None or access.role_on(call.state, call.user, fork) is None:
        raise errors.invalid("head is invalid", "PullRequest", "head", "invalid")
    return fork


def get(call: Call) -> dict[str, Any]:
    repository = target(call)
    return shaped(call, repository, pull_row(call, repository, call.arg("pull_number")))


def list_pulls(call: Call) -> list[Any]:
    repository = target(call)
    wanted = call.arg("state", "open")
    found = []
    for row in call.state.rows(PULLS, repository_id=repository["id"]):
        state = issues.issue_row(call, repository, row["number"])["state"]
        head_ok = not call.arg("head") or call.arg("head").rpartition(":")[2] == row["head_ref"]
        if (wanted == "all" or state == wanted) and head_ok and call.arg("base", row["base_ref"]) == row["base_ref"]:
            found.append(row)
    found.sort(key=lambda r: r["number"], reverse=call.arg("direction", "desc") == "desc")
    return page(call, [shaped(call, repository, r) for r in found])


def update(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    row = pull_row(call, repository, call.arg("pull_number"))
    body = call.body or {}
    issues.update_row(call, repository, issues.issue_row(call, repository, row["number"]), body)
    if body.get("base") and body["base"] != row["base_ref"]:
        row = call.state.update(PULLS, {**row, "base_ref": body["base"]})
    return shaped(call, repository, row)


def list_files(call: Call) -> list[Any]:
    return page(call, _files(call))


def _files(call: Call) -> list[Any]:
    repository = target(call)
    repo = git(call, repository)
    row = pull_row(call, repository, call.arg("pull_number"))
    head = head_sha(repo, row)
    ancestor = history.merge_base(repo, base_sha(repo, row), head) if not row.get("merged_at") else \
        row["base_sha"].encode()
    return files_between(call, repository, repo, repo.object_store[ancestor].tree if ancestor else None,  # type: ignore
                         repo.object_store[head].tree)  # type: ignore[attr-defined]


def list_commits(call: Call) -> list[Any]:
    repository = target(call)
    row = pull_row(call, repository, call.arg("pull_number"))
    return page(call, [commit_json(call, repository, c) for c in _commits(git(call, repository), row)], 250)


def check_if_merged(call: Call) -> None:
    repository = target(call)
    if not pull_row(call, repository, call.arg("pull_number")).get("merged_at"):
        raise errors.not_found()


HANDLERS = {"pulls/create": create, "pulls/get": get, "pulls/list": list_pulls, "pulls/update": update,
            "pulls/list-files": list_files, "pulls/list-commits": list_commits,
            "pulls/check-if-merged": check_if_merged}
