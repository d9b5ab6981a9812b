"""Builds templates/gmail_default.json and the message bytes it names (templates/contents/,
by SHA-256): the mailboxes of the acme world's people (mock_services/worlds/acme/people.json),
two months of Acme's mail up to 2025-06-02 in threads (weekly updates, customer escalations
with outside senders, design reviews, incidents, planning with a CSV, invoices as PDFs,
newsletters), with replies threaded as Gmail threads them, user labels, a filter and drafts.
Everything is drawn from a fixed seed and hashes, so a rebuild writes the same files.

    python -m mock_services.gmail.build_seed
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path

from mock_services.gmail import mime
from mock_services.gmail.mailbox import envelope
from mock_services.gmail.seed_mail import ATTACHMENTS, THREADS

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
TEMPLATE = HERE / "templates" / "gmail_default.json"
CONTENTS = HERE / "templates" / "contents"
START = datetime(2025, 4, 7, 8, 0, tzinfo=UTC)
END = datetime(2025, 6, 2, 8, 0, tzinfo=UTC)
LABELS = {"agent": ["Projects", "Customers", "Receipts", "Follow up"], "john": ["Team", "Hiring"],
          "priya": ["Customers", "Customers/Escalations"], "sarah": ["Design"], "robert": ["Incidents"],
          "yuki": ["Newsletters"]}


def digest(*parts: object) -> str:
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()


@dataclass
class Mailbox:
    user: dict
    labels: dict[str, str] = field(default_factory=dict)      # name -> id
    threads: dict[str, str] = field(default_factory=dict)     # thread key -> thread id
    rows: list[dict] = field(default_factory=list)


class Builder:
    def __init__(self) -> None:
        people = json.loads(PEOPLE.read_text())["people"]
        self.people = {p["person"]: p for p in people}
        self.random = random.Random(20250602)
        self.history = 1000
        self.boxes = {p["person"]: Mailbox({"id": f"user_{p['person']}", "email": p["email"],
                                            "display_name": p["name"]}) for p in people}
        for person, names in LABELS.items():
            self.boxes[person].labels = {name: f"Label_{i + 1}" for i, name in enumerate(names)}
        self.contents: dict[str, bytes] = {}

    def address(self, who: str) -> str:
        if who in self.people:
            return formataddr((self.people[who]["name"], self.people[who]["email"]))
        return who  # an outside sender, written out in THREADS

    def message(self, key: str, index: int, mail: dict, subject: str, when: datetime,
                parent: EmailMessage | None) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self.address(mail["from"])
        message["To"] = ", ".join(self.address(w) for w in mail["to"])
        if mail.get("cc"):
            message["Cc"] = ", ".join(self.address(w) for w in mail["cc"])
        prefix = "" if parent is None else "Fwd: " if mail.get("fwd") else "Re: "
        message["Subject"] = prefix + subject
        message["Date"] = format_datetime(when)
        message["Message-ID"] = f"<CA{digest(key, index)[:40]}@mail.gmail.com>"
        if parent is not None and not mail.get("fwd"):
            message["In-Reply-To"] = parent["Message-ID"]
            message["References"] = " ".join(filter(None, [parent.get("References"), parent["Message-ID"]]))
        message.set_content(mail["body"].strip() + "\n")
        for name in mail.get("attach", []):
            kind, data = ATTACHMENTS[name]
            maintype, subtype = kind.split("/")
            message.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
        for number, part in enumerate(p for p in message.walk() if p.is_multipart()):
            part.set_boundary(f"000000000000{digest(key, index, number)[:12]}")
        return message

    def file(self, person: str, message: EmailMessage, raw: bytes, labels: list[str], thread: str,
             when: datetime) -> None:
        box = self.boxes[person]
        self.history += 1
        message_id = f"{int(when.timestamp() * 1000):011x}{digest(person, raw)[:5]}"
        thread_id = box.threads.setdefault(thread, message_id)
        box.rows.append({"id": message_id, "user_id": box.user["id"], "thread_id": thread_id,
                         "label_ids": [box.labels.get(x, x) for x in labels],
                         "internal_date": int(when.timestamp() * 1000), "content": mime.content_key(raw),
                         **{k: v for k, v in envelope(message, raw).items() if v not in ("", [])},
                         "history_id": self.history})

    def thread(self, key: str, script: dict, start: datetime) -> None:
        when, parent = start, None
        for index, mail in enumerate(script["mails"]):
            when += timedelta(minutes=self.random.randint(20, 600)) if index else timedelta(0)
            if when >= END:
                return
            message = self.message(key, index, mail, script["subject"], when, parent)
            raw = mime.serialize(message)
            self.contents[mime.content_key(raw)] = raw
            recent = (END - when).days < 6
            sender = mail["from"]
            if sender in self.boxes:
                self.file(sender, message, raw, ["SENT"] + script.get("labels", {}).get(sender, []), key, when)
            for person in dict.fromkeys(mail["to"] + mail.get("cc", [])):
                if person in self.boxes and person != sender:
                    unread = recent or self.random.random() < 0.15
                    labels = ["INBOX", *script.get("inbox", []), *(["UNREAD"] if unread else []),
                              *script.get("labels", {}).get(person, [])]
                    if person in script.get("archived_by", []):
                        labels.remove("INBOX")
                    self.file(person, message, raw, labels, key, when)
            parent = message

    def build(self) -> dict:
        for number, script in enumerate(THREADS):
            day = script.get("day", number * 53 % 56)
            start = START + timedelta(days=day, hours=self.random.randint(0, 9), minutes=self.random.randint(0, 59))
            self.thread(f"t{number}", script, start)
        messages = sorted((r for b in self.boxes.values() for r in b.rows), key=lambda r: r["history_id"])
        starred = [r for r in messages if "INBOX" in r["label_ids"]][::17]
        for row in starred:
            row["label_ids"].append("STARRED")
        labels = [{"id": i, "user_id": b.user["id"], "name": n}
                  for b in self.boxes.values() for n, i in b.labels.items()]
        drafts = self.drafts()
        messages += drafts.pop("messages")
        filters = [{"id": "ANe1Bm" + digest("filter", "receipts")[:24], "user_id": "user_agent",
                    "criteria": {"from": "billing@cloudnimbus.example"},
                    "action": {"addLabelIds": [self.boxes["agent"].labels["Receipts"]], "removeLabelIds": ["INBOX"]}}]
        return {"gmail_users": [b.user for b in self.boxes.values()], "gmail_labels": labels,
                "gmail_messages": messages, "gmail_drafts": drafts["drafts"], "gmail_filters": filters}

    def drafts(self) -> dict:
        found: dict = {"messages": [], "drafts": []}
        pending = [("agent", ["john"], "Release notes for 2.4 (draft)",
                    "Hi John,\n\nHere is a first pass at the 2.4 release notes:\n- Faster search\n- CSV export\n"),
                   ("agent", ["priya"], "Renewal list", "Priya, the accounts up for renewal in June are"),
                   ("john", ["sarah", "robert"], "Offsite agenda", "Draft agenda for the offsite:\n1. Roadmap\n")]
        for number, (person, to, subject, body) in enumerate(pending):
            message = EmailMessage()
            message["From"], message["To"] = self.address(person), ", ".join(self.address(w) for w in to)
            message["Subject"] = subject
            message.set_content(body + "\n")
            raw = mime.serialize(message)
            self.contents[mime.content_key(raw)] = raw
            when = END - timedelta(hours=3 + number)
            self.file(person, message, raw, ["DRAFT"], f"draft{number}", when)
            row = self.boxes[person].rows.pop()
            found["messages"].append(row)
            found["drafts"].append({"id": "r" + str(int(digest("draft", number)[:15], 16))[:19],
                                    "user_id": row["user_id"], "message_id": row["id"]})
        return found


def main() -> None:
    builder = Builder()
    tables = builder.build()
    CONTENTS.mkdir(parents=True, exist_ok=True)
    for old in CONTENTS.iterdir():
        if old.name not in builder.contents:
            old.unlink()
    for key, raw in builder.contents.items():
        (CONTENTS / key).write_bytes(raw)
    TEMPLATE.write_text(json.dumps(tables, indent=1) + "\n")
    print(f"{TEMPLATE}: {len(tables['gmail_messages'])} messages, {len(builder.contents)} distinct mails")


if __name__ == "__main__":
    main()
