"""Commits made on GitHub's side (a file written through the contents API, a pull request's
merge) as real git objects, and the `github_commits` rows that show every commit a
repository gained, whichever way it came (a push or the API)."""

from __future__ import annotations

from datetime import UTC, datetime

from dulwich.graph import find_merge_base
from dulwich.objects import Blob, Commit, Tag, Tree
from dulwich.repo import BaseRepo

from mock_services.store import EnvState, Row

COMMITS = "github_commits"
FILE_MODE = 0o100644
Flat = dict[bytes, tuple[int, bytes]]  # path -> (mode, sha) of every file of a tree


def iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def flatten(repo: BaseRepo, tree_sha: bytes, prefix: bytes = b"") -> Flat:
    files: Flat = {}
    for entry in repo.object_store[tree_sha].items():  # type: ignore[union-attr]
        path = prefix + entry.path
        if entry.mode & 0o40000 and not entry.mode & 0o100000:
            files.update(flatten(repo, entry.sha, path + b"/"))
        else:
            files[path] = (entry.mode, entry.sha)
    return files


def build_tree(repo: BaseRepo, files: Flat) -> bytes:
    """The tree of these files (and the subtrees it needs), written to the store; its id."""
    children: dict[bytes, Flat] = {}
    tree = Tree()
    for path, (mode, sha) in files.items():
        head, slash, rest = path.partition(b"/")
        if slash:
            children.setdefault(head, {})[rest] = (mode, sha)
        else:
            tree.add(path, mode, sha)
    for name, below in children.items():
        tree.add(name, 0o40000, build_tree(repo, below))
    repo.object_store.add_object(tree)
    return tree.id


def write_blob(repo: BaseRepo, data: bytes) -> bytes:
    blob = Blob.from_string(data)
    repo.object_store.add_object(blob)
    return blob.id


def make_commit(repo: BaseRepo, tree: bytes, parents: list[bytes], message: str, author: tuple[str, str],
                when: int, committer: tuple[str, str] | None = None) -> bytes:
    commit = Commit()
    commit.tree, commit.parents = tree, parents
    commit.author = f"{author[0]} <{author[1]}>".encode()
    who = committer or author
    commit.committer = f"{who[0]} <{who[1]}>".encode()
    commit.author_time = commit.commit_time = when
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = message.encode() if message.endswith("\n") else (message + "\n").encode()
    repo.object_store.add_object(commit)
    return commit.id


def three_way(base: Flat, ours: Flat, theirs: Flat) -> Flat | None:
    """Both sides' changes since `base`, file by file; None where both changed one file apart."""
    merged: Flat = {}
    for path in base.keys() | ours.keys() | theirs.keys():
        b, o, t = base.get(path), ours.get(path), theirs.get(path)
        if o == t or t == b:
            chosen = o
        elif o == b:
            chosen = t
        else:
            return None
        if chosen is not None:
            merged[path] = chosen
    return merged


def merge_base(repo: BaseRepo, a: bytes, b: bytes) -> bytes | None:
    found = find_merge_base(repo, [a, b])
    return found[0] if found else None


def merged_tree(repo: BaseRepo, base_sha: bytes, head_sha: bytes) -> bytes | None:
    """The tree a merge of `head_sha` into `base_sha` gives; None where they conflict."""
    ancestor = merge_base(repo, base_sha, head_sha)
    if ancestor == head_sha:
        return repo.object_store[base_sha].tree  # type: ignore[union-attr]
    if ancestor == base_sha:
        return repo.object_store[head_sha].tree  # type: ignore[union-attr]
    empty: Flat = {}
    files = three_way(flatten(repo, repo.object_store[ancestor].tree) if ancestor else empty,  # type: ignore[union-attr]
                      flatten(repo, repo.object_store[base_sha].tree),  # type: ignore[union-attr]
                      flatten(repo, repo.object_store[head_sha].tree))  # type: ignore[union-attr]
    return None if files is None else build_tree(repo, files)


def _person(raw: bytes) -> tuple[str, str]:
    name, _, email = raw.decode("utf-8", "replace").partition(" <")
    return name, email.rstrip(">")


def commit_row(repository_id: int, commit: Commit) -> Row:
    author, committer = _person(commit.author), _person(commit.committer)
    return {"repository_id": repository_id, "sha": commit.id.decode(), "tree": commit.tree.decode(),
            "parents": [p.decode() for p in commit.parents], "message": commit.message.decode("utf-8", "replace"),
            "author_name": author[0], "author_email": author[1], "authored_at": iso(commit.author_time),
            "committer_name": committer[0], "committer_email": committer[1], "committed_at": iso(commit.commit_time)}


def record(state: EnvState, repo: BaseRepo, repository_id: int, tips: list[bytes]) -> list[Row]:
    """A row for every commit reachable from `tips` that the repository has none for yet."""
    known = {r["sha"] for r in state.rows(COMMITS, repository_id=repository_id)}
    added: list[Row] = []
    pending = [t for t in tips if t.decode() not in known]
    seen: set[bytes] = set()
    while pending:
        sha = pending.pop()
        if sha in seen or sha.decode() in known:
            continue
        seen.add(sha)
        commit = repo.object_store[sha]
        if isinstance(commit, Tag):
            pending.append(commit.object[1])
            continue
        if not isinstance(commit, Commit):
            continue
        added.append(commit_row(repository_id, commit))
        pending.extend(commit.parents)
    for row in sorted(added, key=lambda r: r["committed_at"]):
        state.insert(COMMITS, row)
    return added
