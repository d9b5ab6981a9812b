"""Where a proxy under its own user may connect (detour/proxy_user.py); what it does is
tests/e2e/test_proxy_user.py's."""

import os
import tempfile
from pathlib import Path

import pytest

from detour.proxy_egress import HOSTS_MARK, hosts_text, nft_elements, nft_table, off_machine, passes_through, \
    proxy_destinations
from detour import proxy_user
from detour.proxy_user import socket_closed_to_others
from detour_core.policy import Policy


def test_the_proxy_always_opens_its_replicas_and_its_database_and_no_upstream():
    assert proxy_destinations("127.0.0.1:8000", "postgresql://u:p@127.0.0.1:5433/detour") == {"127.0.0.1": [8000, 5433]}
    assert proxy_destinations("replicas:8000", "postgresql://u@/detour") == {"replicas": [8000], "localhost": [5432]}
    assert nft_elements({"127.0.0.1": [8000], "::1": [443]}) == {("opened4", "127.0.0.1 . 8000"), ("opened6", "::1 . 443")}


def test_its_table_answers_only_its_own_packets_and_opens_no_port_to_every_address():
    table = nft_table(500123)
    assert "meta skuid != 500123 accept" in table and table.rstrip().endswith("}")
    lines = [line.strip() for line in table.splitlines()]
    assert not [line for line in lines if "dport" in line and "daddr" not in line]  # no port open to all
    assert "udp" not in table and "{ 53 }" not in table  # nor the resolvers: it resolves nothing itself
    assert lines[-3] == "reject"


def test_its_hosts_file_is_the_machine_s_and_the_names_the_stack_resolved():
    text = hosts_text({"replicas": ["10.0.0.5"], "models.internal": ["10.0.0.6", "fd00::6"]})
    own = text.split(HOSTS_MARK + "\n")[1].splitlines()
    assert own == ["10.0.0.6 models.internal", "fd00::6 models.internal", "10.0.0.5 replicas"]
    assert text.startswith(Path("/etc/hosts").read_text().rstrip("\n"))


def test_a_name_opens_its_addresses_only_where_a_policy_passes_it_through_and_they_lie_beyond_the_machine():
    policy = Policy.model_validate({"allow": ["api.partner.test", "*.models.test"], "models": [
        {"host": "api.openai.com", "base_url": "http://127.0.0.1:9/v1"}, {"host": "api.anthropic.com", "vendor": True}]})
    assert [passes_through(policy, host, port) for host, port in [
        ("api.partner.test", 443), ("EU.models.test.", 80), ("models.test", 443), ("api.partner.test", 8443),
        ("api.anthropic.com", 443), ("api.openai.com", 443), ("10.214.3.2", 443), ("slack.com", 443)]] == [
        True, True, False, False, True, False, False, False]
    assert [off_machine(a) for a in ("93.184.216.34", "10.214.3.2", "2606:4700::1")] == [True, True, True]
    assert not any(off_machine(a) for a in ("127.0.0.1", "::1", "169.254.169.254", "fe80::1", "10.213.0.6",
                                            "::ffff:93.184.216.34", "0.0.0.0", "224.0.0.1"))


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


def test_the_root_side_opens_a_passed_through_name_s_addresses_beyond_the_machine_and_closes_them_with_the_policy(
        tmp_path, monkeypatch):
    """ProxyEgress with nft and DNS stood in for: what it adds to and deletes from the table."""
    from subprocess import CompletedProcess

    from detour import proxy_egress
    from detour_core.policy import save_policy
    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(proxy_egress, "nft", lambda *words, script=None: calls.append(words) or CompletedProcess(words, 0))
    monkeypatch.setattr(proxy_egress, "_addresses", lambda host, port: {
        "eu.partner.test": ["127.0.0.1", "93.184.216.34", "2606:2800::1"]}.get(host, []))
    save_policy(tmp_path / "env.json", Policy(allow=["*.partner.test"]))
    egress = proxy_egress.ProxyEgress(500123, {}, tmp_path, False, {"mapped.partner.test": "127.0.0.9"},
                                      tmp_path / "hosts")
    try:
        assert egress.open("EU.partner.test", 443) == ["93.184.216.34", "2606:2800::1"]  # not the loopback answer
        assert egress.open("mapped.partner.test", 443) == ["127.0.0.9"]  # the stack's own mapping, as given
        for refused in [("evil.test", 443), ("eu.partner.test", 8443), ("93.184.216.34", 443)]:
            with pytest.raises(PermissionError):
                egress.open(*refused)
        added = {w[-1] for w in calls if w[:2] == ("add", "element")}
        assert added == {"{ 93.184.216.34 . 443 }", "{ 2606:2800::1 . 443 }", "{ 127.0.0.9 . 443 }"}
        save_policy(tmp_path / "env.json", Policy())
        egress.seen = None  # as the watcher finds the folder changed
        egress.refresh()
        deleted = {w[-1] for w in calls if w[:2] == ("delete", "element")}
        assert deleted == added and egress.elements == set()
    finally:
        egress.close(alone=False)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving files to another group needs root")
def test_files_gone_while_the_environments_are_opened_to_the_proxy_s_group_are_passed_over(tmp_path, monkeypatch):
    """A stack started while another closes its last connection to an environment (SQLite removes
    the -wal and -shm files then): the listing names files that are gone by the time of the chown."""
    kept = tmp_path / "env-1.sqlite"
    kept.write_text("")
    listing = [(str(tmp_path), ["env-2"], ["env-1.sqlite-shm", "env-1.sqlite"]), (str(tmp_path / "env-2"), [], ["x"])]
    monkeypatch.setattr(proxy_user.os, "walk", lambda folder: iter(listing))
    proxy_user._group_readable(tmp_path, 54321, writable=True)
    assert (kept.stat().st_gid, kept.stat().st_mode & 0o770) == (54321, 0o660)
