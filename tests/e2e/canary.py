"""A listener that plays "the internet": it records every TCP connection and DNS query.

Tests aim denied traffic at it and assert it saw nothing, after first showing that it
does see traffic aimed at it directly (so the assertion can fail).
"""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from dataclasses import dataclass, field


@dataclass
class Canary:
    host: str = "127.0.0.1"
    seen: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        canary = self

        class Tcp(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                canary.seen.append(f"tcp from {self.client_address}")

        class Udp(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                canary.seen.append(f"udp from {self.client_address}")

        self.tcp = socketserver.ThreadingTCPServer((self.host, 0), Tcp)
        self.udp = socketserver.ThreadingUDPServer((self.host, 0), Udp)
        self.port = self.tcp.server_address[1]
        self.udp_port = self.udp.server_address[1]
        for server in (self.tcp, self.udp):
            threading.Thread(target=server.serve_forever, daemon=True).start()

    def probe(self) -> int:
        """Touch the canary directly and return how much it recorded (proves it records)."""
        before = len(self.seen)
        socket.create_connection((self.host, self.port), timeout=2).close()
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(b"probe", (self.host, self.udp_port))
        deadline = time.monotonic() + 5
        while len(self.seen) < before + 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        return len(self.seen) - before

    def close(self) -> None:
        for server in (self.tcp, self.udp):
            server.shutdown()
            server.server_close()


def dns_answer(query: bytes, address: str) -> bytes:
    """Answer any question with one A record, so a resolver that asks will go on to connect."""
    header = query[:2] + b"\x81\x80" + query[4:6] + query[4:6] + b"\x00\x00\x00\x00"
    question = query[12:]
    answer = b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04" + socket.inet_aton(address)
    return header + question + answer


def serve_forever(dns: str, tcp_ports: list[int], log_path: str) -> None:
    """Run inside a namespace: a DNS server on `dns` and TCP listeners on 127.0.0.1."""
    log = open(log_path, "a", buffering=1)

    class Dns(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            data, sock = self.request
            log.write(f"dns query from {self.client_address}\n")
            sock.sendto(dns_answer(data, "127.0.0.1"), self.client_address)

    class Tcp(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            log.write(f"tcp to {self.server.server_address} from {self.client_address}\n")

    host, port = dns.rsplit(":", 1)
    servers = [socketserver.ThreadingUDPServer((host, int(port)), Dns)]
    servers += [socketserver.ThreadingTCPServer(("127.0.0.1", p), Tcp) for p in tcp_ports]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    log.write("ready\n")
    threading.Event().wait()


if __name__ == "__main__":
    import sys

    serve_forever(sys.argv[1], [int(p) for p in sys.argv[2].split(",")], sys.argv[3])
