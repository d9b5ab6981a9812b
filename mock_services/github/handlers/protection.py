"""Basic branch protection: set, read and remove a branch's rules, and the two GitHub enforces
that agents meet: a branch that requires pull request reviews takes no direct change (a push, a
ref update, a contents write: "Changes must be made through a pull request"), and a pull request
into it merges only with enough approvals (the latest review of each reviewer counts; the
author's never). Admins pass unless `enforce_admins`; force pushes and deletions are refused
unless allowed."""

from __future__ import annotations

from typing import Any

from mock_services.github import access, errors, shapes
from mock_services.github.handlers.common import target
from mock_services.rest.router import Call
from mock_services.store import EnvState, Row

PROTECTIONS = "github_branch_protections"
THROUGH_PULLS = "Changes must be made through a pull request."


def rules(state: EnvState, repository: Row, branch: str) -> Row | None:
    return state.first(PROTECTIONS, id=f"{repository['id']}/{branch}")


def refusal(state: EnvState, user: str, repository: Row, branch: str, fast_forward: bool = True,
            deleting: bool = False) -> str | None:
    """Why the user may not move `branch` directly, or None where they may."""
    found = rules(state, repository, branch)
    if found is None:
        return None
    if deleting and not found["allow_deletions"]:
        return "Cannot delete this protected branch"
    if not fast_forward and not found["allow_force_pushes"]:
        return "Cannot force-push to this branch"
    admin = access.role_on(state, user, repository) == "admin"
    if found["required_approving_review_count"] is not None and (found["enforce_admins"] or not admin):
        return THROUGH_PULLS
    return None


def merge_refusal(state: EnvState, repository: Row, pull: Row, author_id: int) -> str | None:
    """Why the pull request may not merge yet under its base branch's rules, or None."""
    found = rules(state, repository, pull["base_ref"])
    needed = found["required_approving_review_count"] if found else None
    if not needed:
        return None
    latest: dict[int, str] = {}
    for review in state.rows("github_reviews", repository_id=repository["id"], pull_number=pull["number"]):
        if review["user_id"] != author_id and review["state"] in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED"):
            latest[review["user_id"]] = review["state"]
    if "CHANGES_REQUESTED" in latest.values():
        return "Changes were requested by a reviewer with write access."
    approvals = sum(s == "APPROVED" for s in latest.values())
    if approvals < needed:
        return f"At least {needed} approving review{'s are' if needed > 1 else ' is'} required by reviewers " \
               "with write access."
    return None


def _shape(call: Call, repository: Row, row: Row) -> dict[str, Any]:
    url = f"{shapes.repo_url(call.state, repository)}/branches/{row['branch']}/protection"
    shaped: dict[str, Any] = {
        "url": url, "enforce_admins": {"url": f"{url}/enforce_admins", "enabled": row["enforce_admins"]},
        "allow_force_pushes": {"enabled": row["allow_force_pushes"]},
        "allow_deletions": {"enabled": row["allow_deletions"]},
        "required_linear_history": {"enabled": False}, "block_creations": {"enabled": False},
        "required_signatures": {"url": f"{url}/required_signatures", "enabled": False}}
    if row["required_approving_review_count"] is not None:
        shaped["required_pull_request_reviews"] = {
            "url": f"{url}/required_pull_request_reviews", "dismiss_stale_reviews": False,
            "require_code_owner_reviews": False,
            "required_approving_review_count": row["required_approving_review_count"]}
    return shaped


def get(call: Call) -> dict[str, Any]:
    repository = target(call)
    found = rules(call.state, repository, call.arg("branch"))
    if found is None:
        raise errors.RestError(404, "not_found", "Branch not protected")
    return _shape(call, repository, found)


def update(call: Call) -> dict[str, Any]:
    repository = target(call, "admin")
    branch = call.arg("branch")
    if f"refs/heads/{branch}" not in {r["ref"] for r in call.state.rows("github_refs", repository_id=repository["id"])}:
        raise errors.RestError(404, "not_found", "Branch not found")
    body = call.body or {}
    for field in ("required_status_checks", "enforce_admins", "required_pull_request_reviews", "restrictions"):
        if field not in body:
            raise errors.invalid(f"{field} is missing", "Protection", field, "missing_field")
    reviews = body["required_pull_request_reviews"]
    row = {"id": f"{repository['id']}/{branch}", "repository_id": repository["id"], "branch": branch,
           "enforce_admins": bool(body["enforce_admins"]),
           "required_approving_review_count": reviews.get("required_approving_review_count", 1)
           if isinstance(reviews, dict) else None,
           "allow_force_pushes": bool(body.get("allow_force_pushes")), "allow_deletions": bool(body.get("allow_deletions"))}
    if rules(call.state, repository, branch):
        call.state.update(PROTECTIONS, row)
    else:
        call.state.insert(PROTECTIONS, row)
    return _shape(call, repository, row)


def delete(call: Call) -> None:
    repository = target(call, "admin")
    found = rules(call.state, repository, call.arg("branch"))
    if found is None:
        raise errors.RestError(404, "not_found", "Branch not protected")
    call.state.delete(PROTECTIONS, found)


HANDLERS = {"repos/get-branch-protection": get, "repos/update-branch-protection": update,
            "repos/delete-branch-protection": delete}
