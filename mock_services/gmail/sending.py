"""Sending: the sender's copy kept as SENT, a copy delivered to every recipient who is a
person of the environment (INBOX, UNREAD, their filters applied); mail to anyone else is
kept as sent and never leaves. Gmail completes what the message lacks (From, Date,
Message-ID) and takes Bcc off the copies it delivers. A recipient whose vacation responder is
on answers once per message, in the thread."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import format_datetime, formataddr

from mock_services import clock
from mock_services.gmail import mailbox, mime
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row


def aliases(call: Call, user: Row) -> set[str]:
    """The addresses a user may send as: their own and their sendAs rows."""
    own = {str(user.get("email", "")).lower()}
    return own | {str(r["send_as_email"]).lower() for r in call.state.rows("gmail_send_as", user_id=user["id"])}


def complete(call: Call, raw: bytes, user: Row) -> bytes:
    """The message as Gmail sends it: its From one of the user's addresses, dated, with an id."""
    message = mime.parse(raw)
    changed = False
    senders = mime.addresses(mime.header(message, "From"))
    if not senders or senders[0] not in aliases(call, user):
        del message["From"]
        message["From"] = formataddr((str(user.get("display_name") or ""), str(user.get("email") or "")))
        changed = True
    if not mime.header(message, "Date"):
        message["Date"] = format_datetime(clock.utcnow())
        changed = True
    if not mime.header(message, "Message-ID"):
        message["Message-ID"] = f"<CA{clock.token_hex(16)}@mail.gmail.com>"
        changed = True
    return mime.serialize(message) if changed else raw


def recipients(raw: bytes) -> list[str]:
    message = mime.parse(raw)
    found = [a for name in ("To", "Cc", "Bcc") for a in mime.addresses(mime.header(message, name))]
    if not found:
        raise RestError(400, "invalidArgument", "Recipient address required")
    return list(dict.fromkeys(found))


def send(call: Call, raw: bytes, thread_id: str | None = None) -> Row:
    """Send `raw` from the call's mailbox; the sender's copy."""
    user = mailbox.owner(call)
    return deliver(call, user, complete(call, raw, user), thread_id)


def deliver(call: Call, user: Row, raw: bytes, thread_id: str | None) -> Row:
    """The sender's copy, then one per recipient of the environment (who may answer it with
    their vacation reply)."""
    to = recipients(raw)
    own = str(user.get("email", "")).lower()
    labels = ["SENT", "INBOX"] if own in to else ["SENT"]
    sent = mailbox.add_message(call, user["id"], raw, labels, thread_id)
    message = mime.parse(raw)
    if mime.header(message, "Bcc"):
        del message["Bcc"]
        raw = mime.serialize(message)
    people = {str(r.get("email", "")).lower(): r for r in call.state.rows("gmail_users")}
    arrived = []
    for address in to:
        person = people.get(address)
        if person and person["id"] != user["id"]:
            arrived.append((person, mailbox.add_message(call, person["id"], raw, ["INBOX", "UNREAD"],
                                                        internal_ms=sent["internal_date"], filtered=True)))
    for person, copy in arrived:
        vacation_reply(call, person, copy, user)
    return sent


def _millis(value: object) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


def vacation_reply(call: Call, person: Row, copy: Row, sender: Row) -> None:
    """`person`'s vacation responder answers mail from another person of the environment while
    it is on (within its start and end, within the domain where it says so); never an automatic
    reply (`Auto-Submitted`), so two responders do not answer each other."""
    found = call.state.first("gmail_settings", user_id=person["id"], name="vacation")
    vacation = found["value"] if found and isinstance(found.get("value"), dict) else {}
    now = int(clock.now() * 1000)
    start, end = _millis(vacation.get("startTime") or 0), _millis(vacation.get("endTime") or 0)
    if not vacation.get("enableAutoReply") or (start and now < start) or (end and now > end):
        return
    original = mailbox.parsed(call, copy)
    if mime.header(original, "Auto-Submitted") not in ("", "no"):
        return
    theirs, ours = str(sender.get("email", "")), str(person.get("email", ""))
    if vacation.get("restrictToDomain") and theirs.rpartition("@")[2].lower() != ours.rpartition("@")[2].lower():
        return
    reply = EmailMessage()
    reply["To"] = theirs
    reply["Subject"] = vacation.get("responseSubject") or "Re: " + mime.header(original, "Subject")
    if mime.header(original, "Message-ID"):
        reply["In-Reply-To"] = reply["References"] = mime.header(original, "Message-ID")
    reply["Auto-Submitted"] = "auto-replied"
    reply.set_content(str(vacation.get("responseBodyPlainText") or vacation.get("responseBodyHtml") or ""))
    deliver(call, person, complete(call, mime.serialize(reply), person), None)
