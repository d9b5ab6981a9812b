"""The resolver namespace sandboxes use: every name resolves to the proxy.

Each A query is answered with the host side of the asking sandbox's veth, where the proxy
listens; AAAA and everything else get an empty answer. Nothing is ever forwarded, so a
sandbox's lookups never leave the machine. (mitmproxy's dns mode drops about 1% of
queries that arrive over a veth, hence a resolver of our own.)

    python -m sandbox.dns 127.0.0.1 5353
"""

from __future__ import annotations

import sys
import threading

from dnslib import QTYPE, RR, A
from dnslib.server import BaseResolver, DNSLogger, DNSServer

from sandbox.addressing import host_for_sandbox

TTL = 5


class ProxyResolver(BaseResolver):
    def resolve(self, request, handler):
        reply = request.reply()
        address = host_for_sandbox(handler.client_address[0])
        if request.q.qtype == QTYPE.A and address:
            reply.add_answer(RR(request.q.qname, QTYPE.A, rdata=A(address), ttl=TTL))
        return reply


def serve(host: str, port: int) -> list[DNSServer]:
    quiet = DNSLogger(log="-request,-reply,-truncated,-error", prefix=False)
    servers = [DNSServer(ProxyResolver(), address=host, port=port, tcp=tcp, logger=quiet) for tcp in (False, True)]
    for server in servers:
        server.start_thread()
    return servers


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]))
    threading.Event().wait()
