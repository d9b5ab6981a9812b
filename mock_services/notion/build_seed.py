"""Builds templates/notion_default.json: Acme's Notion workspace, whose users are the acme world's
people (names and emails as mock_services/worlds/acme/people.json has them; the agent is the
integration's bot user), an Engineering wiki page with a block tree, and a Tasks database (one
data source) whose rows are assigned to them, ENG-5's checkout bug among them. Ids are UUIDs as
Notion's are, drawn from a hash of what they name, so a rebuild writes the same file.

    python -m mock_services.notion.build_seed
"""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path
from typing import Any

from mock_services.notion.objects import rich_text

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
DAY = "2025-06-0{}T08:00:00.000Z"


def notion_id(name: str) -> str:
    return str(uuid.UUID(bytes=hashlib.sha256(f"acme:notion:{name}".encode()).digest()[:16], version=4))


def text(content: str) -> list[dict]:
    """Rich text laid out as Notion keeps it."""
    return rich_text([{"type": "text", "text": {"content": content}}])


def stamps(day: int, by: str) -> dict:
    return {"created_time": DAY.format(day), "last_edited_time": DAY.format(day),
            "created_by": {"object": "user", "id": by}, "last_edited_by": {"object": "user", "id": by}}


def block(parent: dict, name: str, kind: str, content: dict, seq: int, by: str) -> dict:
    return {"id": notion_id(f"block:{name}"), "object": "block", "parent": parent, "type": kind, kind: content,
            "in_trash": False, "seq": seq, **stamps(2, by)}


def tasks_schema() -> dict:
    def options(*names: str) -> list[dict]:
        colors = ("red", "yellow", "green", "blue", "purple")
        return [{"id": notion_id(f"option:{n}")[:8], "name": n, "color": colors[i % len(colors)], "description": None}
                for i, n in enumerate(names)]
    return {
        "Name": {"id": "title", "name": "Name", "type": "title", "title": {}},
        "Status": {"id": "st%3A1", "name": "Status", "type": "status",
                   "status": {"options": options("Not started", "In progress", "Done"), "groups": []}},
        "Assignee": {"id": "as%3A1", "name": "Assignee", "type": "people", "people": {}},
        "Priority": {"id": "pr%3A1", "name": "Priority", "type": "select",
                     "select": {"options": options("High", "Medium", "Low")}},
        "Points": {"id": "pt%3A1", "name": "Points", "type": "number", "number": {"format": "number"}},
        "Due": {"id": "du%3A1", "name": "Due", "type": "date", "date": {}},
        "Tags": {"id": "tg%3A1", "name": "Tags", "type": "multi_select",
                 "multi_select": {"options": options("checkout", "design", "infra", "customer")}},
    }


def build() -> dict[str, Any]:
    people = json.loads(PEOPLE.read_text())["people"]
    ids = {p["person"]: notion_id(f"user:{p['email']}") for p in people}
    users = [{"id": ids[p["person"]], "object": "user", "type": "bot" if p["person"] == "agent" else "person",
              "name": p["name"], "avatar_url": None, "email": p["email"]} for p in people]
    john = ids["john"]
    wiki = {"id": notion_id("page:engineering"), "object": "page", "parent": {"type": "workspace", "workspace": True},
            "properties": {"title": {"id": "title", "type": "title", "title": text("Engineering")}},
            "icon": None, "cover": None, "in_trash": False, "is_locked": False, **stamps(1, john)}
    on_wiki = {"type": "page_id", "page_id": wiki["id"]}
    database = {"id": notion_id("database:tasks"), "object": "database", "parent": on_wiki, "title": text("Tasks"),
                "description": [], "is_inline": True, "in_trash": False, "is_locked": False, "icon": None,
                "cover": None, **stamps(1, john)}
    source = {"id": notion_id("data_source:tasks"), "object": "data_source",
              "parent": {"type": "database_id", "database_id": database["id"]}, "title": text("Tasks"),
              "description": [], "properties": tasks_schema(), "in_trash": False, "icon": None, "cover": None,
              **stamps(1, john)}
    blocks = [
        block(on_wiki, "heading", "heading_1", {"rich_text": text("How we work")}, 1, john),
        block(on_wiki, "intro", "paragraph", {"rich_text": text("Plans live in the Tasks database below; "
                                                                  "incidents are filed in Linear.")}, 2, john),
        block(on_wiki, "tasks", "child_database", {}, 3, john) | {"id": database["id"]},
        block(on_wiki, "checklist", "toggle", {"rich_text": text("On-call checklist")}, 4, john),
        block(on_wiki, "notes", "child_page", {}, 5, john) | {"id": notion_id("page:notes")},
    ]
    on_toggle = {"type": "block_id", "block_id": blocks[3]["id"]}
    blocks += [block(on_toggle, f"check:{i}", "to_do", {"rich_text": text(t), "checked": i == 0}, 1 + i, john)
               for i, t in enumerate(("Read the runbook", "Check the checkout error rate", "Hand over in Slack"))]
    notes = {"id": notion_id("page:notes"), "object": "page", "parent": on_wiki,
             "properties": {"title": {"id": "title", "type": "title", "title": text("Meeting notes")}},
             "icon": None, "cover": None, "in_trash": False, "is_locked": False, **stamps(2, john)}
    blocks.append(block({"type": "page_id", "page_id": notes["id"]}, "triage", "bulleted_list_item",
                        {"rich_text": text("ENG-5 triage: checkout fails for saved cards")}, 1, john))
    on_source = {"type": "data_source_id", "data_source_id": source["id"], "database_id": database["id"]}
    rows = (("ENG-5 checkout fails for saved cards", "In progress", "robert", "High", 3, "2025-06-10", ["checkout"]),
            ("Design the new onboarding flow", "Not started", "sarah", "Medium", 5, "2025-06-20", ["design"]),
            ("Upgrade the Postgres cluster", "Done", "robert", "Low", 2, None, ["infra"]),
            ("Renewal call with Globex", "Not started", "priya", "High", 1, "2025-06-05", ["customer"]),
            ("Frontend error budget review", "In progress", "yuki", "Medium", 2, "2025-06-12", []))
    options = {o["name"]: o for kind in ("status", "select") for p in source["properties"].values()
               if p["type"] == kind for o in p[kind]["options"]}
    tags = {o["name"]: o for o in source["properties"]["Tags"]["multi_select"]["options"]}
    tasks = [{"id": notion_id(f"task:{name}"), "object": "page", "parent": on_source, "icon": None, "cover": None,
              "in_trash": False, "is_locked": False, **stamps(3, john), "properties": {
                  "Name": {"id": "title", "type": "title", "title": text(name)},
                  "Status": {"id": "st%3A1", "type": "status", "status": options[status]},
                  "Assignee": {"id": "as%3A1", "type": "people", "people": [{"object": "user", "id": ids[who]}]},
                  "Priority": {"id": "pr%3A1", "type": "select", "select": options[priority]},
                  "Points": {"id": "pt%3A1", "type": "number", "number": points},
                  "Due": {"id": "du%3A1", "type": "date",
                          "date": {"start": due, "end": None, "time_zone": None} if due else None},
                  "Tags": {"id": "tg%3A1", "type": "multi_select", "multi_select": [tags[t] for t in labels]}}}
             for name, status, who, priority, points, due, labels in rows]
    return {"notion_users": users, "notion_pages": [wiki, notes, *tasks], "notion_databases": [database],
            "notion_data_sources": [source], "notion_blocks": blocks}


def main() -> None:
    (HERE / "templates" / "notion_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
