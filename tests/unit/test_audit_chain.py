"""Each environment's audit records form a hash chain that any edit, removal or reordering
breaks where it stands, across segments and across writers (proxy workers) of one log."""

from __future__ import annotations

import json

from detour_core.audit import AuditLog, AuditRecord, AuditWriter, segment_file
from detour_core.audit_verify import verify


def record(n: int, env: str = "a") -> AuditRecord:
    return AuditRecord(ts="2026-01-01T00:00:00Z", env_id=env, client="c", mode="regular", method="GET",
                       scheme="https", host="slack.com", port=443, path=f"/api/n{n}", decision="routed",
                       duration_ms=1, request_bytes=0, response_bytes=0)


def written(tmp_path, count: int = 6, writers: int = 2, segment_bytes: int = 800) -> AuditLog:
    """Records from several writers in turn, small segments so the chain crosses files."""
    pool = [AuditWriter(tmp_path, segment_bytes=segment_bytes) for _ in range(writers)]
    for n in range(count):
        pool[n % writers].write(record(n))
    for writer in pool:
        writer.close()
    return AuditLog(tmp_path)


def lines(log: AuditLog, number: int) -> list[str]:
    return segment_file(log.folder("a"), number).read_text().splitlines(keepends=True)


def test_an_untouched_chain_is_intact_across_writers_and_segments(tmp_path):
    log = written(tmp_path)
    assert len(list(log.folder("a").glob("*.jsonl"))) > 1
    result = verify(log, "a")
    assert (result.records, result.problems) == (6, [])
    first = log.read("a")[0]
    assert first[0].prev is None and all(r.prev for r in first[1:])


def test_an_edited_record_is_named(tmp_path):
    log = written(tmp_path)
    text = lines(log, 1)
    edited = json.loads(text[0]) | {"path": "/api/innocent"}
    segment_file(log.folder("a"), 1).write_text(json.dumps(edited) + "\n" + "".join(text[1:]))
    problems = verify(log, "a").problems
    assert len(problems) == 1 and "segment 000001 line 2" in problems[0] and "line 1" in problems[0]


def test_a_removed_and_a_reordered_record_are_found(tmp_path):
    log = written(tmp_path, segment_bytes=10_000)
    text = lines(log, 1)
    segment_file(log.folder("a"), 1).write_text("".join(text[:2] + text[3:]))
    assert ["segment 000001 line 3" in p for p in verify(log, "a").problems] == [True]
    segment_file(log.folder("a"), 1).write_text("".join([text[1], text[0], *text[2:]]))
    assert len(verify(log, "a").problems) == 3  # the moved record, the one it displaced, and the next


def test_a_writer_that_restarts_continues_the_chain(tmp_path):
    written(tmp_path, count=3, writers=1)
    again = AuditWriter(tmp_path)
    again.write(record(9))
    again.close()
    assert verify(AuditLog(tmp_path), "a").problems == []


def test_a_suggested_policy_allows_exactly_what_the_run_used_and_lists_denied_hosts_apart():
    from detour.reports import denied_hosts, suggested_policy
    from detour_core.policy import Policy

    def made(method, host, path, decision, reason=None):
        return record(0).model_copy(update={"method": method, "host": host, "path": path, "decision": decision,
                                            "reason": reason})
    records = [made("POST", "slack.com", "/api/chat.postMessage", "routed"),
               made("GET", "api.partner.test", "/v1/items?page=2", "allowed"),
               made("DELETE", "api.partner.test", "/v1/items", "denied", "denied by rule 1: deny DELETE ..."),
               made("GET", "exfil.example", "/upload", "denied", "host not allowed"),
               made("GET", "evil.test", "/", "denied", "host mismatch: evil.test, slack.com"),
               made("GET", "10.0.0.1", "/", "denied", "host not allowed"),
               made("CONNECT", "api.partner.test", "", "denied", "tunnel closed without a request")]
    policy = suggested_policy(records)
    assert policy.allow == ["api.partner.test"]  # a replica's host is never passed through
    assert [r.text() for r in policy.rules] == [
        "allow POST slack.com/api/chat.postMessage", "allow GET api.partner.test/v1/items",
        "allow DELETE api.partner.test/v1/items", "deny * slack.com/*", "deny * api.partner.test/*"]
    assert denied_hosts(records) == ["exfil.example"]  # what the agent was refused is never proposed
    assert Policy.model_validate_json(policy.model_dump_json()) == policy  # valid as a policy file


def test_a_suggested_policy_leaves_out_a_host_seen_only_on_another_port():
    from detour.reports import suggested_policy

    seen = record(0).model_copy(update={"method": "GET", "host": "api.partner.test", "port": 8443, "path": "/v1",
                                        "decision": "denied", "reason": "host not allowed"})
    policy = suggested_policy([seen])
    assert policy.allow == [] and policy.rules == []
