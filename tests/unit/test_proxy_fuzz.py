"""detour's own parsers and decisions, fuzzed (hypothesis): the names a request claims and what
routing decides of them, policy rules and host patterns, the forms a secret's placeholder
takes, redaction, and the egress watch. `make test` runs each for hypothesis's default number
of examples; `make fuzz` (DETOUR_FUZZ=1) for far more."""

import base64
import json
import string

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from detour_core.egress_watch import findings, kinds, url_findings
from detour_core.hosts import host_matches, is_address, normal_host, normal_pattern
from detour_core.policy import InvalidPolicy, Rule, build_policy, policy_file, save_policy
from detour_core.redaction import REDACTED, Redactor
from detour_core.registry import is_replicated_host
from detour_core.secret_encodings import forms
from detour_core.secrets import placeholder_for
from proxy_addons.chunk_replacer import ChunkReplacer, Needle
from proxy_addons.verdict import METADATA_KEY
from tests.unit.test_proxy_addons import addons, authenticated  # noqa: F401 (a fixture)

LABEL = st.text(string.ascii_lowercase + string.digits + "-", min_size=1, max_size=12)
NAME = st.lists(LABEL, min_size=2, max_size=4).map(".".join)
HOST_TEXT = st.one_of(NAME, st.sampled_from(["slack.com", "api.linear.app", "partner.test", "127.0.0.1"]),
                      st.ip_addresses().map(str), st.text(max_size=30))
HEADER = st.tuples(HOST_TEXT, st.sampled_from(["", ":443", ":80", ":8443"]), st.booleans()).map(
    lambda t: (f"[{t[0]}]" if t[2] else t[0]) + t[1])
# Deadlines off: two cores shared by the whole suite make any one example's time meaningless.
FUZZ = settings(deadline=None)
ONE_STACK = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@ONE_STACK
@given(HEADER, st.one_of(st.none(), HOST_TEXT), st.sampled_from(["/", "/api/auth.test", "/graphql"]))
def test_what_routing_lets_through_is_a_name_the_registry_or_the_policy_names(addons, header, sni, path):  # noqa: F811
    chain, key, state = addons
    save_policy(policy_file(state, "env-a"), build_policy(allow=["partner.test"]))
    flow = authenticated(chain, key, host="10.0.0.9", path=path, host_header=header or "x", sni=sni or None)
    chain[1].requestheaders(flow)
    chain[2].requestheaders(flow)
    verdict = flow.metadata[METADATA_KEY]
    if verdict.decision in ("routed", "allowed"):
        assert not is_address(verdict.host) and verdict.host == normal_host(verdict.host)
        assert is_replicated_host(verdict.host) if verdict.decision == "routed" else verdict.host == "partner.test"
    else:
        assert flow.response.status_code == 403


@FUZZ
@given(st.sampled_from(["allow", "deny"]), st.sampled_from(["GET", "POST", "*"]),
       st.one_of(NAME, NAME.map(lambda n: "*." + n)), st.text(string.ascii_letters + "/*._-", max_size=20))
def test_a_rule_reads_back_from_its_text_and_matches_as_its_host_pattern_says(action, method, host, path):
    try:
        rule = Rule.parse(f"{action} {method} {host}/{path}")
    except InvalidPolicy:
        assert is_address(normal_pattern(host).removeprefix("*.")) or "." not in host.removeprefix("*.")
        return
    assert Rule.parse(rule.text()) == rule
    concrete, method = rule.path.replace("*", "a"), "GET" if rule.method == "*" else rule.method
    policy = build_policy(rules=[rule.text()])
    for candidate in ("x." + rule.host.removeprefix("*."), rule.host.removeprefix("*."), "other.example"):
        # the policy reads the request's host in its one spelling, whatever its case or trailing dot
        assert (policy.rule_for(candidate.upper() + ".", method, concrete) is not None) is host_matches(candidate, rule.host)
        assert policy.rule_for(candidate, "PATCH", concrete) is None or rule.method == "*"


@FUZZ
@given(st.text(string.printable.strip(), min_size=8, max_size=60), st.binary(max_size=5), st.binary(max_size=5),
       st.booleans())
def test_a_secret_in_base64_anywhere_becomes_its_placeholder(value, before, after, url_safe):
    """A value whose random part has 8 characters or more has a placeholder of its length
    (placeholder_for), so the bytes around it keep their base64 alignment (a shorter one's,
    a PIN's, does not: docs/limits.md)."""
    placeholder = placeholder_for(value)
    assume(len(placeholder) == len(value))
    replacer = ChunkReplacer([Needle(f, "KEY", True) for f in forms(value, placeholder)], lambda *_: None)
    encode, decode = (base64.urlsafe_b64encode, base64.urlsafe_b64decode) if url_safe else \
        (base64.b64encode, base64.b64decode)
    assert decode(replacer.whole(encode(before + value.encode() + after))) == before + placeholder.encode() + after


@FUZZ
@given(st.sampled_from(["token", "api_key", "client_secret", "password", "access_token"]),
       st.text(string.ascii_letters + string.digits + "-_.", min_size=8, max_size=30), st.dictionaries(
           st.text(string.ascii_lowercase, min_size=1, max_size=8), st.text(max_size=10), max_size=3))
def test_a_credential_by_name_never_reaches_a_record(name, value, others):
    redactor = Redactor()
    others = {k: v for k, v in others.items() if value not in k and value not in v}
    for body, kind in ((json.dumps({**others, "data": {name: value}}), "application/json"),
                       (f"{name}={value}&" + "&".join(f"{k}=x" for k in others), "application/x-www-form-urlencoded")):
        assert value.encode() not in redactor.body(body.encode(), kind)
    assert value not in redactor.path(f"/x?{name}={value}")
    token = "xoxb-" + "".join(c for c in value if c.isalnum() or c == "-")  # a Slack token's own letters
    assert redactor.text(f"see {token}.") == f"see {REDACTED}."


@FUZZ
@given(st.text(max_size=200), st.dictionaries(st.sampled_from(["A", "B"]), st.text(min_size=1, max_size=12)))
def test_the_watch_reads_any_text_and_names_kinds_never_values(text, own):
    found = findings(text, own)
    url_findings("https://" + text)
    for kind in kinds(found):
        assert not any(value and value in kind for _, value in found if len(value) > 12)
