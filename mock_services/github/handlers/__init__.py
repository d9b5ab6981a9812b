"""State-backed handlers of GitHub's REST operations, by family. `handlers_for` maps every
operation of the generated table to one: the modeled ones to theirs, every other to GitHub's
error shape with 501, naming the operation. Every answer carries GitHub's rate-limit headers,
and every read its ETag (conditional requests answer 304)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from fastapi.responses import Response

from mock_services.coverage import NOT_SERVED, kind_of, mark
from mock_services.github import errors
from mock_services.github.handlers import (
    commits,
    contents,
    gitdb,
    issues,
    merging,
    protection,
    pulls,
    reactions,
    releases,
    repos,
    reviewing,
    search,
    settings,
    teams,
    tracking,
    users,
)
from mock_services.github.handlers.common import now_seconds
from mock_services.rest.router import Call
from mock_services.rest.spec import Spec

MODELED: dict[str, Callable[[Call], Any]] = {
    **users.HANDLERS, **repos.HANDLERS, **commits.HANDLERS, **contents.HANDLERS, **issues.HANDLERS,
    **pulls.HANDLERS, **merging.HANDLERS, **gitdb.HANDLERS, **search.HANDLERS, **settings.HANDLERS,
    **tracking.HANDLERS, **reviewing.HANDLERS, **releases.HANDLERS, **protection.HANDLERS,
    **teams.HANDLERS, **reactions.HANDLERS}
LIMIT = 5000


def _prepared(handler: Callable[[Call], Any]) -> Callable[[Call], Any]:
    """Path values as their declared types (`pull_number` is a number; the engine hands path
    values over as text), and GitHub's rate-limit headers on every answer: the hourly window of
    the core resource."""
    def answer(call: Call) -> Any:
        for name, parameter in call.operation.parameters.items():
            value = call.params.get(name)
            if parameter.location == "path" and parameter.type == "integer" and isinstance(value, str):
                if not value.isdigit():
                    raise errors.not_found()
                call.params[name] = int(value)
        reset = now_seconds() // 3600 * 3600 + 3600
        call.response_headers.update({"X-RateLimit-Limit": str(LIMIT), "X-RateLimit-Remaining": str(LIMIT - 1),
                                      "X-RateLimit-Used": "1", "X-RateLimit-Reset": str(reset),
                                      "X-RateLimit-Resource": "core", "X-GitHub-Media-Type": "github.v3"})
        return _conditional(call, handler(call))
    return mark(answer, kind_of(handler))


def _conditional(call: Call, result: Any) -> Any:
    """A read's `ETag`; `If-None-Match` with the same tag is answered 304 with no body, as GitHub
    does (and, as there, not counted against the rate limit by clients that cache)."""
    if call.operation.method != "GET" or not isinstance(result, dict | list):
        return result
    tag = 'W/"' + hashlib.sha256(json.dumps(result, sort_keys=True).encode()).hexdigest()[:40] + '"'
    call.response_headers["ETag"] = tag
    asked = {t.strip().removeprefix("W/") for t in call.headers.get("if-none-match", "").split(",")}
    if tag.removeprefix("W/") in asked:
        return Response(status_code=304, headers=call.response_headers)
    return result


def _not_modeled(operation_id: str) -> Callable[[Call], None]:
    def answer(call: Call) -> None:
        raise errors.not_modeled(operation_id)
    return mark(answer, NOT_SERVED)


def handlers_for(spec: Spec) -> dict[str, Callable[[Call], Any]]:
    return {o.short_id: _prepared(MODELED.get(o.short_id) or _not_modeled(o.id)) for o in spec.operations}
