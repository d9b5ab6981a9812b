"""users.labels.*: Gmail's system labels (the same in every mailbox, never stored) and the
user's own, stored per mailbox; counts are read from the mailbox on every get."""

from __future__ import annotations

from mock_services.gmail import mailbox
from mock_services.gmail.resources import label_json
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

VISIBILITY = {"labelListVisibility": ("label_list_visibility", ("labelShow", "labelShowIfUnread", "labelHide")),
              "messageListVisibility": ("message_list_visibility", ("show", "hide"))}


def list_labels(call: Call) -> dict:
    user = mailbox.owner(call)
    own = list(mailbox.user_labels(call, user["id"]).values())
    return {"labels": [label_json(call, user["id"], label, counts=False) for label in [*mailbox.SYSTEM_LABELS, *own]]}


def find_label(call: Call) -> Row | str:
    user = mailbox.owner(call)
    wanted = call.params["id"]
    if wanted in mailbox.SYSTEM_LABELS:
        return wanted
    found = mailbox.user_labels(call, user["id"]).get(wanted)
    if found is None:
        raise RestError(404, "notFound", "Requested entity was not found.")
    return found


def get_label(call: Call) -> dict:
    return label_json(call, mailbox.owner(call)["id"], find_label(call), counts=True)


def columns(call: Call, body: dict, user_id: str, label_id: str | None) -> Row:
    """A Label body as columns; a name that is taken (or a system label's) is Google's 409."""
    row: Row = {}
    if "name" in body:
        name = body["name"]
        if not isinstance(name, str) or not name.strip():
            raise RestError(400, "invalidArgument", "Invalid label name")
        taken = {r["name"].lower() for r in mailbox.user_labels(call, user_id).values() if r["id"] != label_id}
        if name.strip().lower() in taken | {s.lower() for s in mailbox.SYSTEM_LABELS}:
            raise RestError(409, "alreadyExists", "Label name exists or conflicts")
        row["name"] = name.strip()
    for field, (column, allowed) in VISIBILITY.items():
        if field in body:
            if body[field] not in allowed:
                raise RestError(400, "invalidArgument", f"Invalid {field}: {body[field]}")
            row[column] = body[field]
    if isinstance(body.get("color"), dict):
        row["color"] = {k: body["color"][k] for k in ("textColor", "backgroundColor") if k in body["color"]}
    return row


def create_label(call: Call) -> dict:
    user = mailbox.owner(call)
    body = call.body if isinstance(call.body, dict) else {}
    if "name" not in body:
        raise RestError(400, "invalidArgument", "Invalid label name")
    taken = [int(r["id"].split("_", 1)[1]) for r in call.state.rows("gmail_labels", user_id=user["id"])
             if r["id"].startswith("Label_") and r["id"][6:].isdigit()]
    row = {"id": f"Label_{max(taken, default=0) + 1}", "user_id": user["id"],
           **columns(call, body, user["id"], None)}
    call.state.insert("gmail_labels", row)
    return label_json(call, user["id"], row, counts=False)


def change_label(call: Call, replace: bool) -> dict:
    found = find_label(call)
    if isinstance(found, str):
        raise RestError(400, "invalidArgument", "Invalid update to system label")
    body = call.body if isinstance(call.body, dict) else {}
    if replace and "name" not in body:
        raise RestError(400, "invalidArgument", "Invalid label name")
    kept = {k: found[k] for k in ("id", "user_id")} if replace else dict(found)
    row = kept | columns(call, body, found["user_id"], found["id"])
    if not replace:
        row = {**found, **row}
    call.state.update("gmail_labels", row)
    return label_json(call, found["user_id"], row, counts=False)


def delete_label(call: Call) -> None:
    """The label goes, and off every message that had it."""
    found = find_label(call)
    if isinstance(found, str):
        raise RestError(400, "invalidArgument", "Invalid delete request")
    for row in call.state.rows("gmail_messages", user_id=found["user_id"]):
        if found["id"] in (row.get("label_ids") or []):
            mailbox.change_labels(call, row, [], [found["id"]])
    call.state.delete("gmail_labels", found)


HANDLERS = {
    "users.labels.list": list_labels, "users.labels.get": get_label, "users.labels.create": create_label,
    "users.labels.patch": lambda call: change_label(call, replace=False),
    "users.labels.update": lambda call: change_label(call, replace=True),
    "users.labels.delete": delete_label,
}
