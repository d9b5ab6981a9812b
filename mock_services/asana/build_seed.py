"""Builds templates/asana_default.json: Acme's Asana workspace. The acme world's people
(mock_services/worlds/acme/people.json) are its users (emails kept); the Checkout v2 launch
project (sections To do, Doing, Done) holds four tasks assigned to them, one about ENG-5 with
a comment from Robert; a Website refresh project holds one more. Gids are Asana's shape (16
digits as text), drawn from a hash of what they name.

    python -m mock_services.asana.build_seed
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
AT = "2026-01-05T09:00:00.000Z"


def gid(name: str) -> str:
    return str(10 ** 15 + int(hashlib.sha256(f"acme:asana:{name}".encode()).hexdigest(), 16) % (9 * 10 ** 15))


def compact(kind: str, row: dict) -> dict:
    return {"gid": row["gid"], "resource_type": kind, "name": row["name"]}


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    workspace = {"gid": gid("workspace"), "resource_type": "workspace", "name": "example.com",
                 "email_domains": ["example.com"], "is_organization": True}
    users = {p["person"]: {"gid": gid(p["email"]), "resource_type": "user", "name": p["name"], "email": p["email"],
                           "workspaces": [compact("workspace", workspace)], "photo": None} for p in people}
    projects = [{"gid": gid(f"project:{name}"), "resource_type": "project", "name": name, "archived": False,
                 "color": color, "notes": notes, "created_at": AT, "modified_at": AT,
                 "owner": compact("user", users[owner]), "workspace": compact("workspace", workspace),
                 "members": [compact("user", users[p]) for p in ("john", "sarah", "robert", "yuki")]}
                for name, color, notes, owner in (("Checkout v2 launch", "light-green", "Ship checkout v2 by the "
                                                   "launch review.", "john"),
                                                  ("Website refresh", "light-blue", "New landing pages.", "sarah"))]
    launch = projects[0]
    sections = [{"gid": gid(f"section:{name}"), "resource_type": "section", "name": name, "created_at": AT,
                 "project": compact("project", launch), "project_gid": launch["gid"]} for name in ("To do", "Doing",
                                                                                                 "Done")]
    tasks = []
    for name, project, who, done, due in (
            ("Fix checkout for carts over 50 items (ENG-5)", launch, "robert", False, "2026-01-09"),
            ("Update the checkout copy", launch, "sarah", False, "2026-01-12"),
            ("Load-test the new payment path", launch, "yuki", False, "2026-01-14"),
            ("Sign off the checkout v2 spec", launch, "john", True, "2026-01-06"),
            ("Draft the new landing page", projects[1], "sarah", False, None)):
        membership = {"project": compact("project", project), "section": compact("section", sections[2 if done else 0])
                      if project is launch else None}
        tasks.append({"gid": gid(f"task:{name}"), "resource_type": "task", "resource_subtype": "default_task",
                      "name": name, "notes": "", "completed": done, "completed_at": AT if done else None,
                      "created_at": AT, "modified_at": AT, "due_on": due, "assignee": compact("user", users[who]),
                      "projects": [compact("project", project)], "memberships": [membership], "parent": None,
                      "workspace": compact("workspace", workspace), "tags": [], "followers": []})
    story = {"gid": gid("story:1"), "resource_type": "story", "type": "comment", "resource_subtype": "comment_added",
             "text": "The cart query stops at 50 items; fix in review.", "created_at": AT,
             "created_by": compact("user", users["robert"]), "task_gid": tasks[0]["gid"]}
    tables = {"asana_workspaces": [workspace], "asana_users": list(users.values()), "asana_projects": projects,
              "asana_projects_sections": sections, "asana_tasks": tasks, "asana_tasks_stories": [story]}
    return {table: [{"id": row["gid"], **row} for row in rows] for table, rows in tables.items()}  # the store's key


def main() -> None:
    (HERE / "templates" / "asana_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
