"""Builds templates/jira_default.json: Acme's Jira site (acme.atlassian.net), whose users are the
acme world's people (names and emails as mock_services/worlds/acme/people.json has them, account
ids in Atlassian's 24-hex shape drawn from a hash of the email), the default workflow's statuses,
issue types and priorities, two projects and a few issues with a comment.

    python -m mock_services.jira.build_seed
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
SITE = "https://acme.atlassian.net"
CREATED = "2025-06-02T08:00:00.000+0000"
CATEGORIES = {"To Do": (2, "new", "blue-gray"), "In Progress": (4, "indeterminate", "yellow"),
              "Done": (3, "done", "green")}


def account_id(email: str) -> str:
    return hashlib.sha256(f"acme:jira:{email}".encode()).hexdigest()[:24]


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    users = [{"id": account_id(p["email"]), "accountId": account_id(p["email"]), "accountType": "atlassian",
              "emailAddress": p["email"], "displayName": p["name"], "active": True, "timeZone": "UTC",
              "self": f"{SITE}/rest/api/3/user?accountId={account_id(p['email'])}"} for p in people]
    by_person = {p["person"]: {k: v for k, v in u.items() if k != "id"} for p, u in zip(people, users)}
    statuses = [{"id": sid, "name": name, "self": f"{SITE}/rest/api/3/status/{sid}", "statusCategory": {
        "id": CATEGORIES[name][0], "key": CATEGORIES[name][1], "colorName": CATEGORIES[name][2], "name": name}}
        for sid, name in (("10000", "To Do"), ("3", "In Progress"), ("10001", "Done"))]
    types = [{"id": tid, "name": name, "subtask": False, "hierarchyLevel": 0,
              "self": f"{SITE}/rest/api/3/issuetype/{tid}"}
             for tid, name in (("10001", "Task"), ("10002", "Bug"), ("10003", "Story"))]
    priorities = [{"id": pid, "name": name, "self": f"{SITE}/rest/api/3/priority/{pid}"}
                  for pid, name in (("1", "Highest"), ("2", "High"), ("3", "Medium"), ("4", "Low"))]
    projects = [{"id": pid, "key": key, "name": name, "projectTypeKey": "software", "simplified": True,
                 "style": "next-gen", "lead": by_person[lead], "issueTypes": types,
                 "self": f"{SITE}/rest/api/3/project/{pid}"}
                for pid, key, name, lead in (("10000", "ACME", "Acme Platform", "john"),
                                             ("10001", "OPS", "Operations", "priya"))]
    project = {p["key"]: {k: p[k] for k in ("id", "key", "name", "self")} for p in projects}
    status = {s["name"]: s for s in statuses}
    kind = {t["name"]: t for t in types}
    issues = []
    for number, (key, summary, type_name, state, assignee, labels) in enumerate((
            ("ACME-1", "Set up the CI pipeline", "Task", "In Progress", "robert", ["infra"]),
            ("ACME-2", "Design the onboarding flow", "Story", "To Do", "sarah", ["design"]),
            ("ACME-3", "Fix the login redirect loop", "Bug", "To Do", "yuki", ["frontend", "bug"]),
            ("OPS-1", "Renew the TLS certificates", "Task", "Done", "priya", []))):
        issue_id = str(10001 + number)
        issues.append({"id": issue_id, "key": key, "self": f"{SITE}/rest/api/3/issue/{issue_id}", "expand": "",
                       "fields": {"summary": summary, "description": None, "project": project[key.split("-")[0]],
                                  "issuetype": kind[type_name], "status": status[state], "labels": labels,
                                  "assignee": by_person[assignee], "reporter": by_person["john"],
                                  "priority": priorities[2], "created": CREATED, "updated": CREATED}})
    comments = [{"id": "10100", "issueIdOrKey": "10001", "author": by_person["john"], "updateAuthor": by_person["john"],
                 "body": {"type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [
                     {"type": "text", "text": "Let's use the shared runners for now."}]}]},
                 "created": CREATED, "updated": CREATED, "jsdPublic": True,
                 "self": f"{SITE}/rest/api/3/issue/10001/comment/10100"}]
    return {"jira_users": users, "jira_status": statuses, "jira_issuetype": types, "jira_priority": priorities,
            "jira_project": projects, "jira_issue": issues, "jira_issue_comment": comments}


def main() -> None:
    (HERE / "templates" / "jira_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
