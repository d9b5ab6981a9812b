"""Audit records: one per request the proxy sees, and one per connection that never made a
request it could see (rejected by its protocol layer, a failed TLS handshake, a CONNECT and
then silence). The proxy writes them and everything else reads them through this module.

Records live in a folder per environment (`_unattributed` for connections that named none),
as numbered segments of JSON lines: reading one environment costs what it holds, a segment
that grows past its size starts the next, and the oldest go beyond a count. Each line is
written whole, in one append, before the client sees the answer it records: a kill -9 of the
proxy loses no record of an answered request, and several proxy workers can append to the
same segment without interleaving.
"""

from __future__ import annotations

import json
import os
import uuid
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

Decision = Literal["routed", "allowed", "denied", "unauthorized"]
UNATTRIBUTED = "_unattributed"
SEGMENT_BYTES = 64 * 1024 * 1024
SEGMENTS_KEPT = 8
OPEN_FILES = 64

Position = tuple[int, int]  # (segment number, byte offset): where a reader resumes


class Message(BaseModel):
    """A request's or an answer's headers and (when captured) body, redacted before writing."""

    headers: list[tuple[str, str]]
    body: str | None = None
    encoding: Literal["base64"] | None = None  # bodies that are not UTF-8 text
    size: int = 0                              # the body's full size, before any truncation
    truncated: bool = False


class Verdict(BaseModel):
    """What the proxy decided about a request (or a connection): the addons fill it in as they
    decide, and it becomes the decision part of the request's record, field for field."""

    decision: Decision
    env_id: str | None = None
    host: str
    port: int
    scheme: str
    path: str
    service: str | None = None
    reason: str | None = None


class AuditRecord(Verdict):
    """A verdict with what happened around it: who asked, how, and what came back."""

    id: str = ""
    ts: str                     # when the request (or the connection) began
    client: str
    mode: str
    method: str                 # "-" for a connection without a request
    status: int | None = None
    duration_ms: float
    request_bytes: int
    response_bytes: int
    http_version: str | None = None
    request: Message | None = None
    response: Message | None = None

    def model_post_init(self, _) -> None:
        if not self.id:
            self.id = uuid.uuid4().hex[:16]


def iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _segment_name(number: int) -> str:
    return f"{number:06d}.jsonl"


def _segments(folder: Path) -> list[int]:
    return sorted(int(p.stem) for p in folder.glob("*.jsonl") if p.stem.isdigit()) if folder.is_dir() else []


class AuditWriter:
    """The proxy's side: appends each record to its environment's newest segment."""

    def __init__(self, root: Path, segment_bytes: int = SEGMENT_BYTES, kept: int = SEGMENTS_KEPT) -> None:
        self.root = root
        self.segment_bytes = segment_bytes
        self.kept = kept
        self.files: OrderedDict[Path, tuple[int, int]] = OrderedDict()  # folder -> (segment, fd)

    def write(self, record: AuditRecord) -> None:
        folder = self.root / (record.env_id or UNATTRIBUTED)
        line = (record.model_dump_json(exclude_none=True) + "\n").encode()
        number, fd = self._open(folder)
        size = os.fstat(fd).st_size  # the file's, with what other workers appended
        if size and size + len(line) > self.segment_bytes:
            number, fd = self._rotate(folder, number)
        os.write(fd, line)  # O_APPEND: one write of a whole line lands whole, at the end

    def _open(self, folder: Path) -> tuple[int, int]:
        if folder in self.files:
            self.files.move_to_end(folder)
            return self.files[folder]
        folder.mkdir(parents=True, exist_ok=True)
        numbers = _segments(folder)
        return self._keep(folder, numbers[-1] if numbers else 1)

    def _keep(self, folder: Path, number: int) -> tuple[int, int]:
        entry = (number, os.open(folder / _segment_name(number), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644))
        self.files[folder] = entry
        while len(self.files) > OPEN_FILES:
            os.close(self.files.popitem(last=False)[1][1])
        return entry

    def _rotate(self, folder: Path, number: int) -> tuple[int, int]:
        """Another worker may have started the next segment already: then this one joins it."""
        os.close(self.files.pop(folder)[1])
        newest = max(_segments(folder), default=number)
        entry = self._keep(folder, newest if newest > number else number + 1)
        for old in _segments(folder)[:-self.kept]:
            (folder / _segment_name(old)).unlink(missing_ok=True)
        return entry

    def close(self) -> None:
        for _, fd in self.files.values():
            os.close(fd)
        self.files.clear()


class AuditLog:
    """The readers' side: the CLI, runs, the live view, exports."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def folder(self, env_id: str | None) -> Path:
        return self.root / (env_id or UNATTRIBUTED)

    def environments(self) -> list[str | None]:
        if not self.root.is_dir():
            return []
        return sorted((None if p.name == UNATTRIBUTED else p.name for p in self.root.iterdir() if p.is_dir()),
                      key=lambda e: e or "")

    def end(self, env_id: str | None) -> Position:
        """Where records written from now on will start."""
        numbers = _segments(self.folder(env_id))
        if not numbers:
            return (1, 0)
        return (numbers[-1], (self.folder(env_id) / _segment_name(numbers[-1])).stat().st_size)

    def read(self, env_id: str | None, since: Position = (0, 0)) -> tuple[list[AuditRecord], Position]:
        """Records at or after `since`, and the position to resume from (a line still being
        written is left for the next read)."""
        folder = self.folder(env_id)
        records: list[AuditRecord] = []
        position = since
        for number in _segments(folder):
            if number < since[0]:
                continue
            offset = since[1] if number == since[0] else 0
            with (folder / _segment_name(number)).open("rb") as f:
                f.seek(offset)
                for line in f:
                    if not line.endswith(b"\n"):
                        break
                    offset += len(line)
                    records.append(AuditRecord.model_validate(json.loads(line)))
            position = (number, offset)
        return records, position

    def all(self) -> list[AuditRecord]:
        """Every environment's records, in the order their requests began."""
        records = [r for env in self.environments() for r in self.read(env)[0]]
        return sorted(records, key=lambda r: r.ts)

    def find(self, env_id: str | None, record_id: str) -> AuditRecord | None:
        return next((r for r in self.read(env_id)[0] if r.id == record_id), None)
