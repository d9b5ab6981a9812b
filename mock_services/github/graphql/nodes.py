"""GitHub's GraphQL objects made from the replica's rows (the same rows the REST API answers
from): users, repositories, refs, issues and pull requests, and connections over them. A node's
id is the REST API's `node_id` (`R_101`, `I_101001`, `PR_7001`), so one names the other."""

from __future__ import annotations

import base64
from typing import Any

from mock_services.github import shapes
from mock_services.graphql.errors import ApiError
from mock_services.store import EnvState, Row

STATES = {"open": "OPEN", "closed": "CLOSED"}


def connection(items: list[dict], first: int | None = None, after: str | None = None, last: int | None = None,
               **_: Any) -> dict[str, Any]:
    """GitHub's connections: oldest first, `first`/`after` or `last`, with `totalCount`."""
    start = int(base64.b64decode(after).decode().removeprefix("cursor:")) + 1 if after else 0
    window = items[start:]
    chosen = window[-last:] if last and not first else window[:first or 100]
    offset = start + (len(window) - len(chosen) if last and not first else 0)
    cursors = [base64.b64encode(f"cursor:{offset + i}".encode()).decode() for i in range(len(chosen))]
    return {"nodes": chosen, "edges": [{"node": n, "cursor": c} for n, c in zip(chosen, cursors)],
            "totalCount": len(items), "pageInfo": {"hasNextPage": offset + len(chosen) < len(items),
                                                   "hasPreviousPage": offset > 0,
                                                   "startCursor": cursors[0] if cursors else None,
                                                   "endCursor": cursors[-1] if cursors else None}}


def user(row: Row | None) -> dict[str, Any] | None:
    if row is None:
        return None
    kind = "Organization" if row.get("type") == "Organization" else "User"
    return {"__typename": kind, "id": f"U_{row['id']}", "databaseId": row["id"], "login": row["login"],
            "name": row.get("name"), "email": row.get("email") or "", "url": f"{shapes.WEB}/{row['login']}",
            "avatarUrl": f"https://avatars.githubusercontent.com/u/{row['id']}", "createdAt": row.get("created_at")}


def repository(state: EnvState, row: Row) -> dict[str, Any]:
    shaped = shapes.repository(state, row)
    return {"__typename": "Repository", "id": f"R_{row['id']}", "databaseId": row["id"], "name": row["name"],
            "nameWithOwner": shaped["full_name"], "owner": user(state.first("github_users", id=row["owner_id"])),
            "description": row.get("description"), "isPrivate": bool(row.get("private")), "url": shaped["html_url"],
            "visibility": shaped["visibility"].upper(), "isFork": bool(row.get("fork")),
            "isArchived": bool(row.get("archived")), "createdAt": row.get("created_at"),
            "updatedAt": shaped["updated_at"], "pushedAt": shaped["pushed_at"], "sshUrl": shaped["ssh_url"],
            "stargazerCount": shaped["stargazers_count"], "forkCount": shaped["forks_count"],
            "hasIssuesEnabled": True, "hasWikiEnabled": True, "hasProjectsEnabled": True,
            "mergeCommitAllowed": True, "squashMergeAllowed": True, "rebaseMergeAllowed": True,
            "deleteBranchOnMerge": False, "isEmpty": False, "isTemplate": False, "isMirror": False,
            "isLocked": False, "isDisabled": False, "isInOrganization": shaped["owner"]["type"] == "Organization",
            "homepageUrl": row.get("homepage"), "_row": row}


def ref(name: str, sha: str) -> dict[str, Any]:
    short = name.split("/", 2)[-1] if name.startswith(("refs/heads/", "refs/tags/")) else name
    return {"__typename": "Ref", "id": f"REF_{name}", "name": short, "prefix": name[:len(name) - len(short)],
            "target": {"__typename": "Commit", "oid": sha, "id": f"C_{sha}"}}


def issue(state: EnvState, repo: Row, row: Row) -> dict[str, Any]:
    """An issue, or a pull request (an issue of the same number with its branches)."""
    pull = state.first("github_pulls", repository_id=repo["id"], number=row["number"]) if row.get("pull_request") \
        else None
    web = shapes.repository(state, repo)["html_url"]
    state_name = "MERGED" if pull and pull.get("merged_at") else STATES[row["state"]]
    shaped = {"__typename": "PullRequest" if pull else "Issue", "id": f"PR_{pull['id']}" if pull else f"I_{row['id']}",
              "databaseId": pull["id"] if pull else row["id"], "number": row["number"], "title": row["title"],
              "body": row.get("body") or "", "state": state_name, "closed": row["state"] == "closed",
              "locked": bool(row.get("locked")), "url": f"{web}/{'pull' if pull else 'issues'}/{row['number']}",
              "createdAt": row["created_at"], "updatedAt": row["updated_at"], "closedAt": row.get("closed_at"),
              "author": user(state.first("github_users", id=row["user_id"])),
              "stateReason": (row.get("state_reason") or "").upper() or None, "_repo": repo, "_row": row}
    if pull:
        shaped.update({"headRefName": pull["head_ref"], "baseRefName": pull["base_ref"], "isDraft": pull["draft"],
                       "merged": bool(pull.get("merged_at")), "mergedAt": pull.get("merged_at"),
                       "mergeCommit": {"__typename": "Commit", "oid": pull["merge_commit_sha"]}
                       if pull.get("merge_commit_sha") else None, "_pull": pull})
    return shaped


def decode(node_id: Any, *prefixes: str) -> tuple[str, int]:
    """`I_101001` -> ("I", 101001); a prefix not wanted is GitHub's NOT_FOUND."""
    prefix, _, number = str(node_id).partition("_")
    if prefix not in prefixes or not number.isdigit():
        raise ApiError(f"Could not resolve to a node with the global id of '{node_id}'", type="NOT_FOUND")
    return prefix, int(number)
