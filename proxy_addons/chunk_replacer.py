"""Text replaced in a body, whole or streaming through the proxy chunk by chunk: the placeholders
of a streamed upload (secret_injection) and a secret's values in an answer (answer_scrubbing).

Every needle is one alternative of a single regular expression, so a body is read once however
many there are. A needle may straddle two chunks, so a chunk's last bytes wait for the next where
they could begin one (the `regex` module's partial matching says where); the rest goes on at
once, so a streamed answer's event is not held back for the next (a model's first words among
them). The end of the body lets them go.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

import regex

from detour_core.secret_encodings import Form


class Needle(NamedTuple):
    form: Form
    name: str      # the secret it belongs to, told to `found`
    replace: bool  # False: only noticed, left as it is


class ChunkReplacer:
    def __init__(self, needles: list[Needle], found: Callable[[str, bool], None]) -> None:
        self.needles = sorted(needles, key=lambda n: -n.form.size)  # a longer form before its parts
        self.regex = re.compile(b"|".join(b"(%s)" % n.form.pattern for n in self.needles) or b"(?!)")
        self.partial = regex.compile(self.regex.pattern)  # the same, for where a match may begin
        self.found = found  # (name, replaced)
        self.keep = max((n.form.size for n in needles), default=1) - 1
        self.held = b""

    def _one(self, match: re.Match) -> bytes:
        needle = self.needles[match.lastindex - 1]
        self.found(needle.name, needle.replace)
        return needle.form.replace(match.group(0)) if needle.replace else match.group(0)

    def _absent(self, data: bytes) -> bool:
        """No needle's fixed middle is there: a plain search per needle, far quicker than the
        regular expression, which runs only where one is."""
        return not any(needle.form.core in data for needle in self.needles)

    def whole(self, data: bytes) -> bytes:
        """`data` with every needle replaced: a body read whole, or a header's value."""
        return data if self._absent(data) else self.regex.sub(self._one, data)

    def feed(self, chunk: bytes, end: bool = False) -> bytes:
        """What may be sent of what has come so far; everything left once `end` is true."""
        data = self.held + chunk
        if end:
            self.held = b""
            return self.whole(data)
        cut = max(0, len(data) - self.keep)  # a match that starts before it fits whole in `data`
        out, last = [], 0
        for match in () if self._absent(data) else self.regex.finditer(data):
            if match.start() >= cut:
                break
            out += [data[last:match.start()], self._one(match)]
            last = match.end()
        begins = self.partial.search(data, max(cut, last), partial=True)  # whole or cut off by the chunk's end
        cut = begins.start() if begins else len(data)
        out.append(data[last:cut])
        self.held = data[cut:]
        return b"".join(out)

    def __call__(self, chunk: bytes) -> list[bytes]:
        """mitmproxy's `stream` callable: an empty chunk is the end, and none is returned empty
        (an empty chunk sent would end a chunked body early)."""
        data = self.feed(chunk, end=not chunk)
        return [data] if data else []
