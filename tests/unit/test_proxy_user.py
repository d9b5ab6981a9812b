"""Where a proxy under its own user may connect (detour/proxy_user.py); what it does is
tests/e2e/test_proxy_user.py's."""

import tempfile
from pathlib import Path

from detour.proxy_user import nft_elements, nft_table, proxy_destinations, socket_closed_to_others


def test_the_proxy_opens_its_replicas_its_upstream_addresses_and_its_database():
    opened = proxy_destinations("127.0.0.1:8000", {"api.partner.test": "10.214.3.2", "v6.test": "[::1]"},
                                "postgresql://u:p@127.0.0.1:5433/detour")
    assert {a: sorted(p) for a, p in opened.items()} == {"127.0.0.1": [5433, 8000], "10.214.3.2": [80, 443],
                                                          "::1": [80, 443]}
    assert nft_elements(opened) >= {("opened4", "127.0.0.1 . 8000"), ("opened6", "::1 . 443")}


def test_its_table_answers_only_its_own_packets_and_refuses_the_rest():
    table = nft_table(500123)
    assert "meta skuid != 500123 accept" in table and table.rstrip().endswith("}")
    lines = [line.strip() for line in table.splitlines()]
    refusals = [n for n, line in enumerate(lines) if "reject" in line]
    assert lines.index("tcp dport { 80, 443 } accept") > refusals[0]  # loopback and link-local first
    assert lines[-3] == "reject"


def test_a_postgres_socket_in_a_folder_others_may_not_pass_is_told_apart():
    """There the proxy keeps the stack's user (its own could not connect); over TCP, or in a
    folder any uid passes (Debian's /var/run/postgresql), it runs as its own."""
    with tempfile.TemporaryDirectory(dir="/tmp") as top:  # pytest's own folders are closed ones
        open_, closed = Path(top), Path(top) / "closed"
        open_.chmod(0o755)
        closed.mkdir(mode=0o700)
        assert socket_closed_to_others(f"postgresql://postgres@/t_1?host={closed}")
        assert not socket_closed_to_others(f"postgresql://postgres@/t_1?host={open_}")
    assert not socket_closed_to_others("postgresql://u@127.0.0.1:5432/detour")
    assert not socket_closed_to_others("postgresql://u@/detour?host=db.internal")
    assert not socket_closed_to_others(None)
