"""One environment's mail: whose mailbox a call reads (the token's user; `me` or their own
address), message bytes kept by hash, labels, history ids, and messages added to a mailbox
with Gmail's threading (a reply joins the thread of the message it references, when their
subjects agree) and the mailbox's filters applied on arrival."""

from __future__ import annotations

from email.message import EmailMessage

from mock_services import clock
from mock_services.gmail import mime
from mock_services.gmail.pack import PACK
from mock_services.gmail.search import Facts, InvalidQuery, matches, parse
from mock_services.rest.errors import RestError
from mock_services.rest.google_users import credentials_in, identify_in
from mock_services.rest.router import Call
from mock_services.store import EnvState, Row

SYSTEM_LABELS = ("CHAT", "SENT", "INBOX", "IMPORTANT", "TRASH", "DRAFT", "SPAM", "CATEGORY_FORUMS",
                 "CATEGORY_UPDATES", "CATEGORY_PERSONAL", "CATEGORY_PROMOTIONS", "CATEGORY_SOCIAL", "STARRED",
                 "UNREAD")
HIDDEN_SYSTEM = {"CHAT", "CATEGORY_FORUMS", "CATEGORY_UPDATES", "CATEGORY_PERSONAL", "CATEGORY_PROMOTIONS",
                 "CATEGORY_SOCIAL"}
HISTORY_KEY = "gmail_history_id"
SEEDED = PACK.templates / "contents"


identify = identify_in("gmail_users")
credentials = credentials_in("gmail_users")


def owner(call: Call) -> Row:
    """The mailbox `userId` names: `me` or the caller's own address; another's is Google's 403."""
    if "owner" not in call.memo:
        found = call.state.first("gmail_users", id=call.user) or {"id": call.user, "email": "", "display_name": ""}
        given = str(call.params.get("userId") or "me")
        if given != "me" and given.lower() != str(found.get("email", "")).lower():
            raise RestError(403, "forbidden", f"Delegation denied for {found.get('email') or call.user}")
        call.memo["owner"] = found
    return call.memo["owner"]


def content(state: EnvState, key: str) -> bytes:
    """A message's bytes: the environment's own, else the built-in seed's."""
    kept = state.blob(key)
    if kept is None and len(key) == 64 and key.isalnum() and (SEEDED / key).is_file():
        kept = (SEEDED / key).read_bytes()
    if kept is None:
        raise RestError(500, "backendError", "Message content is missing")
    return kept


def parsed(call: Call, row: Row) -> EmailMessage:
    key = ("parsed", row["content"])
    if key not in call.memo:
        call.memo[key] = mime.parse(content(call.state, row["content"]))
    return call.memo[key]


def next_history_id(state: EnvState) -> int:
    """Gmail's history ids only grow; the first one after the seed's highest."""
    current = state.meta(HISTORY_KEY)
    if current is None:
        current = max([int(r.get("history_id") or 0) for r in state.rows("gmail_messages")] +
                      [int(r["id"]) for r in state.rows("gmail_history")] + [1000])
    state.set_meta(HISTORY_KEY, int(current) + 1)
    return int(current) + 1


def current_history_id(state: EnvState) -> int:
    current = state.meta(HISTORY_KEY)
    return int(current) if current is not None else next_history_id(state)


def record(call: Call, user_id: str, kind: str, message: Row, label_ids: list[str] | None = None) -> int:
    """One entry of the mailbox's history (what history.list answers from)."""
    history_id = next_history_id(call.state)
    row: Row = {"id": history_id, "user_id": user_id, "type": kind, "message_id": message["id"],
                "thread_id": message["thread_id"]}
    if label_ids is not None:
        row["label_ids"] = label_ids
    call.state.insert("gmail_history", row)
    return history_id


def user_labels(call: Call, user_id: str) -> dict[str, Row]:
    key = ("labels", user_id)
    if key not in call.memo:
        call.memo[key] = {r["id"]: r for r in call.state.rows("gmail_labels", user_id=user_id)}
    return call.memo[key]


def check_labels(call: Call, user_id: str, ids: object) -> list[str]:
    if ids is None:
        return []
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise RestError(400, "invalidArgument", "Invalid label list")
    known = user_labels(call, user_id)
    for label in ids:
        if label not in SYSTEM_LABELS and label not in known:
            raise RestError(400, "invalidArgument", f"Invalid label: {label}")
    return list(dict.fromkeys(ids))


def label_changes(call: Call, user_id: str) -> tuple[list[str], list[str]]:
    """A modify request's `addLabelIds` and `removeLabelIds`; DRAFT and SENT only come with a
    message made as such, never by a modify (Google's 400)."""
    body = call.body if isinstance(call.body, dict) else {}
    add = check_labels(call, user_id, body.get("addLabelIds"))
    for label in set(add) & {"DRAFT", "SENT"}:
        raise RestError(400, "invalidArgument", f"Invalid label: {label}")
    return add, check_labels(call, user_id, body.get("removeLabelIds"))


def facts(call: Call, row: Row, me: str) -> Facts:
    """What a search reads of a stored message (its body only if a word asks)."""
    names = {i: r["name"] for i, r in user_labels(call, row["user_id"]).items()}
    return Facts(sender=str(row.get("from", "")).lower(), to=str(row.get("to", "")).lower(),
                 cc=str(row.get("cc", "")).lower(), bcc=str(row.get("bcc", "")).lower(),
                 subject=str(row.get("subject", "")).lower(), label_ids=set(row.get("label_ids") or []),
                 label_names=names, filenames=list(row.get("filenames") or []),
                 seconds=int(row.get("internal_date") or 0) / 1000, size=int(row.get("size") or 0),
                 rfc822_id=str(row.get("rfc822_id", "")), body=lambda: mime.body_text(parsed(call, row)),
                 now=clock.now(), me=me.lower())


def query_tree(text: str | None) -> tuple:
    try:
        return parse(text or "")
    except InvalidQuery as e:
        raise RestError(400, "invalidArgument", str(e)) from None


def matching(call: Call, row: Row, tree: tuple, me: str) -> bool:
    try:
        return matches(tree, facts(call, row, me))
    except InvalidQuery as e:
        raise RestError(400, "invalidArgument", str(e)) from None


def thread_of(call: Call, user_id: str, message: EmailMessage, given: str | None) -> str | None:
    """The thread a new message joins in this mailbox: the one holding a message it references,
    or the `threadId` asked for, where the subjects agree; else None (a thread of its own)."""
    subject = mime.normalized_subject(mime.header(message, "Subject"))
    if given:
        found = [r for r in call.state.rows("gmail_messages", user_id=user_id, thread_id=given)]
        if not found:
            raise RestError(404, "notFound", "Requested entity was not found.")
        if any(mime.normalized_subject(str(r.get("subject", ""))) == subject for r in found):
            return given
    refs = mime.references(message)
    for row in call.state.rows_in("gmail_messages", "rfc822_id", refs):
        if row["user_id"] == user_id and mime.normalized_subject(str(row.get("subject", ""))) == subject:
            return row["thread_id"]
    return None


def new_message_id() -> str:
    """Gmail's ids are 16 hex digits."""
    return f"{int(clock.now() * 1000) & 0xFFFFFFFFFFF:011x}{clock.token_hex(3)[:5]}"


def envelope(message: EmailMessage, raw: bytes) -> Row:
    """What the row keeps of the bytes, read once on arrival (the bytes never change): what a
    diff shows and an assertion reads (the snippet: the start of the text), and what a search or
    a list reads without parsing every message."""
    return {"from": mime.header(message, "From"), "to": mime.header(message, "To"),
            "cc": mime.header(message, "Cc"), "bcc": mime.header(message, "Bcc"),
            "subject": mime.header(message, "Subject"), "rfc822_id": mime.header(message, "Message-ID"),
            "filenames": [a.filename for a in mime.attachments(message) if a.filename], "size": len(raw),
            "snippet": mime.snippet(message)}


def add_message(call: Call, user_id: str, raw: bytes, label_ids: list[str], thread_id: str | None = None,
                internal_ms: int | None = None, filtered: bool = False) -> Row:
    """A message in `user_id`'s mailbox (its bytes kept by hash), threaded, filters applied
    where it arrives from elsewhere (`filtered`)."""
    message = mime.parse(raw)
    key = mime.content_key(raw)
    if not (SEEDED / key).is_file():
        call.state.put_blob(key, raw)
    message_id = new_message_id()
    row: Row = {"id": message_id, "user_id": user_id,
                "thread_id": thread_of(call, user_id, message, thread_id) or message_id,
                "label_ids": label_ids, "internal_date": internal_ms or int(clock.now() * 1000),
                "content": key, **envelope(message, raw)}
    if filtered:
        row["label_ids"] = apply_filters(call, row)
    row = {k: v for k, v in row.items() if v not in ("", [], None) or k == "label_ids"}
    call.memo[("parsed", key)] = message
    row["history_id"] = record(call, user_id, "messageAdded", row, row["label_ids"])
    call.state.insert("gmail_messages", row)
    return row


def apply_filters(call: Call, row: Row) -> list[str]:
    """The mailbox's filters whose criteria match an arriving message add and remove labels."""
    labels = list(row["label_ids"])
    me = str((call.state.first("gmail_users", id=row["user_id"]) or {}).get("email", ""))
    for found in call.state.rows("gmail_filters", user_id=row["user_id"]):
        if matching(call, row, query_tree(criteria_query(found.get("criteria") or {})), me):
            action = found.get("action") or {}
            labels = [x for x in labels if x not in (action.get("removeLabelIds") or [])]
            labels += [x for x in action.get("addLabelIds") or [] if x not in labels]
    return labels


def criteria_query(criteria: dict) -> str:
    """A filter's criteria as one search (how Gmail itself shows them)."""
    parts = [f"{key}:({criteria[key]})" for key in ("from", "to", "subject") if criteria.get(key)]
    if criteria.get("query"):
        parts.append(f"({criteria['query']})")
    if criteria.get("negatedQuery"):
        parts.append(f"-({criteria['negatedQuery']})")
    if criteria.get("hasAttachment"):
        parts.append("has:attachment")
    return " ".join(parts)


def change_labels(call: Call, row: Row, add: list[str], remove: list[str]) -> Row:
    """Labels added and removed, each change a history entry; nothing changes, nothing recorded."""
    before = list(row.get("label_ids") or [])
    after = [x for x in before if x not in remove] + [x for x in add if x not in before and x not in remove]
    added, removed = [x for x in after if x not in before], [x for x in before if x not in after]
    if not added and not removed:
        return row
    row = {**row, "label_ids": after}
    for kind, ids in (("labelAdded", added), ("labelRemoved", removed)):
        if ids:
            row["history_id"] = record(call, row["user_id"], kind, row, ids)
    call.state.update("gmail_messages", row)
    return row


def find(call: Call, message_id: str) -> Row:
    found = call.state.first("gmail_messages", id=message_id)
    if found is None or found["user_id"] != owner(call)["id"]:
        raise RestError(404, "notFound", "Requested entity was not found.")
    return found
