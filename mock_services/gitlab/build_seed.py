"""Builds templates/gitlab_default.json: Acme's GitLab. The acme world's people
(mock_services/worlds/acme/people.json) are its users (emails kept); the acme/checkout project
holds the launch's issues, ENG-5's (#1) assigned to Robert with Yuki's note on it, and Robert's
merge request that fixes it; ids are numbers from the people's and rows' order.

    python -m mock_services.gitlab.build_seed
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
AT = "2026-01-05T09:00:00.000Z"
WEB = "https://gitlab.com"


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    users = {p["person"]: {"id": 1001 + i, "username": p["person"], "name": p["name"], "email": p["email"],
                           "state": "active", "locked": False, "bio": p["title"], "job_title": p["title"],
                           "avatar_url": None, "web_url": f"{WEB}/{p['person']}", "created_at": AT}
             for i, p in enumerate(people)}

    def basic(who: str) -> dict:
        return {k: users[who][k] for k in ("id", "username", "name", "state", "avatar_url", "web_url")}

    project = {"id": 4201, "name": "checkout", "path": "checkout", "path_with_namespace": "acme/checkout",
               "name_with_namespace": "Acme / checkout", "description": "Acme's checkout service",
               "default_branch": "main", "visibility": "private", "web_url": f"{WEB}/acme/checkout",
               "http_url_to_repo": f"{WEB}/acme/checkout.git", "created_at": AT, "last_activity_at": AT,
               "namespace": {"id": 77, "name": "acme", "path": "acme", "kind": "group", "full_path": "acme",
                             "web_url": f"{WEB}/groups/acme"}}
    issues = []
    for iid, (title, who, by, labels) in enumerate((
            ("Checkout fails for carts over 50 items (ENG-5)", "robert", "john", ["bug", "checkout-v2"]),
            ("Write the checkout v2 launch announcement", "sarah", "john", ["launch"]),
            ("Sign off the checkout v2 spec", "john", "sarah", ["checkout-v2"])), start=1):
        issues.append({"id": 90000 + iid, "iid": iid, "project_id": project["id"], "title": title,
                       "description": "Linear's ENG-5: the cart page errors past 50 items." if iid == 1 else "",
                       "state": "closed" if iid == 3 else "opened", "labels": labels, "author": basic(by),
                       "assignees": [basic(who)], "assignee": basic(who), "created_at": AT, "updated_at": AT,
                       "closed_at": AT if iid == 3 else None, "closed_by": basic(who) if iid == 3 else None,
                       "web_url": f"{project['web_url']}/-/issues/{iid}", "references": {"short": f"#{iid}"}})
    mr = {"id": 95001, "iid": 1, "project_id": project["id"], "title": "Page the cart past 50 items (ENG-5)",
          "description": "Closes #1", "state": "opened", "labels": ["checkout-v2"], "author": basic("robert"),
          "assignees": [basic("robert")], "assignee": basic("robert"), "source_branch": "eng-5-large-carts",
          "target_branch": "main", "source_project_id": project["id"], "target_project_id": project["id"],
          "draft": False, "merge_status": "can_be_merged", "detailed_merge_status": "mergeable",
          "created_at": AT, "updated_at": AT, "closed_at": None, "closed_by": None,
          "web_url": f"{project['web_url']}/-/merge_requests/1", "references": {"short": "!1"}}
    note = {"id": 97001, "type": None, "body": "I can reproduce with 51 items in the cart.", "attachment": None,
            "author": basic("yuki"), "created_at": AT, "updated_at": AT, "system": False, "noteable_id": issues[0]["id"],
            "noteable_type": "Issue", "noteable_iid": 1, "project_id": project["id"], "resolvable": False,
            "confidential": False, "internal": False}
    return {"gitlab_users": list(users.values()), "gitlab_projects": [project], "gitlab_issues": issues,
            "gitlab_merge_requests": [mr], "gitlab_issue_notes": [note], "gitlab_mr_notes": []}


def main() -> None:
    (HERE / "templates" / "gitlab_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
