"""Egress a policy opens is still watched (detour_core.egress_watch, proxy_addons/egress_watch.py):
credentials found as they are and as they decode; per host, recorded, blocked or redacted."""

import base64
import json

import pytest
from mitmproxy import websocket
from mitmproxy.test import tflow

from detour_core.egress_watch import findings, kinds, url_findings
from detour_core.policy import InvalidPolicy, build_policy, policy_file, save_policy
from proxy_addons.egress_watch import EgressWatch, MESSAGE_FINDINGS_KEY
from proxy_addons.verdict import METADATA_KEY
from tests.unit.test_proxy_addons import addons, authenticated  # noqa: F401 (a fixture)

AWS = "AKIAIOSFODNN7EXAMPLE"
GITHUB = "ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8"


@pytest.mark.parametrize("text, kind", [
    (f"https://x.test/?k={AWS}", "AWS Access Key"),
    (f"https://x.test/?k={AWS}".replace("A", "%41"), "AWS Access Key"),            # URL escapes
    ("https://x.test/?k=" + "%2541%254B%2549%2541" + AWS[4:], "AWS Access Key"),     # escaped twice
    (base64.b64encode(f"token={GITHUB}".encode()).decode(), "GitHub Token"),
    ("-".join(f"{b:02x}" for b in AWS.encode()), "AWS Access Key"),                 # hex with delimiters
    ("Authorization: Bearer xoxb-1234-5678-abcdefghijkl", "Slack Token"),
    ('{"card": "4111 1111 1111 1111"}', "Payment card number"),
    ("iban=GB82WEST12345698765432", "IBAN"),
    ("X-Api-Key: SG.not-a-vendor-shape-but-named", "credential named x-api-key"),
    ("Cookie: session=abc123; token=abcdefgh12345678", "credential named token"),
    ("database:\n  password: SuperSecret123", "credential named password"),
    ("sk-test-4eC39HqLyjWDarjtT1zdp7dc", "Secret key (sk-)"),                      # no vendor's own shape
    ("sk-proj-Q7vX2kLm9PzR4tYw8NcB1dFh", "Secret key (sk-)"),
    ("https://x.test/?key=%25252541%25252549", "URL escapes 4 layers deep"),        # escaped to hide
    ("deadbeef0011" + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".encode().hex() + "0a00ff",
     "key-shaped text in binary data"),                                            # a key amid binary bytes
])
def test_credentials_are_found_as_they_are_and_as_they_decode(text, kind):
    assert kind in kinds(findings(text))


@pytest.mark.parametrize("text", ["https://api.github.com/repos/golang/go/issues?state=open&page=2",
                                  "Authorization: Bearer mF_9.B5f-4.1JqM", '{"text": "hello", "n": 12}',
                                  "Cookie: session_id=abcdef123456789", '{"card": "4111 1111 1111 1112"}',
                                  "https://x.test/login?next=https%253A%252F%252Fa.test%252Fb%253Fc%253D1",
                                  "task-4eC39HqLyjWDarjtT1zdp7dc", "deadbeef00" + "plain words in a blob".encode().hex() + "00ff"])
def test_ordinary_traffic_has_no_finding(text):
    assert findings(text) == []


@pytest.mark.parametrize("url, found", [
    ("https://7365637265745f6170695f6b6579.exfil.evil.test/ping", True),
    ("https://JBSWY3DPEHPK3PXP.exfil.evil.test/", True),
    ("https://a1b2c3d4.e5f6a7b8.c9d0e1f2.a3b4c5d6.exfil.evil.test/", True),
    ("https://evil.test/api/x7Kp2mQ9vR4sL8nW1bY6cT3fA0jH5dE/status", True),
    ("https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/lodash.min.js", False),
    ("https://api.github.com/resources/550e8400-e29b-41d4-a716-446655440000/details", False),
])
def test_data_in_the_shape_of_a_url(url, found):
    assert bool(url_findings(url)) is found


def test_the_environments_own_secret_is_found_by_name():
    assert kinds(findings("q=hunter2-long-value", {"DB": "hunter2-long-value"})) == ["secret DB"]


def test_a_policy_chooses_per_host_and_merges_to_the_stricter():
    policy = build_policy(allow=["*.partner.test"], watch={"Api.Partner.Test.": "block", "*.partner.test": "redact"})
    assert policy.watch_for("api.partner.test") == "block" and policy.watch_for("eu.partner.test") == "redact"
    assert policy.watch_for("other.test") == "record"
    merged = build_policy(watch={"a.test": "redact"}).merged(build_policy(watch={"a.test": "block"}))
    assert merged.watch == {"a.test": "block"}
    with pytest.raises(InvalidPolicy, match="IP address"):
        build_policy(watch={"10.0.0.1": "block"})


def watched(chain, key, state, action, url):
    save_policy(policy_file(state, "env-a"), build_policy(allow=["api.partner.test"], watch={"api.partner.test": action}))
    host, _, path = url.partition("/")
    flow = authenticated(chain, key, host=host, path="/" + path)
    chain[1].requestheaders(flow)
    chain[2].requestheaders(flow)
    assert flow.metadata[METADATA_KEY].decision == "allowed"
    EgressWatch().request(flow)
    return flow


@pytest.mark.parametrize("action, status, path", [("record", None, f"/?k={AWS}"), ("block", 403, f"/?k={AWS}"),
                                                   ("redact", None, "/?k=[REDACTED]")])
def test_what_a_finding_does_is_the_policys_choice(addons, action, status, path):  # noqa: F811
    chain, key, state = addons
    flow = watched(chain, key, state, action, f"api.partner.test/?k={AWS}")
    verdict = flow.metadata[METADATA_KEY]
    assert verdict.findings == ["AWS Access Key"]
    assert (flow.response.status_code if flow.response else None) == status
    if status:
        assert json.loads(flow.response.content)["findings"] == ["AWS Access Key"] and verdict.decision == "denied"
    else:
        assert flow.request.path == path


def test_a_websocket_credential_split_across_two_messages_is_dropped(addons):  # noqa: F811
    chain, key, state = addons
    save_policy(policy_file(state, "env-a"), build_policy(allow=["api.partner.test"], watch={"api.partner.test": "block"}))
    upgrade = authenticated(chain, key, host="api.partner.test", path="/ws")
    chain[1].requestheaders(upgrade)
    chain[2].requestheaders(upgrade)
    flow = tflow.twebsocketflow()
    flow.client_conn, flow.metadata = upgrade.client_conn, upgrade.metadata  # the upgrade's decision
    watch = EgressWatch()
    flow.websocket.messages.clear()
    for part in ("part1: " + AWS[:7], AWS[7:]):
        flow.websocket.messages.append(websocket.WebSocketMessage(1, True, part.encode()))
        watch.websocket_message(flow)
    first, second = flow.websocket.messages
    assert not first.dropped and second.dropped and flow.metadata[MESSAGE_FINDINGS_KEY] == ["AWS Access Key"]
