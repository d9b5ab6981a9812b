"""One spelling per host (detour_core.hosts), read the same by policy, routing, rules and records."""

import ipaddress
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from detour_core.hosts import is_address, normal_host
from detour_core.policy import InvalidPolicy, Policy, Rule, build_policy, policy_file, save_policy
from detour_core.registry import is_replicated_host
from tests.unit.test_proxy_addons import addons, authenticated  # noqa: F401 (a fixture)
from proxy_addons.verdict import METADATA_KEY

SPELLINGS = [
    # (as written, its one spelling, an address?)
    ("0177.0.0.1", "127.0.0.1", True), ("127.1", "127.0.0.1", True), ("0x7f.1", "127.0.0.1", True),
    ("0x7F.0.0.0x1", "127.0.0.1", True), ("2130706433", "127.0.0.1", True), ("017700000001", "127.0.0.1", True),
    ("127.0.0.1.", "127.0.0.1", True), ("0", "0.0.0.0", True), ("10.1", "10.0.0.1", True),
    ("[::ffff:127.0.0.1]", "127.0.0.1", True), ("::FFFF:7f00:1", "127.0.0.1", True),
    ("fe80::1%eth0", "fe80::1", True), ("[fe80::1%25eth0]", "fe80::1", True), ("[::1]", "::1", True),
    ("\uff11\uff12\uff17.\uff10.\uff10.\uff11", "127.0.0.1", True),  # full-width digits: UTS #46 maps them
    ("foo.123", "foo.123", True), ("1.2.3.4.5", "1.2.3.4.5", True), ("evil.0x10", "evil.0x10", True),
    ("4294967296", "4294967296", True),
    ("API.Slack.COM.", "api.slack.com", False), ("Bücher.Example", "xn--bcher-kva.example", False),
    ("bücher\u3002example\u3002", "xn--bcher-kva.example", False), ("xn--bcher-kva.example", "xn--bcher-kva.example", False),
    ("0x7f.example", "0x7f.example", False), ("123.example", "123.example", False),
]


@pytest.mark.parametrize("written, normal, address", SPELLINGS)
def test_every_spelling_has_one_form(written, normal, address):
    assert (normal_host(written), is_address(written)) == (normal, address)


@pytest.mark.parametrize("written", [w for w, _, address in SPELLINGS if address] + ["*.0.0.1", "*.foo.123"])
def test_a_policy_naming_an_address_in_any_spelling_is_refused(written):
    with pytest.raises(InvalidPolicy, match="IP address"):
        build_policy(allow=[written])
    with pytest.raises(InvalidPolicy, match="IP address"):
        Rule.parse(f"allow GET {written}/x")


def test_policy_rules_and_registry_read_names_in_their_one_spelling():
    policy = build_policy(allow=["Bücher.Example.", "*.Partner.TEST"], rules=["deny GET PARTNER.test./x"])
    assert policy.allow == ["*.partner.test", "xn--bcher-kva.example"]
    assert policy.allows("XN--BCHER-KVA.example.", 443) and policy.allows("api.partner.test.", 443)
    assert policy.rule_for("partner.TEST.", "GET", "/x") is not None
    assert is_replicated_host("SLACK.com.") and not is_replicated_host("0x7f.1")
    assert not Policy(allow=[]).allows("127.1", 443)


@pytest.mark.parametrize("header", ["0177.0.0.1", "2130706433", "[::ffff:7f00:1]", "[::ffff:7f00:1]:80", "127.1:80",
                                    "::ffff:127.0.0.1"])
def test_a_request_naming_an_address_is_denied_and_recorded_in_its_one_spelling(addons, header):  # noqa: F811
    chain, key, state = addons
    save_policy(policy_file(state, "env-a"), build_policy(allow=["partner.test"]))
    flow = authenticated(chain, key, host="127.0.0.1", port=80, path="/", host_header=header)
    chain[1].requestheaders(flow)
    chain[2].requestheaders(flow)
    assert flow.response.status_code == 403 and "address-only" in json.loads(flow.response.content)["reason"]
    assert flow.metadata[METADATA_KEY].host in ("127.0.0.1",) and flow.request.host == "127.0.0.1"


def test_a_name_in_another_spelling_reaches_what_the_policy_allows(addons):  # noqa: F811
    chain, key, state = addons
    save_policy(policy_file(state, "env-a"), build_policy(allow=["bücher.example"]))
    flow = authenticated(chain, key, host="XN--BCHER-KVA.EXAMPLE.", path="/", sni="xn--bcher-kva.example")
    chain[1].requestheaders(flow)
    chain[2].requestheaders(flow)
    assert flow.response is None and flow.metadata[METADATA_KEY].decision == "allowed"
    assert flow.request.host == "xn--bcher-kva.example"


def spellings(address: ipaddress.IPv4Address) -> st.SearchStrategy[str]:
    """The ways inet_aton reads `address`: 1 to 4 parts (the last one taking the rest of the
    bits), each in decimal, octal or hex, with a trailing dot or not, in either case."""

    def write(number: int, base: str) -> str:
        return {"d": str(number), "o": "0" + format(number, "o"), "x": "0x" + format(number, "x")}[base]

    def spelled(parts: int, bases: list[str], dot: bool, upper: bool) -> str:
        octets = list(address.packed)
        numbers = octets[:parts - 1] + [int.from_bytes(bytes(octets[parts - 1:]), "big")]
        text = ".".join(write(n, b) for n, b in zip(numbers, bases)) + ("." if dot else "")
        return text.upper() if upper else text

    return st.integers(1, 4).flatmap(lambda parts: st.builds(
        spelled, st.just(parts), st.lists(st.sampled_from("dox"), min_size=parts, max_size=parts),
        st.booleans(), st.booleans()))


@given(st.ip_addresses(v=4).flatmap(lambda a: st.tuples(st.just(a), spellings(a))))
def test_any_spelling_of_an_ipv4_address_is_that_address_and_never_a_policys(pair):
    address, written = pair
    assert normal_host(written) == str(address) and is_address(written)
    with pytest.raises(InvalidPolicy):
        build_policy(allow=[written])


@given(st.ip_addresses(v=4), st.sampled_from(["::ffff:{}", "[::ffff:{}]", "[::FFFF:{}%eth0]"]))
def test_an_ipv4_mapped_ipv6_address_is_its_ipv4_address(address, form):
    assert normal_host(form.format(address)) == str(address)


@given(st.text(max_size=40))
def test_normal_form_is_a_fixed_point_and_never_raises(text):
    once = normal_host(text)
    assert normal_host(once) == once and is_address(once) == is_address(text)
