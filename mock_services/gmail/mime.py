"""Messages as RFC 2822 bytes, read and written with the standard `email` package: what a
stored message's bytes say (its envelope, its parts, its snippet), and Gmail's MessagePart
tree of them (`partId` "", "0", "1.0", ..., bodies inline or by attachment id)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import html
import re
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import getaddresses

from mock_services.rest.errors import RestError

SNIPPET_LENGTH = 200
SUBJECT_PREFIX = re.compile(r"^\s*((re|fwd?|aw|wg|sv|tr)\s*(\[\d+\])?\s*:\s*)+", re.IGNORECASE)
WRITE_POLICY = policy.default.clone(linesep="\r\n")


def decode_raw(text: object) -> bytes:
    """A request's `raw` (base64url, as Gmail's documentation writes it; plain base64 and
    missing padding forgiven, as Google does)."""
    if not isinstance(text, str) or not text.strip():
        raise RestError(400, "invalidArgument", "'raw' RFC822 payload message string or uploading message via "
                                                "/upload/* URL required")
    cleaned = re.sub(r"\s", "", text).replace("+", "-").replace("/", "_")
    try:
        return base64.urlsafe_b64decode(cleaned + "=" * (-len(cleaned) % 4))
    except (binascii.Error, ValueError):
        raise RestError(400, "invalidArgument", "Invalid value for ByteString: raw") from None


def encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode()


def parse(raw: bytes) -> EmailMessage:
    return message_from_bytes(raw, policy=policy.default)  # type: ignore[return-value]


def serialize(message: EmailMessage) -> bytes:
    return message.as_bytes(policy=WRITE_POLICY)


def content_key(raw: bytes) -> str:
    """What a message's bytes are kept under (their SHA-256): copies of one mail share them."""
    return hashlib.sha256(raw).hexdigest()


def header(message: EmailMessage, name: str) -> str:
    """A header's decoded value, unfolded; "" where absent or unreadable."""
    try:
        value = message.get(name)
    except (ValueError, IndexError, TypeError):
        return ""
    return re.sub(r"\r?\n[ \t]*", " ", str(value)) if value is not None else ""


def addresses(value: str) -> list[str]:
    """The lower-cased addresses a To/Cc/Bcc/From header names."""
    return [address.lower() for _, address in getaddresses([value]) if "@" in address]


def normalized_subject(subject: str) -> str:
    """A subject without its Re:/Fwd: prefixes: what a reply and its original share."""
    return " ".join(SUBJECT_PREFIX.sub("", subject).split()).lower()


def references(message: EmailMessage) -> list[str]:
    """The Message-IDs a message answers (In-Reply-To and References)."""
    return re.findall(r"<[^<>\s]+>", header(message, "References") + " " + header(message, "In-Reply-To"))


@dataclass(frozen=True)
class Attachment:
    part_id: str
    filename: str
    mime_type: str
    data: bytes


def _leaf_bytes(part: EmailMessage) -> bytes:
    try:
        data = part.get_payload(decode=True)
    except (ValueError, LookupError, AssertionError):
        data = None
    return data if isinstance(data, bytes) else b""


def _is_attachment(part: EmailMessage) -> bool:
    return bool(part.get_filename()) or part.get_content_disposition() == "attachment"


def walk(message: EmailMessage, part_id: str = "") -> list[tuple[str, EmailMessage]]:
    """Every part with Gmail's part id, depth first (the message itself is part "")."""
    found = [(part_id, message)]
    if message.is_multipart():
        for index, child in enumerate(message.iter_parts()):
            found += walk(child, f"{part_id}.{index}" if part_id else str(index))  # type: ignore[arg-type]
    return found


def attachments(message: EmailMessage) -> list[Attachment]:
    return [Attachment(part_id, part.get_filename() or "", part.get_content_type(), _leaf_bytes(part))
            for part_id, part in walk(message) if not part.is_multipart() and _is_attachment(part)]


def attachment_id(message_id: str, part_id: str) -> str:
    """Gmail's attachment ids are opaque; this one names its message and part."""
    return "ANGjdJ" + hashlib.sha1(f"{message_id}:{part_id}".encode(), usedforsecurity=False).hexdigest()


def find_attachment(message: EmailMessage, message_id: str, wanted: str) -> Attachment | None:
    return next((a for a in attachments(message) if attachment_id(message_id, a.part_id) == wanted), None)


def body_text(message: EmailMessage) -> str:
    """The message's text: its first text/plain part, else its first HTML part without tags."""
    leaves = [p for _, p in walk(message) if not p.is_multipart() and not _is_attachment(p)]
    for kind in ("text/plain", "text/html"):
        for part in leaves:
            if part.get_content_type() == kind:
                try:
                    text = part.get_content()
                except (LookupError, ValueError, AssertionError):
                    text = _leaf_bytes(part).decode("utf-8", "replace")
                return re.sub(r"<[^>]+>", " ", text) if kind == "text/html" else text
    return ""


def snippet(message: EmailMessage) -> str:
    """The start of the text, whitespace collapsed, HTML-escaped as Gmail's snippets are."""
    text = " ".join(body_text(message).split())[:SNIPPET_LENGTH]
    return html.escape(text).replace("&#x27;", "&#39;")


def headers_json(part: EmailMessage, only: list[str] | None = None) -> list[dict]:
    wanted = {n.lower() for n in only} if only else None
    return [{"name": name, "value": re.sub(r"\r?\n[ \t]*", " ", str(value))} for name, value in part.items()
            if wanted is None or name.lower() in wanted]


def part_json(part: EmailMessage, message_id: str, part_id: str = "") -> dict:
    """Gmail's MessagePart: leaves carry their bytes (base64url) or, as attachments, an id."""
    body: dict = {"size": 0}
    if not part.is_multipart():
        data = _leaf_bytes(part)
        body = {"size": len(data)}
        if _is_attachment(part):
            body["attachmentId"] = attachment_id(message_id, part_id)
        elif data:
            body["data"] = encode(data)
    answer = {"partId": part_id, "mimeType": part.get_content_type(), "filename": part.get_filename() or "",
              "headers": headers_json(part), "body": body}
    if part.is_multipart():
        answer["parts"] = [part_json(child, message_id, f"{part_id}.{i}" if part_id else str(i))
                           for i, child in enumerate(part.iter_parts())]  # type: ignore[arg-type]
    return answer


def metadata_json(message: EmailMessage, only: list[str] | None) -> dict:
    """The `metadata` format's payload: the top part's headers (those asked for), no bodies."""
    return {"partId": "", "mimeType": message.get_content_type(), "filename": "",
            "headers": headers_json(message, only), "body": {"size": 0}}
