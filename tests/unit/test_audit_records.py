"""The audit record store, redaction and network policies, without a proxy."""

import json

import pytest

from detour_core.audit import AuditLog, AuditRecord, AuditWriter
from detour_core.policy import InvalidPolicy, Policy, build_policy
from detour_core.redaction import REDACTED, Redactor


def record(env_id, n):
    return AuditRecord(ts=f"2026-11-23T00:00:{n:02d}.000Z", env_id=env_id, client="10.0.0.1:1", mode="regular",
                       method="POST", scheme="https", host="slack.com", port=443, path=f"/api/m{n}",
                       decision="routed", duration_ms=1.0, request_bytes=1, response_bytes=1)


def test_records_are_kept_per_environment_and_rotate_by_size(tmp_path):
    writer = AuditWriter(tmp_path, segment_bytes=1000, kept=3)
    log = AuditLog(tmp_path)
    start = log.end("a")
    for n in range(20):
        writer.write(record("a", n))
    writer.write(record(None, 99))
    writer.write(record("b", 1))
    segments = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert len(segments) == 3 and segments[-1] > segments[0]  # rotated, and only three kept
    assert all(p.stat().st_size <= 1000 for p in (tmp_path / "a").iterdir())
    kept, position = log.read("a")
    assert [r.path for r in kept] == [f"/api/m{n}" for n in range(20 - len(kept), 20)]
    assert log.read("a", start)[0][0].path == kept[0].path  # from a position whose segment is gone: what is left
    writer.write(record("a", 20))
    assert [r.path for r in log.read("a", position)[0]] == ["/api/m20"]
    assert [r.path for r in log.read(None)[0]] == ["/api/m99"]
    assert log.environments() == [None, "a", "b"]
    everything = log.all()
    assert len(everything) == len(kept) + 3 and [r.ts for r in everything] == sorted(r.ts for r in everything)


def test_a_line_being_written_is_left_for_the_next_read(tmp_path):
    writer = AuditWriter(tmp_path)
    writer.write(record("a", 1))
    segment = next((tmp_path / "a").iterdir())
    with segment.open("a") as f:
        f.write('{"partial": ')
    records, position = AuditLog(tmp_path).read("a")
    assert len(records) == 1 and position == (1, len(records[0].model_dump_json(exclude_none=True)) + 1)


SECRETS = ["xoxb-1111-SECRETA", "xoxp-2222-SECRETB", "lin_api_SECRETC", "CUSTOM-12345", "hunter2"]


def test_redaction_finds_secrets_in_every_form():
    redactor = Redactor([r"CUSTOM-\d+"])
    headers = redactor.headers([("Authorization", "Bearer anything"), ("Cookie", "session=abc"),
                                ("X-Note", "token xoxb-1111-SECRETA"), ("Content-Type", "application/json")])
    assert headers == [("Authorization", REDACTED), ("Cookie", REDACTED), ("X-Note", f"token {REDACTED}"),
                       ("Content-Type", "application/json")]
    assert redactor.path("/api/x?token=hunter2&channel=C1") == f"/api/x?token={REDACTED}&channel=C1"
    form = redactor.body(b"token=hunter2&text=hi+CUSTOM-12345", "application/x-www-form-urlencoded")
    assert b"hunter2" not in form and b"CUSTOM" not in form and b"text=hi" in form
    body = json.dumps({"text": "hi xoxp-2222-SECRETB", "auth": {"password": "hunter2"}, "key": "ENG",
                       "items": [{"access_token": "hunter2"}]}).encode()
    scrubbed = json.loads(redactor.body(body, "application/json; charset=utf-8"))
    assert scrubbed == {"text": f"hi {REDACTED}", "auth": {"password": REDACTED}, "key": "ENG",
                        "items": [{"access_token": REDACTED}]}
    multipart = b'--b\r\nContent-Disposition: form-data; name="token"\r\n\r\nlin_api_SECRETC\r\n--b--\r\n'
    assert b"lin_api_SECRETC" not in redactor.body(multipart, "multipart/form-data; boundary=b")
    assert b"xoxb" not in redactor.body(b"\x00\xffxoxb-1111-SECRETA\x00", "application/octet-stream")


def test_policies_allow_named_hosts_and_subdomains_only():
    policy = Policy(allow=["api.partner.test", "*.models.test"])
    assert policy.allows("api.partner.test", 443) and policy.allows("eu.models.test", 80)
    assert not policy.allows("models.test", 443)          # *.domain is for subdomains only
    assert not policy.allows("api.partner.test", 8443)     # other ports stay denied
    assert not policy.allows("evil.test", 443)
    merged = Policy(capture="headers", allow=["a.test"]).merged(Policy(capture="bodies", body_limit=10))
    assert (merged.capture, merged.allow, merged.body_limit) == ("bodies", ["a.test"], 10)


@pytest.mark.parametrize("allow, message", [
    ("10.0.0.1", "IP address"), ("*.slack.com", "detour's replicas"), ("api.linear.app", "detour's replicas"),
    ("partner.test:8443", "no ports"), ("*", "not a host name"), ("a.*.test", "not a host name"),
])
def test_bad_policies_get_clear_errors(allow, message):
    with pytest.raises(InvalidPolicy, match=message.replace("*", r"\*")):
        build_policy(allow=[allow])
    with pytest.raises(InvalidPolicy, match="redact"):
        build_policy(redact=["("])
