"""Files' bytes: kept in the environment's database (its `blobs`, by SHA-1, as Box keeps
them), read through to the built-in template's `contents/` folder for what the seed holds;
and the conversions Drive makes between a Google Doc and the formats it exports to.

A Google Doc's source is its HTML export (a spreadsheet's, its CSV): export to HTML gives it
back, export to text reads the text out of it."""

from __future__ import annotations

import hashlib
import html
from html.parser import HTMLParser

from mock_services import blobs
from mock_services.drive.pack import PACK
from mock_services.rest.errors import RestError
from mock_services.store import EnvState

SEEDED = PACK.templates / "contents"

FOLDER = "application/vnd.google-apps.folder"
DOCUMENT = "application/vnd.google-apps.document"
SPREADSHEET = "application/vnd.google-apps.spreadsheet"
PRESENTATION = "application/vnd.google-apps.presentation"
GOOGLE_PREFIX = "application/vnd.google-apps."
# What each Docs Editors type exports to here (Google offers more: PDF, Office formats, ...).
EXPORTS = {DOCUMENT: ("text/plain", "text/html"), SPREADSHEET: ("text/csv",), PRESENTATION: ("text/plain",)}
# What an upload may be converted from, into each type (the media's type, as Drive imports it).
IMPORTS = {DOCUMENT: ("text/plain", "text/html"), SPREADSHEET: ("text/csv",), PRESENTATION: ("text/plain",)}
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript")


def is_google_type(mime_type: str) -> bool:
    return mime_type.startswith(GOOGLE_PREFIX)


def is_text(mime_type: str) -> bool:
    return mime_type.startswith(TEXT_TYPES) or mime_type in EXPORTS


def read(state: EnvState, sha1: str | None) -> bytes | None:
    return blobs.read(state, sha1, SEEDED)


def keep(state: EnvState, data: bytes) -> str:
    """Store `data`; its SHA-1, which names it."""
    return blobs.keep(state, data, SEEDED)


def digests(data: bytes) -> dict[str, str]:
    """The checksums Drive reports for a binary file's contents (facts of the bytes, kept with them)."""
    return {"sha1": hashlib.sha1(data, usedforsecurity=False).hexdigest(),
            "md5": hashlib.md5(data, usedforsecurity=False).hexdigest(), "sha256": hashlib.sha256(data).hexdigest()}


class _Text(HTMLParser):
    BREAKS = {"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "title"}

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("style", "script", "head"):
            self.skipping += 1
        elif tag in self.BREAKS and self.parts and not self.parts[-1].endswith("\n"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script", "head"):
            self.skipping = max(0, self.skipping - 1)
        elif tag in self.BREAKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def html_to_text(source: str) -> str:
    reader = _Text()
    reader.feed(source)
    lines = [" ".join(line.split()) for line in "".join(reader.parts).splitlines()]
    return "\n".join(line for line in lines if line) + "\n"


def text_to_html(text: str, title: str) -> str:
    paragraphs = "".join(f"<p>{html.escape(line)}</p>" for line in text.splitlines() if line.strip())
    return f"<html><head><title>{html.escape(title)}</title></head><body>{paragraphs}</body></html>"


def imported(google_type: str, media_type: str, data: bytes, name: str) -> bytes:
    """Media uploaded into a Docs Editors type, as that type's source (Drive converts on upload)."""
    if media_type.split(";")[0].strip() not in IMPORTS.get(google_type, ()):
        raise RestError(400, "badRequest", f"Conversion from {media_type} to {google_type} is not supported.")
    if google_type == DOCUMENT and media_type.startswith("text/plain"):
        return text_to_html(data.decode("utf-8", "replace"), name).encode()
    return data


def exported(google_type: str, source: bytes, target: str) -> bytes:
    if google_type not in EXPORTS:
        raise RestError(403, "fileNotExportable", "Export only supports Docs Editors files.")
    if target not in EXPORTS[google_type]:
        raise RestError(400, "badRequest", "The requested conversion is not supported.")
    if google_type == DOCUMENT and target == "text/plain":
        return html_to_text(source.decode("utf-8", "replace")).encode()
    return source


def searchable(state: EnvState, mime_type: str, sha1: str | None) -> str:
    """The text fullText reads from a file's contents (text files and Docs Editors files)."""
    if not sha1 or not is_text(mime_type):
        return ""
    data = read(state, sha1) or b""
    text = data[:1_000_000].decode("utf-8", "replace")
    return html_to_text(text) if mime_type == DOCUMENT else text
