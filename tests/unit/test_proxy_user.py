"""Where a proxy under its own user may connect (detour/proxy_user.py); what it does is
tests/e2e/test_proxy_user.py's."""

from detour.proxy_user import nft_elements, nft_table, over_unix_socket, proxy_destinations


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


def test_a_postgres_over_a_unix_socket_is_told_from_one_over_tcp():
    """Over a socket the proxy keeps the stack's user (the socket's folder is the server's own)."""
    assert over_unix_socket("postgresql://postgres@/t_1?host=/tmp/pg/socket")
    assert over_unix_socket("postgresql://postgres@/detour")  # libpq's default socket
    assert not over_unix_socket("postgresql://u@127.0.0.1:5432/detour")
    assert not over_unix_socket("postgresql://u@/detour?host=db.internal")
    assert not over_unix_socket(None)
