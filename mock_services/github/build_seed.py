"""The committed script that builds `github_default`: the acme organization, the acme world's
people (mock_services/worlds/acme/people.json, logins from their names, emails kept), three
repositories with real git history (branches, files in Python, TypeScript, Go, YAML and shell,
tags), labels, a milestone, issues with comments, and a pull request with a review.

Everything is fixed (times, authors, contents), so the same objects and rows come out on
every run. The objects go to `templates/git-objects` (one pack, shared read-only by every
environment of the template), the rows to `templates/github_default.json`.

    python -m mock_services.github.build_seed
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from dulwich.object_store import DiskObjectStore
from dulwich.objects import Blob, Commit, Tag, Tree

from mock_services.github.git.history import commit_row, iso
from mock_services.github.pack import PACK

ROOT = Path(__file__).parents[1]
WORLD = json.loads((ROOT / "worlds" / "acme" / "people.json").read_text())
PEOPLE = WORLD["people"]
START = 1736154000  # 2025-01-06T09:00:00Z
ORG_ID = 9000


def login(person: dict) -> str:
    return person["name"].lower().replace(" ", "-")


USERS = [{"id": i + 1, "login": login(p), "name": p["name"], "email": p["email"], "type": "User",
          "site_admin": False, "created_at": iso(START - 86400 * 30)} for i, p in enumerate(PEOPLE)]
BY_LOGIN = {u["login"]: u for u in USERS}


class Builder:
    """Writes objects into a list (packed at the end) and keeps each repository's refs."""

    def __init__(self) -> None:
        self.objects: dict[bytes, Any] = {}
        self.clock = START

    def add(self, obj: Any) -> bytes:
        self.objects[obj.id] = obj
        return obj.id

    def tree(self, files: dict[str, str]) -> bytes:
        children: dict[str, dict[str, str]] = {}
        tree = Tree()
        for path, text in sorted(files.items()):
            head, slash, rest = path.partition("/")
            if slash:
                children.setdefault(head, {})[rest] = text
            else:
                tree.add(path.encode(), 0o100755 if path.endswith(".sh") else 0o100644,
                         self.add(Blob.from_string(text.encode())))
        for name, below in children.items():
            tree.add(name.encode(), 0o40000, self.tree(below))
        return self.add(tree)

    def commit(self, files: dict[str, str], parents: list[bytes], message: str, who: str) -> bytes:
        self.clock += 3600 * 5
        user = BY_LOGIN[who]
        commit = Commit()
        commit.tree, commit.parents = self.tree(files), parents
        commit.author = commit.committer = f"{user['name']} <{user['email']}>".encode()
        commit.author_time = commit.commit_time = self.clock
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = message.encode() + b"\n"
        return self.add(commit)

    def history(self, steps: list[tuple[str, str, dict[str, str | None]]], start: dict[str, str] | None = None,
                parent: bytes | None = None) -> tuple[bytes, dict[str, str]]:
        """Commits, each (author, message, files changed: None removes one); the tip and its files."""
        files = dict(start or {})
        tip = parent
        for who, message, changes in steps:
            for path, text in changes.items():
                if text is None:
                    files.pop(path, None)
                else:
                    files[path] = text
            tip = self.commit(files, [tip] if tip else [], message, who)
        assert tip is not None
        return tip, files

    def tag(self, name: str, target: bytes, who: str, message: str) -> bytes:
        user = BY_LOGIN[who]
        tag = Tag()
        tag.name, tag.object = name.encode(), (Commit, target)
        tag.tagger = f"{user['name']} <{user['email']}>".encode()
        tag.tag_time, tag.tag_timezone = self.clock + 60, 0
        tag.message = message.encode() + b"\n"
        return self.add(tag)


API_FILES = {
    "README.md": "# api\n\nAcme's public API service.\n",
    "app/__init__.py": "",
    "app/main.py": 'from app.routes import routes\n\n\ndef create_app() -> dict:\n    return {"routes": routes()}\n',
    "app/routes.py": 'def routes() -> list[str]:\n    return ["/health", "/orders"]\n',
    "tests/test_routes.py": "from app.routes import routes\n\n\ndef test_health():\n    assert \"/health\" in routes()\n",
    "pyproject.toml": '[project]\nname = "acme-api"\nversion = "1.0.0"\n',
}
WEB_FILES = {
    "README.md": "# web\n\nAcme's web front end.\n",
    "package.json": '{\n  "name": "acme-web",\n  "version": "0.3.0",\n  "private": true\n}\n',
    "src/index.ts": 'import { greet } from "./greet";\n\nconsole.log(greet("Acme"));\n',
    "src/greet.ts": "export function greet(name: string): string {\n  return `Hello, ${name}`;\n}\n",
}
INFRA_FILES = {
    "README.md": "# infra\n\nDeployment for Acme's services.\n",
    "cmd/deploy/main.go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("deploying")\n}\n',
    "deploy/api.yaml": "service: api\nreplicas: 2\n",
    "scripts/rollout.sh": "#!/bin/sh\nset -eu\necho \"rolling out $1\"\n",
}


def repositories(b: Builder) -> list[tuple[dict, dict[str, bytes]]]:
    """(repository row, refs) for each of acme's repositories."""
    api_main, api_files = b.history([
        ("robert-smith", "Start the API service", {p: t for p, t in API_FILES.items() if p != "tests/test_routes.py"}),
        ("robert-smith", "Add route tests", {"tests/test_routes.py": API_FILES["tests/test_routes.py"]}),
        ("john-doe", "Describe the service in the README", {"README.md": API_FILES["README.md"] +
                                                            "\nRun it with `python -m app.main`.\n"}),
    ])
    v1 = b.tag("v1.0.0", api_main, "john-doe", "First release")
    api_main, api_files = b.history([
        ("yuki-tanaka", "Add the orders route", {"app/orders.py": 'def list_orders() -> list[dict]:\n    return []\n'}),
    ], api_files, api_main)
    feature, _ = b.history([
        ("robert-smith", "Rate limit the public endpoints", {"app/limits.py": "LIMIT_PER_MINUTE = 60\n"}),
        ("robert-smith", "Apply the limit to orders", {"app/orders.py": 'from app.limits import LIMIT_PER_MINUTE\n\n\n'
                                                       'def list_orders() -> list[dict]:\n    return []\n'}),
    ], api_files, api_main)
    docs, _ = b.history([("priya-patel", "Document the auth flow", {"docs/auth.md": "# Auth\n\nTokens only.\n"})],
                        api_files, api_main)
    web_main, web_files = b.history([
        ("yuki-tanaka", "Scaffold the web app", WEB_FILES),
        ("sarah-smith", "Greet visitors by name", {"src/greet.ts": WEB_FILES["src/greet.ts"].replace(
            "Hello", "Welcome")}),
    ])
    redesign, _ = b.history([("sarah-smith", "New colour palette", {"src/theme.ts": 'export const primary = "#3344aa";\n'})],
                            web_files, web_main)
    infra_main, _ = b.history([
        ("john-doe", "Deployment scripts", INFRA_FILES),
        ("robert-smith", "Three replicas for the API", {"deploy/api.yaml": "service: api\nreplicas: 3\n"}),
    ])
    stamp = iso(START)
    return [
        ({"id": 101, "owner_id": ORG_ID, "name": "api", "description": "Acme's public API", "private": False,
          "default_branch": "main", "language": "Python", "topics": ["api", "python"], "created_at": stamp,
          "updated_at": iso(b.clock), "pushed_at": iso(b.clock)},
         {"refs/heads/main": api_main, "refs/heads/feature/rate-limits": feature, "refs/heads/docs/auth": docs,
          "refs/tags/v1.0.0": v1}),
        ({"id": 102, "owner_id": ORG_ID, "name": "web", "description": "Acme's web front end", "private": False,
          "default_branch": "main", "language": "TypeScript", "topics": [], "created_at": stamp,
          "updated_at": iso(b.clock), "pushed_at": iso(b.clock)},
         {"refs/heads/main": web_main, "refs/heads/redesign": redesign}),
        ({"id": 103, "owner_id": ORG_ID, "name": "infra", "description": "Deployment", "private": True,
          "default_branch": "main", "language": "Go", "topics": [], "created_at": stamp,
          "updated_at": iso(b.clock), "pushed_at": iso(b.clock)},
         {"refs/heads/main": infra_main, "refs/tags/v0.1.0": infra_main}),
    ]


def _commits(b: Builder, repository_id: int, refs: dict[str, bytes]) -> list[dict]:
    seen: dict[bytes, dict] = {}
    pending = list(refs.values())
    while pending:
        sha = pending.pop()
        obj = b.objects[sha]
        if isinstance(obj, Tag):
            pending.append(obj.object[1])
        elif sha not in seen:
            seen[sha] = commit_row(repository_id, obj)
            pending.extend(obj.parents)
    return sorted(seen.values(), key=lambda r: (r["committed_at"], r["sha"]))


def _issue(repository_id: int, number: int, title: str, who: str, at: int, **fields: Any) -> dict:
    row = {"id": repository_id * 1000 + number, "repository_id": repository_id, "number": number, "title": title,
           "body": fields.pop("body", None), "state": "open", "state_reason": None, "user_id": BY_LOGIN[who]["id"],
           "labels": [], "assignee_ids": [], "milestone_id": None, "locked": False, "created_at": iso(at),
           "updated_at": iso(at), "closed_at": None, "closed_by_id": None, "pull_request": False}
    row.update(fields)
    return row


def tables() -> tuple[dict[str, list[dict]], Builder]:
    b = Builder()
    repos = repositories(b)
    day = START + 86400 * 3
    org = {"id": ORG_ID, "login": "acme", "name": WORLD["company"], "email": None, "type": "Organization",
           "site_admin": False, "description": "Acme, Inc.", "created_at": iso(START - 86400 * 60)}
    members = [{"id": f"acme/{u['login']}", "org_id": ORG_ID, "user_id": u["id"],
                "role": "admin" if u["login"] == "john-doe" else "member"} for u in USERS]
    labels = [{"id": r * 10 + i, "repository_id": r, "name": name, "color": color, "description": text}
              for r in (101, 102, 103)
              for i, (name, color, text) in enumerate([("bug", "d73a4a", "Something isn't working"),
                                                       ("enhancement", "a2eeef", "New feature or request"),
                                                       ("documentation", "0075ca", "Docs")])]
    milestone = {"id": 1, "repository_id": 101, "number": 1, "title": "v1.1", "state": "open",
                 "description": "Rate limits and docs", "due_on": iso(START + 86400 * 30)}
    api_refs = repos[0][1]
    issues = [
        _issue(101, 1, "Rate limit the public endpoints", "john-doe", day, labels=["enhancement"],
               assignee_ids=[BY_LOGIN["robert-smith"]["id"]], milestone_id=1,
               body="Clients can hammer /orders; cap them per minute."),
        _issue(101, 2, "Orders route returns nothing", "priya-patel", day + 3600, labels=["bug"],
               body="`list_orders` is always empty."),
        _issue(101, 3, "Document the auth flow", "priya-patel", day + 7200, labels=["documentation"],
               state="closed", state_reason="completed", closed_at=iso(day + 9000),
               closed_by_id=BY_LOGIN["john-doe"]["id"]),
        _issue(101, 4, "Rate limit the public endpoints", "robert-smith", day + 10800, labels=["enhancement"],
               body="Closes #1.", pull_request=True),
        _issue(102, 1, "Dark mode", "sarah-smith", day, labels=["enhancement"], body="Follow the system setting."),
        _issue(103, 1, "Move to four replicas before launch", "john-doe", day, body="Load tests say so."),
    ]
    comments = [
        {"id": 5001, "repository_id": 101, "issue_number": 1, "user_id": BY_LOGIN["robert-smith"]["id"],
         "body": "On it: 60 per minute to start.", "created_at": iso(day + 1800), "updated_at": iso(day + 1800)},
        {"id": 5002, "repository_id": 101, "issue_number": 4, "user_id": BY_LOGIN["john-doe"]["id"],
         "body": "Thanks! One question on the limit inline.", "created_at": iso(day + 12000),
         "updated_at": iso(day + 12000)},
    ]
    pulls = [{"id": 7001, "repository_id": 101, "number": 4, "head_ref": "feature/rate-limits", "base_ref": "main",
              "head_sha": api_refs["refs/heads/feature/rate-limits"].decode(),
              "base_sha": api_refs["refs/heads/main"].decode(), "draft": False, "merged_at": None,
              "merge_commit_sha": None, "merged_by_id": None}]
    reviews = [{"id": 8001, "repository_id": 101, "pull_number": 4, "user_id": BY_LOGIN["john-doe"]["id"],
                "state": "APPROVED", "body": "Looks good.",
                "commit_id": api_refs["refs/heads/feature/rate-limits"].decode(), "submitted_at": iso(day + 13000)}]
    rows = {
        "github_users": [*USERS, org], "github_org_members": members,
        "github_repositories": [r for r, _ in repos],
        "github_refs": [{"repository_id": r["id"], "ref": name, "sha": sha.decode()}
                        for r, refs in repos for name, sha in sorted(refs.items())],
        "github_commits": [c for r, refs in repos for c in _commits(b, r["id"], refs)],
        "github_labels": labels, "github_milestones": [milestone], "github_issues": issues,
        "github_issue_comments": comments, "github_pulls": pulls, "github_reviews": reviews,
    }
    return rows, b


def main() -> None:
    rows, b = tables()
    folder = PACK.templates / "git-objects"
    shutil.rmtree(folder, ignore_errors=True)
    store = DiskObjectStore.init(str(folder))
    store.add_objects([(b.objects[sha], None) for sha in sorted(b.objects)])
    (PACK.templates / "github_default.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(f"{len(b.objects)} objects, {sum(len(v) for v in rows.values())} rows")


if __name__ == "__main__":
    main()
