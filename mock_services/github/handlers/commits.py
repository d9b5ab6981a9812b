"""Commits read from the repository's git objects: list (from a ref, `path`, `author`,
`since`/`until`), get (with its files), compare two refs (`base...head`)."""

from __future__ import annotations

from typing import Any

from dulwich.diff_tree import tree_changes
from dulwich.objects import Commit
from dulwich.repo import BaseRepo

from mock_services.github import errors, shapes
from mock_services.github.git import history
from mock_services.github.handlers.common import commit_json, git, resolve, target
from mock_services.github.handlers.paging import page
from mock_services.rest.router import Call
from mock_services.store import Row


def _walk(repo: BaseRepo, include: list[bytes], exclude: list[bytes] = (), paths: list[bytes] | None = None
          ) -> list[Commit]:
    return [entry.commit for entry in repo.get_walker(include=include, exclude=list(exclude), paths=paths)]


def list_commits(call: Call) -> list[Any]:
    repository = target(call)
    repo = git(call, repository)
    if not repo.get_refs():
        raise errors.conflict("Git Repository is empty.")
    tip = resolve(repo, call.arg("sha"), repository["default_branch"])
    path = call.arg("path")
    commits = [commit_json(call, repository, c) for c in _walk(repo, [tip], paths=[path.encode()] if path else None)]
    if call.arg("author"):
        wanted = call.arg("author")
        commits = [c for c in commits if wanted in (c["commit"]["author"]["email"], (c["author"] or {}).get("login"))]
    if call.arg("since"):
        commits = [c for c in commits if c["commit"]["committer"]["date"] >= call.arg("since")]
    if call.arg("until"):
        commits = [c for c in commits if c["commit"]["committer"]["date"] <= call.arg("until")]
    return page(call, commits)


def files_between(call: Call, repository: Row, repo: BaseRepo, old_tree: bytes | None, new_tree: bytes
                  ) -> list[dict[str, Any]]:
    """The changed files, as GitHub lists them (`status`, `additions`, `deletions`, `patch`)."""
    base = shapes.repo_url(call.state, repository)
    files = []
    for change in tree_changes(repo.object_store, old_tree, new_tree):
        old, new = change.old, change.new
        path = (new.path if new and new.path else old.path).decode("utf-8", "replace")  # type: ignore[union-attr]
        before = repo.object_store[old.sha].data.decode("utf-8", "replace").splitlines() if old and old.sha else []
        after = repo.object_store[new.sha].data.decode("utf-8", "replace").splitlines() if new and new.sha else []
        status = {"add": "added", "delete": "removed", "modify": "modified", "rename": "renamed"}.get(
            change.type, "modified")
        additions = len([line for line in after if line not in before])
        deletions = len([line for line in before if line not in after])
        sha = (new.sha if new and new.sha else old.sha).decode()  # type: ignore[union-attr]
        files.append({"sha": sha, "filename": path, "status": status, "additions": additions,
                      "deletions": deletions, "changes": additions + deletions,
                      "blob_url": f"{base}/blob/{sha}/{path}", "raw_url": f"{base}/raw/{sha}/{path}",
                      "contents_url": f"{base}/contents/{path}",
                      "patch": "".join(f"-{line}\n" for line in before if line not in after)
                      + "".join(f"+{line}\n" for line in after if line not in before)})
    return files


def get_commit(call: Call) -> dict[str, Any]:
    repository = target(call)
    repo = git(call, repository)
    commit = repo.object_store[resolve(repo, call.arg("ref"), repository["default_branch"])]
    parent_tree = repo.object_store[commit.parents[0]].tree if commit.parents else None  # type: ignore[attr-defined]
    files = files_between(call, repository, repo, parent_tree, commit.tree)  # type: ignore[attr-defined]
    additions, deletions = sum(f["additions"] for f in files), sum(f["deletions"] for f in files)
    return {**commit_json(call, repository, commit),  # type: ignore[arg-type]
            "stats": {"additions": additions, "deletions": deletions, "total": additions + deletions},
            "files": files}


def compare(call: Call) -> dict[str, Any]:
    repository = target(call)
    repo = git(call, repository)
    base_name, dots, head_name = call.arg("basehead").partition("...")
    if not dots:
        raise errors.RestError(404, "not_found", "Not Found")
    base, head = (resolve(repo, n, repository["default_branch"]) for n in (base_name, head_name))
    ahead = _walk(repo, [head], [base])
    behind = _walk(repo, [base], [head])
    status = "identical" if base == head else "ahead" if not behind else "behind" if not ahead else "diverged"
    url = shapes.repo_url(call.state, repository)
    ancestor = history.merge_base(repo, base, head) or base
    web = url.replace(shapes.API + "/repos", shapes.WEB) + f"/compare/{call.arg('basehead')}"
    return {"url": f"{url}/compare/{call.arg('basehead')}", "html_url": web, "permalink_url": web,
            "diff_url": web + ".diff", "patch_url": web + ".patch", "status": status, "ahead_by": len(ahead),
            "behind_by": len(behind), "total_commits": len(ahead),
            "base_commit": commit_json(call, repository, repo.object_store[base]),  # type: ignore[arg-type]
            "merge_base_commit": commit_json(call, repository, repo.object_store[ancestor]),  # type: ignore[arg-type]
            "commits": [commit_json(call, repository, c) for c in reversed(ahead)],
            "files": files_between(call, repository, repo, repo.object_store[ancestor].tree,  # type: ignore[attr-defined]
                                   repo.object_store[head].tree)}  # type: ignore[attr-defined]


HANDLERS = {"repos/list-commits": list_commits, "repos/get-commit": get_commit,
            "repos/compare-commits-with-basehead": compare}
