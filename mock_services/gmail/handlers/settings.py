"""users.settings.*: vacation, IMAP, POP, language and auto-forwarding (one stored value
each, Gmail's defaults until changed), filters (applied to mail as it arrives), sendAs (the
user's own address plus the aliases they add) and forwarding addresses. Delegation and
client-side encryption are Workspace administrators' features: Google's 403 here."""

from __future__ import annotations

from mock_services import clock
from mock_services.gmail import mailbox
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

DEFAULTS = {"vacation": {"enableAutoReply": False},
            "imap": {"enabled": True, "autoExpunge": True, "expungeBehavior": "archive", "maxFolderSize": 0},
            "pop": {"accessWindow": "disabled", "disposition": "leaveInInbox"},
            "language": {"displayLanguage": "en"},
            "autoForwarding": {"enabled": False}}
FORWARDING = "forwardingAddress:"
SEND_AS = {"displayName": "display_name", "replyToAddress": "reply_to_address", "signature": "signature",
           "isDefault": "is_default", "treatAsAlias": "treat_as_alias"}


def body(call: Call) -> dict:
    return call.body if isinstance(call.body, dict) else {}


def setting(name: str):
    def get(call: Call) -> dict:
        found = call.state.first("gmail_settings", user_id=mailbox.owner(call)["id"], name=name)
        return found["value"] if found else dict(DEFAULTS[name])

    def put(call: Call) -> dict:
        user = mailbox.owner(call)
        row = {"user_id": user["id"], "name": name, "value": {**DEFAULTS[name], **body(call)}}
        if call.state.first("gmail_settings", user_id=user["id"], name=name):
            call.state.update("gmail_settings", row)
        else:
            call.state.insert("gmail_settings", row)
        return row["value"]
    return get, put


def filter_json(row: Row) -> dict:
    return {"id": row["id"], "criteria": row.get("criteria") or {}, "action": row.get("action") or {}}


def find_filter(call: Call) -> Row:
    found = call.state.first("gmail_filters", id=call.params["id"])
    if found is None or found["user_id"] != mailbox.owner(call)["id"]:
        raise RestError(404, "notFound", "Filter not found")
    return found


def create_filter(call: Call) -> dict:
    user = mailbox.owner(call)
    criteria, action = body(call).get("criteria"), body(call).get("action")
    if not isinstance(criteria, dict) or not criteria or not isinstance(action, dict) or not action:
        raise RestError(400, "invalidArgument", "Filter doesn't have any criteria" if not criteria
                        else "Filter doesn't have any actions")
    for key in ("addLabelIds", "removeLabelIds"):
        mailbox.check_labels(call, user["id"], action.get(key))
    row = {"id": "ANe1Bm" + clock.token_hex(12), "user_id": user["id"], "criteria": criteria, "action": action}
    call.state.insert("gmail_filters", row)
    return filter_json(row)


def list_filters(call: Call) -> dict:
    rows = call.state.rows("gmail_filters", user_id=mailbox.owner(call)["id"])
    return {"filter": [filter_json(r) for r in rows]} if rows else {}


def delete_filter(call: Call) -> None:
    call.state.delete("gmail_filters", find_filter(call))


def primary_send_as(user: Row) -> dict:
    return {"sendAsEmail": user.get("email", ""), "displayName": user.get("display_name", ""), "replyToAddress": "",
            "signature": "", "isPrimary": True, "isDefault": True}


def send_as_json(row: Row) -> dict:
    answer = {field: row[column] for field, column in SEND_AS.items() if column in row}
    return {"sendAsEmail": row["send_as_email"], **answer, "verificationStatus": "accepted"}


def send_as_list(call: Call) -> list[dict]:
    user = mailbox.owner(call)
    rows = {r["send_as_email"].lower(): r for r in call.state.rows("gmail_send_as", user_id=user["id"])}
    own = str(user.get("email", "")).lower()
    primary = primary_send_as(user) | {k: v for k, v in send_as_json(rows[own]).items()
                                       if k != "verificationStatus"} if own in rows else primary_send_as(user)
    return [primary] + [send_as_json(r) for e, r in rows.items() if e != own]


def find_send_as(call: Call) -> dict:
    wanted = call.params["sendAsEmail"].lower()
    found = next((s for s in send_as_list(call) if s["sendAsEmail"].lower() == wanted), None)
    if found is None:
        raise RestError(404, "notFound", "Requested entity was not found.")
    return found


def save_send_as(call: Call, email: str, given: dict, replace: bool) -> dict:
    user = mailbox.owner(call)
    current = call.state.first("gmail_send_as", user_id=user["id"], send_as_email=email)
    row = {"user_id": user["id"], "send_as_email": email, **({} if replace or not current else
                                                             {k: v for k, v in current.items()})}
    row |= {column: given[field] for field, column in SEND_AS.items() if field in given}
    if current:
        call.state.update("gmail_send_as", row)
    else:
        call.state.insert("gmail_send_as", row)
    return next(s for s in send_as_list(call) if s["sendAsEmail"].lower() == email.lower())


def create_send_as(call: Call) -> dict:
    email = body(call).get("sendAsEmail")
    if not isinstance(email, str) or "@" not in email:
        raise RestError(400, "invalidArgument", "Invalid sendAsEmail")
    if any(s["sendAsEmail"].lower() == email.lower() for s in send_as_list(call)):
        raise RestError(409, "alreadyExists", "Already exists")
    return save_send_as(call, email, body(call), replace=True)


def change_send_as(call: Call, replace: bool) -> dict:
    found = find_send_as(call)
    return save_send_as(call, found["sendAsEmail"], body(call), replace)


def delete_send_as(call: Call) -> None:
    found = find_send_as(call)
    if found.get("isPrimary"):
        raise RestError(400, "invalidArgument", "Cannot delete primary send-as address")
    row = call.state.first("gmail_send_as", user_id=mailbox.owner(call)["id"], send_as_email=found["sendAsEmail"])
    if row:
        call.state.delete("gmail_send_as", row)


def forwarding(call: Call) -> list[dict]:
    user = mailbox.owner(call)
    rows = call.state.rows("gmail_settings", user_id=user["id"])
    return [r["value"] for r in rows if r["name"].startswith(FORWARDING)]


def create_forwarding(call: Call) -> dict:
    email = body(call).get("forwardingEmail")
    if not isinstance(email, str) or "@" not in email:
        raise RestError(400, "invalidArgument", "Invalid forwardingEmail")
    value = {"forwardingEmail": email, "verificationStatus": "pending"}
    row = {"user_id": mailbox.owner(call)["id"], "name": FORWARDING + email.lower(), "value": value}
    if call.state.first("gmail_settings", user_id=row["user_id"], name=row["name"]):
        raise RestError(409, "alreadyExists", "Already exists")
    call.state.insert("gmail_settings", row)
    return value


def find_forwarding(call: Call) -> Row:
    found = call.state.first("gmail_settings", user_id=mailbox.owner(call)["id"],
                             name=FORWARDING + call.params["forwardingEmail"].lower())
    if found is None:
        raise RestError(404, "notFound", "Requested entity was not found.")
    return found


def workspace_only(call: Call) -> dict:
    mailbox.owner(call)
    raise RestError(403, "forbidden", "Access restricted to service accounts that have been delegated "
                                      "domain-wide authority")


def no_smime(call: Call) -> dict:
    find_send_as(call)
    raise RestError(404, "notFound", "Requested entity was not found.")


def _handlers() -> dict:
    found = {}
    for name, method in (("vacation", "Vacation"), ("imap", "Imap"), ("pop", "Pop"), ("language", "Language"),
                         ("autoForwarding", "AutoForwarding")):
        get, put = setting(name)
        found[f"users.settings.get{method}"], found[f"users.settings.update{method}"] = get, put
    for family in ("delegates.create", "delegates.delete", "delegates.get", "delegates.list",
                   "cse.identities.create", "cse.identities.delete", "cse.identities.get", "cse.identities.list",
                   "cse.identities.patch", "cse.keypairs.create", "cse.keypairs.disable", "cse.keypairs.enable",
                   "cse.keypairs.get", "cse.keypairs.list", "cse.keypairs.obliterate"):
        found[f"users.settings.{family}"] = workspace_only
    for method in ("delete", "get", "insert", "setDefault"):
        found[f"users.settings.sendAs.smimeInfo.{method}"] = no_smime
    return found


HANDLERS = {
    **_handlers(),
    "users.settings.filters.create": create_filter, "users.settings.filters.list": list_filters,
    "users.settings.filters.get": lambda call: filter_json(find_filter(call)),
    "users.settings.filters.delete": delete_filter,
    "users.settings.sendAs.list": lambda call: {"sendAs": send_as_list(call)},
    "users.settings.sendAs.get": find_send_as, "users.settings.sendAs.create": create_send_as,
    "users.settings.sendAs.patch": lambda call: change_send_as(call, replace=False),
    "users.settings.sendAs.update": lambda call: change_send_as(call, replace=True),
    "users.settings.sendAs.delete": delete_send_as,
    "users.settings.sendAs.verify": lambda call: find_send_as(call) and None,
    "users.settings.sendAs.smimeInfo.list": lambda call: find_send_as(call) and {},
    "users.settings.forwardingAddresses.create": create_forwarding,
    "users.settings.forwardingAddresses.list": lambda call: {"forwardingAddresses": forwarding(call)},
    "users.settings.forwardingAddresses.get": lambda call: find_forwarding(call)["value"],
    "users.settings.forwardingAddresses.delete": lambda call: call.state.delete("gmail_settings",
                                                                                find_forwarding(call)),
}
