"""GitHub's JSON objects, made from rows when answered (URLs, counts and a pull request's
head are derived here, never stored)."""

from __future__ import annotations

from typing import Any

from mock_services.store import EnvState, Row

API = "https://api.github.com"
UNSIGNED = {"verified": False, "reason": "unsigned", "signature": None, "payload": None, "verified_at": None}
WEB = "https://github.com"


def user(row: Row | None) -> dict[str, Any] | None:
    if row is None:
        return None
    login = row["login"]
    url = f"{API}/users/{login}"
    return {"login": login, "id": row["id"], "node_id": f"U_{row['id']}", "type": row.get("type", "User"),
            "site_admin": row.get("site_admin", False), "name": row.get("name"), "email": row.get("email"),
            "avatar_url": f"https://avatars.githubusercontent.com/u/{row['id']}", "gravatar_id": "",
            "url": url, "html_url": f"{WEB}/{login}", "followers_url": f"{url}/followers",
            "following_url": f"{url}/following{{/other_user}}", "gists_url": f"{url}/gists{{/gist_id}}",
            "starred_url": f"{url}/starred{{/owner}}{{/repo}}", "subscriptions_url": f"{url}/subscriptions",
            "organizations_url": f"{url}/orgs", "repos_url": f"{url}/repos", "events_url": f"{url}/events{{/privacy}}",
            "received_events_url": f"{url}/received_events", "user_view_type": "public",
            "created_at": row.get("created_at"), "updated_at": row.get("created_at")}


def organization(state: EnvState, row: Row, full: bool = False) -> dict[str, Any]:
    """An organization as GitHub lists it (organization-simple), or all of it (organization-full)."""
    url = f"{API}/orgs/{row['login']}"
    shaped = {"login": row["login"], "id": row["id"], "node_id": f"O_{row['id']}", "url": url,
              "repos_url": f"{url}/repos", "events_url": f"{url}/events", "hooks_url": f"{url}/hooks",
              "issues_url": f"{url}/issues", "members_url": f"{url}/members{{/member}}",
              "public_members_url": f"{url}/public_members{{/member}}",
              "avatar_url": f"https://avatars.githubusercontent.com/u/{row['id']}", "description": row.get("description")}
    if full:
        public = [r for r in state.rows("github_repositories", owner_id=row["id"]) if not r.get("private")]
        shaped.update({"name": row.get("name"), "html_url": f"{WEB}/{row['login']}", "type": "Organization",
                       "created_at": row.get("created_at"), "updated_at": row.get("created_at"),
                       "archived_at": None, "followers": 0, "following": 0, "public_gists": 0,
                       "public_repos": len(public), "has_organization_projects": True,
                       "has_repository_projects": True, "email": row.get("email")})
    return shaped


URL_TEMPLATES = {
    "archive_url": "/{archive_format}{/ref}", "assignees_url": "/assignees{/user}", "blobs_url": "/git/blobs{/sha}",
    "branches_url": "/branches{/branch}", "collaborators_url": "/collaborators{/collaborator}",
    "comments_url": "/comments{/number}", "commits_url": "/commits{/sha}", "compare_url": "/compare/{base}...{head}",
    "contents_url": "/contents/{+path}", "contributors_url": "/contributors", "deployments_url": "/deployments",
    "downloads_url": "/downloads", "events_url": "/events", "forks_url": "/forks", "git_commits_url":
    "/git/commits{/sha}", "git_refs_url": "/git/refs{/sha}", "git_tags_url": "/git/tags{/sha}", "hooks_url": "/hooks",
    "issue_comment_url": "/issues/comments{/number}", "issue_events_url": "/issues/events{/number}",
    "issues_url": "/issues{/number}", "keys_url": "/keys{/key_id}", "labels_url": "/labels{/name}",
    "languages_url": "/languages", "merges_url": "/merges", "milestones_url": "/milestones{/number}",
    "notifications_url": "/notifications{?since,all,participating}", "pulls_url": "/pulls{/number}",
    "releases_url": "/releases{/id}", "stargazers_url": "/stargazers", "statuses_url": "/statuses/{sha}",
    "subscribers_url": "/subscribers", "subscription_url": "/subscription", "tags_url": "/tags",
    "teams_url": "/teams", "trees_url": "/git/trees{/sha}"}


def user_by_id(state: EnvState, user_id: int | None) -> dict[str, Any] | None:
    return user(state.first("github_users", id=user_id)) if user_id else None


def repository(state: EnvState, row: Row, role: str | None = None) -> dict[str, Any]:
    owner = state.first("github_users", id=row["owner_id"])
    full = f"{owner['login']}/{row['name']}" if owner else row["name"]
    base = f"{API}/repos/{full}"
    shaped = {"id": row["id"], "node_id": f"R_{row['id']}", "name": row["name"], "full_name": full,
              "owner": user(owner), "private": row.get("private", False),
              "visibility": "private" if row.get("private") else "public", "description": row.get("description"),
              "fork": row.get("fork", False), "url": base, "html_url": f"{WEB}/{full}",
              "clone_url": f"{WEB}/{full}.git", "git_url": f"git://github.com/{full}.git",
              "ssh_url": f"git@github.com:{full}.git", "default_branch": row["default_branch"],
              "created_at": row.get("created_at"), "updated_at": row.get("updated_at", row.get("created_at")),
              "pushed_at": row.get("pushed_at", row.get("created_at")), "language": row.get("language"),
              "topics": row.get("topics", []), "archived": row.get("archived", False), "disabled": False,
              "has_issues": True, "has_projects": True, "has_wiki": True, "has_downloads": True,
              "has_pages": False, "has_discussions": False, "homepage": row.get("homepage"), "license": None,
              "mirror_url": None, "svn_url": f"{WEB}/{full}", "size": 0, "open_issues_count": _open_issues(state, row["id"]),
              "allow_merge_commit": True, "allow_squash_merge": True, "allow_rebase_merge": True,
              **{name: base + tail for name, tail in URL_TEMPLATES.items()}}
    stars = len(state.rows("github_stars", repository_id=row["id"]))
    forks = sum(r.get("parent_id") == row["id"] for r in state.rows("github_repositories"))
    shaped.update(open_issues=shaped["open_issues_count"], stargazers_count=stars, watchers_count=stars,
                  watchers=stars, subscribers_count=0, network_count=forks, forks_count=forks, forks=forks)
    if role is not None:
        shaped["permissions"] = {r: ROLE_ORDER.index(r) <= ROLE_ORDER.index(role_name(role))
                                 for r in ("admin", "maintain", "push", "triage", "pull")}
    return shaped


ROLE_ORDER = ("pull", "triage", "push", "maintain", "admin")


def role_name(role: str) -> str:
    """access's roles (read, write) as GitHub's `permissions` names them (pull, push)."""
    return {"read": "pull", "write": "push"}.get(role, role)


def _open_issues(state: EnvState, repository_id: int) -> int:
    return len(state.rows("github_issues", repository_id=repository_id, state="open"))


def label(repo_url: str, row: Row) -> dict[str, Any]:
    return {"id": row["id"], "node_id": f"LA_{row['id']}", "url": f"{repo_url}/labels/{row['name']}",
            "name": row["name"], "color": row.get("color", "ededed"), "description": row.get("description"),
            "default": row.get("default", False),
            "archived_at": None, "archived_by": None}  # the 2026-03-10 API version's label archival


def repo_url(state: EnvState, repository: Row) -> str:
    owner = state.first("github_users", id=repository["owner_id"])
    return f"{API}/repos/{owner['login'] if owner else ''}/{repository['name']}"


def milestone(state: EnvState, repository: Row, row: Row) -> dict[str, Any]:
    """A milestone with its open and closed issue counts, counted when answered."""
    base = repo_url(state, repository)
    linked = state.rows("github_issues", repository_id=repository["id"], milestone_id=row["id"])
    return {"url": f"{base}/milestones/{row['number']}", "html_url": "", "labels_url": "", "id": row["id"],
            "node_id": f"MI_{row['id']}", "number": row["number"], "title": row["title"],
            "description": row.get("description"), "state": row["state"], "creator": None,
            "open_issues": sum(i["state"] == "open" for i in linked),
            "closed_issues": sum(i["state"] == "closed" for i in linked), "created_at": row.get("created_at"),
            "updated_at": row.get("updated_at"), "closed_at": row.get("closed_at"), "due_on": row.get("due_on")}


REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


def reaction_rollup(state: EnvState, url: str, repository_id: int, subject: str, subject_id: int) -> dict[str, Any]:
    """An issue's or a comment's reactions, counted when answered."""
    rows = state.rows("github_reactions", repository_id=repository_id, subject=subject, subject_id=subject_id)
    return {"url": f"{url}/reactions", "total_count": len(rows), **{c: sum(r["content"] == c for r in rows)
                                                                     for c in REACTIONS}}
