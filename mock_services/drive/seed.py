"""The committed script that builds the `drive_default` template: the acme world's people
(mock_services/worlds/acme/people.json, by email), each with a My Drive, and a folder tree of
real contents (text, CSV, a small PDF this script writes, Google Docs and a Sheet kept as their
HTML and CSV export sources), some of it shared. Deterministic: the same files every run.

    python -m mock_services.drive.seed        # writes templates/drive_default.json and contents/
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
TEMPLATE = HERE / "templates" / "drive_default.json"
CONTENTS = HERE / "templates" / "contents"
FOLDER = "application/vnd.google-apps.folder"
DOC = "application/vnd.google-apps.document"
SHEET = "application/vnd.google-apps.spreadsheet"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _hash(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def user_id(email: str) -> str:
    """Drive's permission ids are 20 digits."""
    return str(int.from_bytes(_hash(email), "big"))[:20]


def file_id(name: str) -> str:
    return "1" + "".join(ALPHABET[b % 64] for b in _hash("file:" + name))[:32]


def pdf(title: str, lines: list[str]) -> bytes:
    """A small valid PDF (one page of Helvetica text), its cross-reference table counted."""
    text = " ".join(f"({line.replace('(', '[').replace(')', ']')}) Tj T*" for line in [title, "", *lines])
    stream = f"BT /F1 12 Tf 16 TL 72 720 Td {text} ET".encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    return out + b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)


def doc(title: str, paragraphs: list[str]) -> bytes:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>".encode()


ROADMAP = ["Theme: reliability first. Cut API p99 latency to 300 ms and error rate under 0.1%.",
           "Launch usage-based billing for the Pro plan by September 30.",
           "Migrate the search service to the new cluster; owner Robert Smith.",
           "Ship the redesigned onboarding flow (Sarah Smith) with the web team (Yuki Tanaka)."]
ONBOARDING = ["Goal: a new workspace sees its first dashboard within five minutes.",
              "Step 1: sign in with Google. Step 2: invite teammates. Step 3: connect a data source.",
              "Open question: do we ask for the company size before or after the invite step?"]
QBR = ["Customer: Globex Corporation. Renewal date 2025-11-30, 120 seats.",
       "Asked for SSO enforcement and an audit log export.",
       "Risk: their champion moves teams in October; Priya Patel follows up."]
MEETING = ["Weekly sync, 1 October 2025: John, Sarah, Robert, Yuki, Priya and the agent.",
           "Decisions: freeze the Q3 scope; the outage review happens on Friday.",
           "Action items: the agent drafts the customer update; Robert writes the incident report."]


def tree() -> list[dict]:
    """(path, owner, kind, contents, shared-with) for every item, folders before what they hold."""
    velocity = "sprint,planned_points,completed_points,carried_over\n" + "".join(
        f"2025-S{n},{p},{c},{p - c}\n" for n, p, c in ((14, 40, 34), (15, 42, 41), (16, 45, 38), (17, 44, 44)))
    accounts = "account,plan,seats,arr_usd,renewal_date,owner\nGlobex Corporation,Enterprise,120,86400,2025-11-30,priya\n" \
               "Initech,Pro,35,12600,2026-02-15,priya\nUmbrella Health,Enterprise,300,216000,2026-04-01,john\n" \
               "Hooli,Starter,8,960,2025-12-20,priya\n"
    renewals = "account,renewal_date,status,next_step\nGlobex Corporation,2025-11-30,at risk,QBR follow-up\n" \
               "Hooli,2025-12-20,on track,send quote\n"
    return [
        {"path": "Engineering", "owner": "john", "share": {"robert": "writer", "yuki": "writer", "agent": "writer"}},
        {"path": "Engineering/Q3 Roadmap", "owner": "john", "mime": DOC, "data": doc("Q3 Roadmap", ROADMAP)},
        {"path": "Engineering/Architecture notes.txt", "owner": "robert", "mime": "text/plain",
         "data": b"Services: api (FastAPI), search (OpenSearch), billing (Stripe webhooks).\n"
                 b"All services read configuration from the settings service at start.\n"
                 b"The search cluster migration is tracked in the Q3 roadmap.\n"},
        {"path": "Engineering/Sprint velocity.csv", "owner": "john", "mime": "text/csv", "data": velocity.encode()},
        {"path": "Engineering/Incident reports", "owner": "robert"},
        {"path": "Engineering/Incident reports/2025-09-12 API outage.txt", "owner": "robert", "mime": "text/plain",
         "data": b"Summary: the API returned 503 for 42 minutes after a failed database failover.\n"
                 b"Impact: 18% of requests failed between 14:05 and 14:47 UTC.\n"
                 b"Follow-up: add a failover drill to the Q3 roadmap.\n"},
        {"path": "Design", "owner": "sarah", "share": {"agent": "commenter", "yuki": "writer"}},
        {"path": "Design/Brand guidelines.pdf", "owner": "sarah", "mime": "application/pdf",
         "data": pdf("Acme Brand Guidelines", ["Primary color: Acme blue #1A4DFF.", "Typeface: Inter, 14 px body.",
                                               "Logo clear space: the height of the A on every side."])},
        {"path": "Design/Onboarding flow spec", "owner": "sarah", "mime": DOC, "data": doc("Onboarding flow spec", ONBOARDING)},
        {"path": "Customers", "owner": "priya", "share": {"agent": "reader", "john": "reader"}},
        {"path": "Customers/Customer accounts", "owner": "priya", "mime": SHEET, "data": accounts.encode()},
        {"path": "Customers/Renewal tracker.csv", "owner": "priya", "mime": "text/csv", "data": renewals.encode()},
        {"path": "Customers/Globex QBR notes", "owner": "priya", "mime": DOC, "data": doc("Globex QBR notes", QBR)},
        {"path": "Notes", "owner": "agent"},
        {"path": "Notes/todo.txt", "owner": "agent", "mime": "text/plain",
         "data": b"- Draft the customer update for Globex\n- Read the outage report\n- Book the QBR room\n"},
        {"path": "Notes/Weekly sync 2025-10-01", "owner": "agent", "mime": DOC, "data": doc("Weekly sync", MEETING)},
        {"path": "Expenses September.csv", "owner": "agent", "mime": "text/csv",
         "data": b"date,item,amount_usd\n2025-09-03,Team lunch,184.50\n2025-09-17,Conference ticket,399.00\n"},
        {"path": "Company holidays 2026.txt", "owner": "john", "mime": "text/plain", "link": True,
         "data": b"1 January, 26 May, 4 July, 1 September, 26 November, 25 December\n"},
        {"path": "Old draft.txt", "owner": "agent", "mime": "text/plain", "trashed": True,
         "data": b"An early draft nobody needs.\n"},
        {"path": "Salary review 2026.csv", "owner": "john", "mime": "text/csv",
         "data": b"name,current,proposed\nRobert Smith,150000,158000\nYuki Tanaka,140000,147000\n"},
    ]


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    ids = {p["person"]: user_id(p["email"]) for p in people}
    users = [{"id": ids[p["person"]], "email": p["email"], "display_name": p["name"],
              "root_folder_id": "0A" + file_id("root:" + p["email"])[1:18] + "Uk9PVA"} for p in people]
    roots = {p["person"]: u["root_folder_id"] for p, u in zip(people, users)}
    emails = {p["person"]: p["email"] for p in people}
    files = [{"id": u["root_folder_id"], "name": "My Drive", "mime_type": FOLDER, "parents": [], "owner_id": u["id"],
              "created_time": "2025-01-06T09:00:00.000Z", "modified_time": "2025-01-06T09:00:00.000Z",
              "modified_by_id": u["id"], "starred": False, "trashed": False, "version": 1} for u in users]
    permissions, revisions, by_path = [], [], {}
    for n, item in enumerate(tree()):
        parent, _, name = item["path"].rpartition("/")
        owner = ids[item["owner"]]
        when = f"2025-{9 + n // 10:02d}-{1 + n % 10 * 3:02d}T{9 + n % 8:02d}:30:00.000Z"
        row = {"id": file_id(item["path"]), "name": name, "mime_type": item.get("mime", FOLDER),
               "parents": [by_path[parent] if parent else roots[item["owner"]]], "owner_id": owner,
               "created_time": when, "modified_time": when, "modified_by_id": owner, "starred": n in (1, 12),
               "trashed": bool(item.get("trashed")), "version": 2 if "data" in item else 1}
        if item.get("trashed"):
            row.update(trashed_time=when, trashing_user_id=owner)
        by_path[item["path"]] = row["id"]
        if "data" in item:
            data = item["data"]
            sha1 = hashlib.sha1(data).hexdigest()
            (CONTENTS / sha1).write_bytes(data)
            binary = not row["mime_type"].startswith("application/vnd.google-apps.")
            revision = {"id": ("0B" + file_id("rev:" + item["path"])[1:45]) if binary else "1", "file_id": row["id"],
                        "sha1": sha1, "size": len(data), "mime_type": row["mime_type"], "modified_time": when,
                        "modified_by_id": owner, "keep_forever": False}
            row.update(sha1=sha1, size=len(data), head_revision_id=revision["id"])
            if binary:
                md5 = hashlib.md5(data).hexdigest()
                row.update(md5=md5, sha256=hashlib.sha256(data).hexdigest(), original_filename=name)
                revision.update(md5=md5, original_filename=name)
            revisions.append(revision)
        files.append(row)
        for person, role in item.get("share", {}).items():
            permissions.append({"file_id": row["id"], "id": ids[person], "type": "user", "role": role,
                                "email": emails[person], "created_time": when, "granted_by": owner})
        if item.get("link"):
            permissions.append({"file_id": row["id"], "id": "anyoneWithLink", "type": "anyone", "role": "reader",
                                "allow_file_discovery": False, "created_time": when, "granted_by": owner})
    roadmap = by_path["Engineering/Q3 Roadmap"]
    comments = [{"id": "AAAAroadmap01", "file_id": roadmap, "author_id": ids["sarah"], "created_time": "2025-09-20T10:00:00.000Z",
                 "modified_time": "2025-09-20T11:00:00.000Z", "resolved": False, "deleted": False,
                 "content": "Can we move the onboarding launch before the billing change?",
                 "quoted_file_content": {"mimeType": "text/html", "value": "Ship the redesigned onboarding flow"}}]
    replies = [{"id": "AAAAroadmap02", "comment_id": "AAAAroadmap01", "file_id": roadmap, "author_id": ids["john"],
                "created_time": "2025-09-20T11:00:00.000Z", "modified_time": "2025-09-20T11:00:00.000Z",
                "deleted": False, "content": "Yes if Yuki has capacity; let's decide on Friday."}]
    return {"drive_users": users, "drive_files": files, "drive_permissions": permissions, "drive_revisions": revisions,
            "drive_comments": comments, "drive_replies": replies, "drive_changes": []}


def main() -> None:
    CONTENTS.mkdir(parents=True, exist_ok=True)
    for old in CONTENTS.iterdir():
        old.unlink()
    TEMPLATE.write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
