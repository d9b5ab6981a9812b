"""Search for issues and pull requests with GitHub's qualifiers (`repo:`, `org:`, `user:`,
`is:`, `state:`, `label:`, `author:`, `assignee:`, `in:title`/`in:body`, negation with `-`), for
repositories by name and description, and for code in default branches, over what the caller
may see."""

from __future__ import annotations

import shlex
from typing import Any

from mock_services.github import access, errors, shapes
from mock_services.github.git.history import flatten
from mock_services.github.git.store import open_repo
from mock_services.github.shapes import repository
from mock_services.github.handlers import issues
from mock_services.github.handlers.paging import page
from mock_services.rest.router import Call
from mock_services.store import EnvState, Row


def _terms(query: str) -> list[str]:
    try:
        return shlex.split(query)
    except ValueError:
        raise errors.invalid("The search query could not be parsed") from None


def _login(state: EnvState, user_id: int | None) -> str:
    found = state.first("github_users", id=user_id) if user_id else None
    return found["login"].lower() if found else ""


def _matches(state: EnvState, repo: Row, owner: str, row: Row, term: str, fields: tuple[str, ...]) -> bool:
    key, colon, value = term.partition(":")
    key, value = key.lower(), value.lower()
    if not colon:
        return any(term.lower() in (row.get(f) or "").lower() for f in fields)
    merged = bool((state.first("github_pulls", repository_id=repo["id"], number=row["number"]) or {})
                  .get("merged_at")) if row.get("pull_request") else False
    checks = {
        "repo": lambda: value == f"{owner}/{repo['name']}".lower(), "org": lambda: value == owner,
        "user": lambda: value == owner, "state": lambda: row["state"] == value,
        "is": lambda: {"issue": not row.get("pull_request"), "pr": bool(row.get("pull_request")),
                       "open": row["state"] == "open", "closed": row["state"] == "closed", "merged": merged,
                       "unmerged": bool(row.get("pull_request")) and not merged,
                       "locked": bool(row.get("locked")), "unlocked": not row.get("locked")}.get(value, False),
        "type": lambda: (value == "pr") == bool(row.get("pull_request")),
        "label": lambda: value in {n.lower() for n in row.get("labels", [])},
        "author": lambda: value == _login(state, row["user_id"]),
        "assignee": lambda: value in {_login(state, a) for a in row.get("assignee_ids", [])},
        "no": lambda: {"label": not row.get("labels"), "assignee": not row.get("assignee_ids"),
                       "milestone": not row.get("milestone_id")}.get(value, False),
        "in": lambda: True,
    }
    if key not in checks:
        return any(term.lower() in (row.get(f) or "").lower() for f in fields)
    return checks[key]()


def issues_and_pull_requests(call: Call) -> dict[str, Any]:
    terms = _terms(call.arg("q", ""))
    fields = tuple({"title": "title", "body": "body"}[t.split(":", 1)[1].lower()] for t in terms
                   if t.lower() in ("in:title", "in:body")) or ("title", "body")
    found = []
    for repo in call.state.rows("github_repositories"):
        if access.role_on(call.state, call.user, repo) is None:
            continue
        owner = _login(call.state, repo["owner_id"])
        for row in call.state.rows(issues.ISSUES, repository_id=repo["id"]):
            if all(_matches(call.state, repo, owner, row, t.removeprefix("-"), fields) != t.startswith("-")
                   for t in terms):
                found.append((repo, row))
    key = {"updated": "updated_at", "created": "created_at"}.get(call.arg("sort", ""), "created_at")
    found.sort(key=lambda pair: (pair[1][key], pair[1]["id"]), reverse=call.arg("order", "desc") == "desc")
    items = [{**issues.shaped(call, repo, row), "score": 1.0} for repo, row in found]
    return {"total_count": len(items), "incomplete_results": False, "items": page(call, items)}


def repositories(call: Call) -> dict[str, Any]:
    words = [t.lower() for t in _terms(call.arg("q", "")) if ":" not in t]
    qualifiers = dict(t.lower().split(":", 1) for t in _terms(call.arg("q", "")) if ":" in t)
    found = []
    for repo in call.state.rows("github_repositories"):
        role = access.role_on(call.state, call.user, repo)
        owner = _login(call.state, repo["owner_id"])
        text = f"{repo['name']} {repo.get('description') or ''}".lower()
        if role is None or not all(w in text for w in words):
            continue
        if qualifiers.get("org", qualifiers.get("user", owner)) != owner:
            continue
        if "language" in qualifiers and (repo.get("language") or "").lower() != qualifiers["language"]:
            continue
        found.append({**repository(call.state, repo, role), "score": 1.0})
    return {"total_count": len(found), "incomplete_results": False, "items": page(call, found)}


EXTENSIONS = {"python": ".py", "typescript": ".ts", "javascript": ".js", "go": ".go", "shell": ".sh",
              "yaml": ".yaml", "markdown": ".md", "json": ".json", "toml": ".toml"}


def _code_matches(path: str, text: str, words: list[str], qualifiers: dict[str, str]) -> bool:
    name = path.rsplit("/", 1)[-1]
    if "path" in qualifiers and not path.lower().startswith(qualifiers["path"].strip("/")):
        return False
    if "filename" in qualifiers and name.lower() != qualifiers["filename"]:
        return False
    if "extension" in qualifiers and not name.lower().endswith("." + qualifiers["extension"].lstrip(".")):
        return False
    if "language" in qualifiers and not name.lower().endswith(EXTENSIONS.get(qualifiers["language"], "\0")):
        return False
    lowered = text.lower()
    return all(w in lowered for w in words)


def code(call: Call) -> dict[str, Any]:
    """Words in the files of each visible repository's default branch (text files only), with
    `repo:`, `org:`, `user:`, `path:`, `filename:`, `extension:` and `language:`."""
    terms = _terms(call.arg("q", ""))
    words = [t.lower() for t in terms if ":" not in t]
    qualifiers = dict(t.lower().split(":", 1) for t in terms if ":" in t)
    if not words and not qualifiers:
        raise errors.invalid("Validation Failed", "Search", "q", "missing")
    found = []
    for repo in call.state.rows("github_repositories"):
        owner = _login(call.state, repo["owner_id"])
        full = f"{owner}/{repo['name']}".lower()
        if access.role_on(call.state, call.user, repo) is None or qualifiers.get("repo", full) != full or \
                qualifiers.get("org", qualifiers.get("user", owner)) != owner:
            continue
        git_repo = open_repo(call.state, repo)
        tip = git_repo.get_refs().get(f"refs/heads/{repo['default_branch']}".encode())
        if tip is None:
            continue
        shaped = repository(call.state, repo)
        for path, (_, sha) in sorted(flatten(git_repo, git_repo.object_store[tip].tree).items()):  # type: ignore
            data = git_repo.object_store[sha].data  # type: ignore[attr-defined]
            if b"\0" in data[:1024] or not _code_matches(path.decode(), data.decode("utf-8", "replace"), words,
                                                          qualifiers):
                continue
            name = path.decode()
            found.append({"name": name.rsplit("/", 1)[-1], "path": name, "sha": sha.decode(),
                          "url": f"{shapes.API}/repos/{shaped['full_name']}/contents/{name}",
                          "git_url": f"{shapes.API}/repos/{shaped['full_name']}/git/blobs/{sha.decode()}",
                          "html_url": f"{shaped['html_url']}/blob/{repo['default_branch']}/{name}",
                          "repository": shaped, "score": 1.0})
    return {"total_count": len(found), "incomplete_results": False, "items": page(call, found)}


HANDLERS = {"search/issues-and-pull-requests": issues_and_pull_requests, "search/repos": repositories,
            "search/code": code}
