"""What auditors read out of the records: a summary, HAR 1.2 for the tools they know
(browser devtools, HAR viewers), and a policy suggested from what a run did."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from importlib.metadata import version

from pydantic import BaseModel

from detour_core.audit import AuditRecord, Message
from detour_core.policy import ALLOWED_PORTS, Policy, Rule, host_pattern
from detour_core.registry import is_replicated_host

SLOWEST = 5


class Slow(BaseModel):
    id: str
    method: str
    url: str
    status: int | None
    duration_ms: float


class Summary(BaseModel):
    requests: int
    by_host: dict[str, int]
    by_decision: dict[str, int]
    by_status: dict[str, int]
    request_bytes: int
    response_bytes: int
    slowest: list[Slow]


def url_of(record: AuditRecord) -> str:
    default = {"https": 443, "http": 80}.get(record.scheme)
    port = "" if record.port == default else f":{record.port}"
    return f"{record.scheme}://{record.host}{port}{record.path}"


def summarize(records: list[AuditRecord]) -> Summary:
    slowest = sorted(records, key=lambda r: r.duration_ms, reverse=True)[:SLOWEST]
    return Summary(
        requests=len(records),
        by_host=dict(Counter(r.host or "(none)" for r in records).most_common()),
        by_decision=dict(Counter(r.decision for r in records).most_common()),
        by_status=dict(Counter(str(r.status) if r.status is not None else "none" for r in records).most_common()),
        request_bytes=sum(r.request_bytes for r in records),
        response_bytes=sum(r.response_bytes for r in records),
        slowest=[Slow(id=r.id, method=r.method, url=url_of(r), status=r.status, duration_ms=r.duration_ms)
                 for r in slowest])


def _headers(message: Message | None) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in (message.headers if message else [])]


def _header(message: Message | None, name: str) -> str:
    return next((v for n, v in (message.headers if message else []) if n.lower() == name), "")


def _post_data(record: AuditRecord) -> dict | None:
    request = record.request
    if record.method in ("GET", "HEAD", "-", "CONNECT", "TCP") and not (request and request.body):
        return None
    return {"mimeType": _header(request, "content-type"), "text": request.body or "" if request else ""}


def _content(record: AuditRecord) -> dict:
    response = record.response
    content = {"size": response.size if response else record.response_bytes,
               "mimeType": _header(response, "content-type")}
    if response and response.body is not None:
        content["text"] = response.body
        if response.encoding:
            content["encoding"] = response.encoding
    return content


def har_entry(record: AuditRecord) -> dict:
    """One request. Records have no connection phases, so the whole duration is `wait`; a
    connection without a request becomes an entry with status 0, as browsers show a failure."""
    query = record.path.partition("?")[2]
    entry = {
        "startedDateTime": datetime.fromisoformat(record.ts.replace("Z", "+00:00")).isoformat(),
        "time": record.duration_ms,
        "request": {
            "method": record.method if record.method != "-" else "GET",
            "url": url_of(record),
            "httpVersion": record.http_version or "HTTP/1.1",
            "cookies": [], "headers": _headers(record.request),
            "queryString": [{"name": k, "value": v} for k, _, v in (p.partition("=") for p in query.split("&") if p)],
            "headersSize": -1, "bodySize": record.request_bytes,
        },
        "response": {
            "status": record.status or 0, "statusText": "",
            "httpVersion": record.http_version or "HTTP/1.1",
            "cookies": [], "headers": _headers(record.response), "content": _content(record),
            "redirectURL": _header(record.response, "location"), "headersSize": -1,
            "bodySize": record.response_bytes,
        },
        "cache": {},
        "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": record.duration_ms,
                    "receive": 0},
        "connection": record.client,
        "comment": f"detour: {record.decision}" + (f" ({record.reason})" if record.reason else ""),
        "_detour": {"id": record.id, "env_id": record.env_id, "decision": record.decision, "mode": record.mode,
                    "service": record.service},
    }
    if (post := _post_data(record)) is not None:
        entry["request"]["postData"] = post
    return entry


def har(records: list[AuditRecord]) -> dict:
    return {"log": {
        "version": "1.2",
        "creator": {"name": "detour", "version": version("detour")},
        "pages": [],
        "entries": [har_entry(r) for r in records],
    }}


# Denials a policy cannot and should not undo: the request itself was malformed or hostile.
NOT_POLICY = ("host mismatch", "no host name", "another environment", "not a replica path", "port ")


def _wanted(record: AuditRecord) -> bool:
    if record.method in ("-", "TCP", "CONNECT") or not record.host or record.decision == "unauthorized":
        return False
    if record.decision == "denied" and (record.reason or "").startswith(NOT_POLICY):
        return False
    if record.port not in ALLOWED_PORTS:
        return False  # a policy allows a host on 80 and 443 only: not what this request used
    try:
        host_pattern(record.host)
    except ValueError:
        return False  # an address: never allowed
    return True


def _asked(record: AuditRecord) -> bool:
    """Used (routed or passed through), or denied by one of the policy's own rules: a host the
    policy already names. A host denied for being in no policy is not proposed (denied_hosts)."""
    return record.decision != "denied" or (record.reason or "").startswith("denied by ")


def denied_hosts(records: list[AuditRecord]) -> list[str]:
    """Hosts the run was denied because no policy allows them: listed apart from a suggestion,
    for a person to add on purpose, never proposed."""
    return list(dict.fromkeys(r.host.lower() for r in filter(_wanted, records) if not _asked(r)))


def suggested_policy(records: list[AuditRecord]) -> Policy:
    """A policy that allows exactly the hosts, methods and paths these records show used (or
    asked for by the policy's own rules), and denies everything else on those hosts: for a person
    to review, then apply (`detour env policy ENV --policy FILE`)."""
    seen: dict[tuple[str, str, str], None] = {}
    for record in filter(_asked, filter(_wanted, records)):
        seen[(record.host.lower(), record.method.upper(), record.path.split("?", 1)[0] or "/")] = None
    hosts = list(dict.fromkeys(host for host, _, _ in seen))
    rules = [Rule(action="allow", method=method, host=host, path=path) for host, method, path in seen]
    rules += [Rule(action="deny", method="*", host=host, path="/*") for host in hosts]
    return Policy(allow=[h for h in hosts if not is_replicated_host(h)], rules=rules)
