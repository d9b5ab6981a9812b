"""mitmproxy's share of a tunnel the fast path began (fast_tunnel.py): what its regular-mode handler
reads the tunnel's requests from, and what it writes its answers to, over the tunnel's TLS."""

from __future__ import annotations

import asyncio
from collections import deque

HELD_BYTES = 1024 * 1024  # unread by mitmproxy, at most, before the tunnel stops reading


class Pipe:
    """What mitmproxy's handler reads a relayed tunnel from (it calls only `read`): bytes as the
    tunnel hands them over, and a feeder that waits while more than HELD_BYTES are unread, so a
    large body is never held whole; it stops waiting once mitmproxy's handler has ended."""

    def __init__(self) -> None:
        self.chunks: deque[bytes] = deque()
        self.size, self.ended = 0, False
        self.readable, self.room = asyncio.Event(), asyncio.Event()
        self.room.set()

    def feed(self, data: bytes) -> None:
        if data:
            self.chunks.append(data)
            self.size += len(data)
            self.readable.set()
            if self.size > HELD_BYTES:
                self.room.clear()

    def end(self) -> None:
        self.ended = True
        self.readable.set()

    def closed(self) -> None:
        """mitmproxy's handler is done: nothing waits for it to read any more."""
        self.chunks.clear()
        self.room.set()

    async def read(self, n: int = -1) -> bytes:
        while not self.chunks and not self.ended:
            self.readable.clear()
            await self.readable.wait()
        if not self.chunks:
            return b""
        data = self.chunks.popleft()
        if 0 < n < len(data):
            self.chunks.appendleft(data[n:])
            data = data[:n]
        self.size -= len(data)
        if self.size <= HELD_BYTES:
            self.room.set()
        return data

    async def drained(self) -> None:
        await self.room.wait()


class RelayWriter:
    """mitmproxy's side of a relayed tunnel: what it writes goes out over the tunnel's TLS (held
    back while answers the fast path owes go first), and it sees the sandbox's own address."""

    def __init__(self, writer: asyncio.StreamWriter, peer: tuple, sockname: tuple) -> None:
        self.writer, self.names = writer, {"peername": peer, "sockname": sockname, "transport_protocol": "tcp"}
        self.held: list[bytes] | None = []  # None once released

    def release(self) -> None:
        if self.held is not None:
            self.writer.writelines(self.held)
            self.held = None

    def write(self, data: bytes) -> None:
        if self.held is None:
            self.writer.write(data)
        else:
            self.held.append(data)

    async def drain(self) -> None:
        if self.held is None:
            await self.writer.drain()

    def is_closing(self) -> bool:
        return self.writer.is_closing()

    def close(self) -> None:
        self.release()
        self.writer.close()

    def write_eof(self) -> None:  # TLS has no half-close
        self.close()

    def get_extra_info(self, name: str, default=None):
        return self.names[name] if name in self.names else self.writer.get_extra_info(name, default)
