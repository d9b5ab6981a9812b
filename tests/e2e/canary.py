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


def serve_forever(log_path: str, dns: list[str], tcp: list[str], udp: list[str], icmp: bool) -> None:
    """Run inside a namespace: log every DNS query, TCP connection, UDP datagram and ping."""
    log = open(log_path, "a", buffering=1)

    class Dns(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            data, sock = self.request
            log.write(f"dns query from {self.client_address}\n")
            sock.sendto(dns_answer(data, "127.0.0.1"), self.client_address)

    class Udp(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            log.write(f"udp to {self.server.server_address} from {self.client_address}\n")

    class Tcp(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            log.write(f"tcp to {self.server.server_address} from {self.client_address}\n")

    class Tcp6(socketserver.ThreadingTCPServer):
        address_family = socket.AF_INET6

        def server_bind(self) -> None:
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            super().server_bind()

    class Udp6(socketserver.ThreadingUDPServer):
        address_family = socket.AF_INET6

        def server_bind(self) -> None:
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            super().server_bind()

    def address(spec: str) -> tuple[str, int]:
        host, port = spec.rsplit(":", 1)
        return host.strip("[]"), int(port)

    servers = [socketserver.ThreadingUDPServer(address(a), Dns) for a in dns]
    servers += [(Udp6 if ":" in address(a)[0] else socketserver.ThreadingUDPServer)(address(a), Udp) for a in udp]
    servers += [(Tcp6 if ":" in address(a)[0] else socketserver.ThreadingTCPServer)(address(a), Tcp) for a in tcp]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    if icmp:
        threading.Thread(target=_log_pings, args=(log,), daemon=True).start()
    log.write("ready\n")
    threading.Event().wait()


def _log_pings(log) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP) as raw:
        while True:
            packet, peer = raw.recvfrom(65535)
            if packet[20] == 8:  # echo request
                log.write(f"icmp echo from {peer}\n")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--dns", action="append", default=[])
    parser.add_argument("--tcp", action="append", default=[])
    parser.add_argument("--udp", action="append", default=[])
    parser.add_argument("--icmp", action="store_true")
    args = parser.parse_args()
    serve_forever(args.log, args.dns, args.tcp, args.udp, args.icmp)
