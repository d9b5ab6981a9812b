"""Replay: a run's recorded requests sent again, in order, through the proxy into a fresh
environment of the same template, clock and seed, and the answers and final state compared
with the original's.

What can be replayed is what was recorded: a request's headers and body where the policy
captured bodies (`--capture bodies`), whole (not cut at `body_limit`). Credentials were
redacted before the records were written: a redacted Authorization header is sent as the fresh
environment's own (its acting user's issued token, or a placeholder its replicas accept), and
a redacted field stays redacted. Connections that made no request, and requests the proxy
answered itself (denied), are not sent.
"""

from __future__ import annotations

import base64
import json
import threading
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from certs.authority import CertificateAuthority
from detour_core.audit import AuditRecord
from detour_core.credentials import secret_for
from detour_core.errors import DetourError
from detour_core.redaction import REDACTED
from detour_core.paths import StatePaths
from detour.compare import timeless
from detour.stack import StackInfo
from mock_services.clock import Clock
from mock_services.store import EnvironmentInfo, EnvironmentStore

SENT_AS_IS = ("routed", "allowed")
HOP_HEADERS = frozenset({"host", "content-length", "connection", "proxy-authorization", "transfer-encoding",
                         "accept-encoding"})
PLACEHOLDER_TOKEN = "detour-replay"
ONLY_TIMES = "only the times in the answer differ"


class Mismatch(BaseModel):
    n: int
    request: str
    original: int | None
    replayed: int | None
    reason: str
    cause: str = Field("", description="The likely cause, for its user to act on.")


class Replay(BaseModel):
    env_id: str
    sent: int
    skipped: int
    answers_matched: int
    mismatches: list[Mismatch]
    states_match: bool | None  # None: the original environment is gone, nothing to compare with

    @property
    def diverged(self) -> bool:
        return bool(self.mismatches) or self.states_match is False


def read_records(path: Path) -> list[AuditRecord]:
    """JSON lines, as `detour logs --env ENV --json` prints them; a missing file or a line that is
    no record is refused by name and line, before anything is made."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise DetourError(f"cannot read records from {path}: {getattr(e, 'strerror', None) or e}") from None
    records = []
    for number, line in enumerate(lines, 1):
        try:
            records += [AuditRecord.model_validate_json(line)] if line.strip() else []
        except ValidationError:
            raise DetourError(f"{path}, line {number}: not an audit record as `detour logs --json` prints "
                              "them") from None
    return records


def _headers(record: AuditRecord, token: str) -> dict[str, str]:
    pairs = record.request.headers if record.request else []
    headers = {}
    for name, value in pairs:
        if name.lower() in HOP_HEADERS:
            continue
        headers[name] = f"Bearer {token}" if name.lower() == "authorization" and value == REDACTED else value
    return headers


def _body(record: AuditRecord) -> bytes | None:
    message = record.request
    if message is None or message.body is None:
        return None
    if message.truncated:
        raise ValueError(f"request {record.id} was cut at the policy's body_limit: it cannot be replayed whole")
    return message.body.encode() if message.encoding is None else base64.b64decode(message.body)


def _same_answer(record: AuditRecord, answer) -> str | None:
    """Why the replayed answer differs from the recorded one, or None."""
    if record.status != answer.status_code:
        return f"status {record.status} then, {answer.status_code} now"
    recorded = record.response.body if record.response else None
    if recorded is None or record.response.truncated:
        return None  # nothing recorded to compare beyond the status
    try:
        then, now = json.loads(recorded), answer.json()
    except ValueError:
        return None if recorded == answer.text else "the answer's body differs"
    if then == now:
        return None
    return ONLY_TIMES if timeless(then) == timeless(now) else "the answer's body differs"


def likely_cause(reason: str, earlier: Mismatch | None, env: EnvironmentInfo, given_seed: bool) -> str:
    """Why a replayed answer most likely differs: an earlier divergence, the clock, or the seed."""
    if earlier is not None:
        return f"likely request {earlier.n} ({earlier.request}), answered differently before it"
    if reason == ONLY_TIMES or env.clock.mode != "frozen":
        return ("likely the clock: the environment's clock " + ("moves" if env.clock.mode != "frozen" else
                "reads another time") + "; replay with --clock set to the original run's time")
    return ("likely the ids: they are drawn from the environment's seed; replay with --seed set to the original's"
            if not given_seed else "likely the state it started from: another template, or one since changed")


def replay(state: StatePaths, stack: StackInfo, records: list[AuditRecord], template: str,
           original: EnvironmentInfo | None = None, stop: threading.Event | None = None,
           clock: Clock | None = None, seed: str | None = None) -> Replay:
    """Into a fresh environment of `template`, of `clock` and `seed` (else `original`'s, where
    given). `stop` (set): no more requests are sent; those sent so far are compared."""
    import httpx  # here: the stack's images install detour without its client-side libraries
    store = EnvironmentStore(state)
    seed = seed or (original.seed if original else None)
    env = store.create(template, clock=clock or (original.clock if original else None), seed=seed)
    token = next(iter(store.credentials(env.env_id).variables.values()), PLACEHOLDER_TOKEN)
    proxy = stack.access(env.env_id, secret_for(state, env.env_id)).url()
    wanted = [r for r in records if r.decision in SENT_AS_IS and r.method not in ("-", "CONNECT", "TCP")]
    mismatches, matched, sent = [], 0, 0
    with httpx.Client(proxy=proxy, verify=str(CertificateAuthority(state).ensure().bundle), timeout=60) as client:
        for n, record in enumerate(wanted, 1):
            if stop is not None and stop.is_set():
                break
            sent = n
            url = f"{record.scheme}://{record.host}{'' if record.port in (80, 443) else f':{record.port}'}{record.path}"
            answer = client.request(record.method, url, headers=_headers(record, token), content=_body(record))
            reason = _same_answer(record, answer)
            if reason:
                mismatches.append(Mismatch(n=n, request=f"{record.method} {record.host}{record.path}",
                                           original=record.status, replayed=answer.status_code, reason=reason,
                                           cause=likely_cause(reason, next(iter(mismatches), None), env, bool(seed))))
            else:
                matched += 1
    states = None
    if original is not None and store.db.exists(original.env_id):
        states = store.diff(original.env_id) == store.diff(env.env_id)
    return Replay(env_id=env.env_id, sent=sent, skipped=len(records) - len(wanted), answers_matched=matched,
                  mismatches=mismatches, states_match=states)
