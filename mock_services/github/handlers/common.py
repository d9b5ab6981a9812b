"""What the REST handlers share: the repository a path names (as the caller may see it), its
git data, refs resolved as GitHub resolves them, and commits in GitHub's shape."""

from __future__ import annotations

from typing import Any

from dulwich.objects import Commit, Tag
from dulwich.repo import BaseRepo

from mock_services import clock
from mock_services.github import access, errors, shapes
from mock_services.github.shapes import UNSIGNED
from mock_services.github.git.history import iso
from mock_services.github.git.store import open_repo
from mock_services.rest.router import Call
from mock_services.store import Row


def target(call: Call, needs: str = "read") -> Row:
    """The repository `{owner}/{repo}` of the path, if the caller may `needs` on it."""
    return access.repository(call.state, call.user, call.arg("owner"), call.arg("repo"), needs)


def git(call: Call, repository: Row) -> BaseRepo:
    key = ("git", repository["id"])
    if key not in call.memo:
        call.memo[key] = open_repo(call.state, repository)
    return call.memo[key]


def acting(call: Call) -> Row:
    """The acting user's row; 401 for a caller without credentials."""
    uid = access.user_id(call.user)
    found = call.state.first("github_users", id=uid) if uid else None
    if found is None:
        raise errors.unauthorized()
    return found


def now() -> str:
    return clock.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ")


def now_seconds() -> int:
    return int(clock.now())


def next_id(call: Call, table: str) -> int:
    """GitHub's ids are numbers that only grow; the next is one more than any the table holds."""
    return max((r["id"] for r in call.state.rows(table) if isinstance(r.get("id"), int)), default=0) + 1


def resolve(repo: BaseRepo, name: str | None, default_branch: str) -> bytes:
    """A branch, a tag, a full ref or a commit id -> the commit it names; 404 where none."""
    name = name or default_branch
    refs = repo.get_refs()
    for candidate in (name, f"refs/heads/{name}", f"refs/tags/{name}"):
        sha = refs.get(candidate.encode())
        if sha is not None:
            return peel(repo, sha)
    if len(name) >= 7 and all(c in "0123456789abcdef" for c in name.lower()):
        if len(name) == 40 and name.encode() in repo.object_store:
            return name.encode()
    raise errors.RestError(404, "not_found", f"No commit found for the ref {name}")


def peel(repo: BaseRepo, sha: bytes) -> bytes:
    found = repo.object_store[sha]
    while isinstance(found, Tag):
        found = repo.object_store[found.object[1]]
    return found.id


def person(raw: bytes, when: int) -> dict[str, str]:
    name, _, email = raw.decode("utf-8", "replace").partition(" <")
    return {"name": name, "email": email.rstrip(">"), "date": iso(when)}


def commit_json(call: Call, repository: Row, commit: Commit) -> dict[str, Any]:
    base = shapes.repo_url(call.state, repository)
    sha = commit.id.decode()
    author = person(commit.author, commit.author_time)
    committer = person(commit.committer, commit.commit_time)
    return {"sha": sha, "node_id": f"C_{sha}", "url": f"{base}/commits/{sha}",
            "html_url": base.replace(shapes.API + "/repos", shapes.WEB) + f"/commit/{sha}",
            "comments_url": f"{base}/commits/{sha}/comments",
            "commit": {"author": author, "committer": committer, "message": commit.message.decode("utf-8", "replace")
                       .rstrip("\n"), "tree": {"sha": commit.tree.decode(), "url": f"{base}/git/trees/{commit.tree.decode()}"},
                       "url": f"{base}/git/commits/{sha}", "comment_count": 0,
                       "verification": UNSIGNED},
            "author": by_email(call, author["email"]), "committer": by_email(call, committer["email"]),
            "parents": [{"sha": p.decode(), "url": f"{base}/commits/{p.decode()}"} for p in commit.parents]}


def by_email(call: Call, email: str) -> dict[str, Any] | None:
    return shapes.user(call.state.first("github_users", email=email)) if email else None
