"""Audit records: one per request the proxy sees, and one per connection that never made a
request it could see (rejected by its protocol layer, a failed TLS handshake, a CONNECT and
then silence). The proxy writes them and everything else reads them through this module.

Records live in a folder per environment (`_unattributed` for connections that named none),
as numbered segments of JSON lines: reading one environment costs what it holds, a segment
that grows past its size starts the next, and the oldest go beyond a count. Each line is
written whole, in one append, before the client sees the answer it records: a kill -9 of the
proxy loses no record of an answered request, and several proxy workers can append to the
same segment without interleaving.

An environment's records form a hash chain: each carries `prev`, the SHA-256 of the line
before it (across segments), written under a lock the workers share, so an edited, removed
or reordered record breaks the chain where it stands (audit_verify.py finds it).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from detour_core.model_routes import ModelCall

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


class McpCall(BaseModel):
    """What a record says of a call to a vendor's hosted MCP server (proxy_addons/mcp_calls.py):
    the JSON-RPC method, and the tool a `tools/call` names."""

    method: str
    tool: str | None = None


class Delivery(BaseModel):
    """What a record says of an event detour delivered into a sandbox (a webhook's POST to the
    listener the agent registered: proxy_addons/event_delivery.py), which the agent did not ask."""

    queue: str        # whose deliveries: `stripe.endpoint:we_...`, `github.hook:3`
    id: str           # the delivery's (the same on each attempt)
    event: str        # the vendor's event type: `invoice.paid`, `push`, `Issue`
    attempt: int = 0  # 0 the first time, then each retry's number


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
    rule: str | None = None     # the policy rule that decided, as `rule N: deny POST host/path`
    secrets: list[str] | None = None       # secrets whose values the proxy put in (names only)
    placeholders: list[str] | None = None  # secrets whose placeholders went elsewhere, unswapped
    scrubbed: list[str] | None = None      # secrets whose values the answer carried, turned back
    unchecked: list[str] | None = None     # secrets an answer passed without being checked for
    fault: str | None = None               # the policy's fault that hit it: `fault 2: rate_limited POST ...`
    model_call: ModelCall | None = None    # a model vendor's call a model route took (detour_core.model_routes)
    findings: list[str] | None = None      # credentials a request to an allowed host carried (kinds, never values)
    mcp_call: McpCall | None = None        # a hosted MCP server's JSON-RPC call (its method and tool)
    delivery: Delivery | None = None       # an event POSTed into the sandbox, not a request of the agent's


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
    websocket: Literal["sent", "received"] | None = None  # a WebSocket message's way (method "WS")
    request: Message | None = None
    response: Message | None = None
    prev: str | None = None     # SHA-256 of the line before this one in its environment's log

    def model_post_init(self, _) -> None:
        if not self.id:
            self.id = os.urandom(8).hex()  # 16 random hex digits


def iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _segment_name(number: int) -> str:
    return f"{number:06d}.jsonl"


def segment_file(folder: Path, number: int) -> Path:
    return folder / _segment_name(number)


def segments(folder: Path) -> list[int]:
    """An environment's segment numbers, oldest first."""
    return sorted(int(p.stem) for p in folder.glob("*.jsonl") if p.stem.isdigit()) if folder.is_dir() else []


def link(line: bytes) -> str:
    """What the next record's `prev` holds: the hash of this line as written (no newline)."""
    return hashlib.sha256(line.rstrip(b"\n")).hexdigest()


def last_line(path: Path) -> bytes | None:
    """A segment's last whole line, read from its end."""
    with path.open("rb") as f:
        end = f.seek(0, os.SEEK_END)
        block, data = 65536, b""
        while end > 0:
            start = max(0, end - block)
            f.seek(start)
            data = f.read(end - start) + data
            end = start
            lines = data.rstrip(b"\n").rsplit(b"\n", 1)
            if len(lines) == 2 or end == 0:
                return lines[-1] or None
    return None


class AuditWriter:
    """The proxy's side: appends each record to its environment's newest segment, chained to
    the record before it. Workers take turns through a lock file per environment (`.<env>.lock`
    beside its folder)."""

    def __init__(self, root: Path, segment_bytes: int = SEGMENT_BYTES, kept: int = SEGMENTS_KEPT) -> None:
        self.root = root
        self.segment_bytes = segment_bytes
        self.kept = kept
        self.files: OrderedDict[Path, tuple[int, int, int]] = OrderedDict()  # folder -> (segment, fd, lock fd)
        self.tails: dict[Path, tuple[int, int, str]] = {}  # folder -> (segment, size, link) after our last write
        self.folders: dict[str, Path] = {}  # the open ones' by name: one Path each, not one per record

    def write(self, record: AuditRecord) -> None:
        name = record.env_id or UNATTRIBUTED
        folder = self.folders.get(name) or self.root / name
        number, fd, lock = self._open(folder)
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if os.path.exists(f"{folder}/{_segment_name(number + 1)}"):  # another worker moved on
                number, fd = self._switch(folder, max(segments(folder)))
            size = os.fstat(fd).st_size  # the file's, with what other workers appended
            record.prev = self._tail(folder, number, size)
            line = (record.model_dump_json(exclude_none=True) + "\n").encode()
            if size and size + len(line) > self.segment_bytes:
                number, fd = self._switch(folder, number + 1)
                size = 0
                self._prune(folder)
            os.write(fd, line)  # O_APPEND: one write of a whole line lands whole, at the end
            self.tails[folder] = (number, size + len(line), link(line))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)

    def _tail(self, folder: Path, number: int, size: int) -> str | None:
        """The link to the last record written, ours or another worker's."""
        cached = self.tails.get(folder)
        if cached and cached[:2] == (number, size):
            return cached[2]
        for older in reversed([n for n in segments(folder) if n <= number]):
            line = last_line(folder / _segment_name(older))
            if line:
                return link(line)
        return None

    def _open(self, folder: Path) -> tuple[int, int, int]:
        if folder in self.files:
            self.files.move_to_end(folder)
            return self.files[folder]
        folder.mkdir(parents=True, exist_ok=True)
        numbers = segments(folder)
        lock = os.open(folder.parent / f".{folder.name}.lock", os.O_RDWR | os.O_CREAT, 0o644)  # beside, not in it
        return self._keep(folder, numbers[-1] if numbers else 1, lock)

    def _keep(self, folder: Path, number: int, lock: int) -> tuple[int, int, int]:
        entry = (number, os.open(folder / _segment_name(number), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644), lock)
        self.files[folder] = entry
        self.folders[folder.name] = folder
        while len(self.files) > OPEN_FILES:
            old, (_, old_fd, old_lock) = self.files.popitem(last=False)
            self.tails.pop(old, None)
            self.folders.pop(old.name, None)
            os.close(old_fd)
            os.close(old_lock)
        return entry

    def _switch(self, folder: Path, number: int) -> tuple[int, int]:
        """To segment `number` (under the lock, so no worker writes to an older one after it)."""
        _, fd, lock = self.files[folder]
        os.close(fd)
        self.files[folder] = (number, os.open(folder / _segment_name(number),
                                              os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644), lock)
        return self.files[folder][:2]

    def _prune(self, folder: Path) -> None:
        for old in segments(folder)[:-self.kept]:
            (folder / _segment_name(old)).unlink(missing_ok=True)

    def close(self) -> None:
        for _, fd, lock in self.files.values():
            os.close(fd)
            os.close(lock)
        self.files.clear()
        self.folders.clear()


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
        numbers = segments(self.folder(env_id))
        if not numbers:
            return (1, 0)
        return (numbers[-1], (self.folder(env_id) / _segment_name(numbers[-1])).stat().st_size)

    def read(self, env_id: str | None, since: Position = (0, 0)) -> tuple[list[AuditRecord], Position]:
        """Records at or after `since`, and the position to resume from (a line still being
        written is left for the next read)."""
        folder = self.folder(env_id)
        records: list[AuditRecord] = []
        position = since
        for number in segments(folder):
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
