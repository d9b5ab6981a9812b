"""A REST pack's router, from its operation table: every operation of the vendor's
description is matched, its parameters parsed and checked (types, enums, required), its body
read, and then its state-backed handler runs in one transaction of the environment's state.
Everything that goes wrong leaves in the vendor's error shape (the pack's `error_body`),
never as a traceback or a framework's 422.
"""

from __future__ import annotations

import base64
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from detour_core.credentials import InvalidEnvId
from detour_core.errors import EnvironmentNotFound
from mock_services.coverage import NOT_SERVED, Kind, kind_of
from mock_services.deps import StoreDep, run_call
from mock_services.request_budget import SPENT_KEY, spend
from mock_services.rest import fields
from mock_services.rest.bodies import read_body
from mock_services.rest.errors import RestError
from mock_services.rest.spec import Operation, Parameter, Spec
from mock_services.store import EnvironmentStore, EnvState

log = logging.getLogger(__name__)
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


@dataclass
class Call:
    """One request, parsed against its operation, with the environment's state open."""

    state: EnvState
    operation: Operation
    params: dict[str, Any]
    body: Any                      # a JSON object, form or multipart fields, or bytes (bodies.py)
    headers: dict[str, str]
    token: str | None
    user: str = ""                 # the acting user's id
    status: int = 200              # what a JSON answer goes out with (201 where the vendor creates)
    response_headers: dict[str, str] = field(default_factory=dict)
    memo: dict[Any, Any] = field(default_factory=dict)  # what handlers look up once per call

    def arg(self, name: str, default: Any = None) -> Any:
        value = self.params.get(name)
        return default if value is None else value


Handler = Callable[[Call], Any]


@dataclass
class RestApi:
    """What a REST pack gives the engine."""

    pack: str
    spec: Spec
    handlers: dict[str, Handler]                     # by short operation id (`events.list`)
    error_body: Callable[[RestError], dict]          # the vendor's error shape
    identify: Callable[[EnvState, str | None, dict[str, str]], str]  # token, headers -> the acting user (or RestError)
    rate_limited: Callable[[int], RestError]         # the vendor's answer beyond the request budget
    extra: list[Callable[[APIRouter, Engine], None]] = field(default_factory=list)  # routes beyond the table
    partial_responses: bool = True  # Google's `fields` selects from every answer; other vendors' handlers read it
    unknown_path: str = "Not Found"  # the 404 message of a path no operation has

    def missing(self) -> list[str]:
        """Operations of the description that no handler answers."""
        return [o.id for o in self.spec.operations if o.short_id not in self.handlers]

    def coverage(self) -> dict[str, Kind]:
        """Each operation of the description: stateful, generated or not served (its handler's mark)."""
        return {o.id: kind_of(self.handlers[o.short_id]) if o.short_id in self.handlers else NOT_SERVED
                for o in self.spec.operations}


def _pattern(operation: Operation) -> re.Pattern:
    """`calendars/{calendarId}/acl` -> a regex with a group per placeholder (one segment each,
    or several where the description says the placeholder spans them)."""
    parts = re.split(r"\{([^}]+)\}", operation.path.lstrip("/"))
    spans = {n for n, p in operation.parameters.items() if p.multi_segment}
    regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>{'.+' if p in spans else '[^/]+'})"
                    for i, p in enumerate(parts))
    return re.compile(regex + "$")


def _specificity(operation: Operation) -> tuple[int, int, int, int]:
    """Literal paths before placeholders; a placeholder that spans segments last, the longest
    literal text first among those (`branches/{branch}/protection` before `branches/{branch}`)."""
    spans = sum(p.multi_segment for p in operation.parameters.values())
    literal = len(re.sub(r"\{[^}]+\}", "", operation.path))
    return spans, -literal if spans else 0, operation.path.count("{"), len(operation.required())


def _convert(parameter: Parameter, raw: str) -> Any:
    if parameter.comma_list:
        single = replace(parameter, comma_list=False)
        return [_convert(single, item.strip()) for item in raw.split(",") if item.strip()]
    if parameter.enum and raw not in parameter.enum:
        raise RestError(400, "invalid", f"Invalid value for {parameter.name}: {raw}")
    if parameter.type == "integer":
        try:
            return int(raw)
        except ValueError:
            raise RestError(400, "invalid", f"Invalid value '{raw}'. Values must match the following "
                                            f"regular expression: '-?\\d+'") from None
    if parameter.type == "boolean":
        if raw.lower() not in ("true", "false"):
            raise RestError(400, "invalid", f"Invalid boolean value for {parameter.name}: '{raw}'")
        return raw.lower() == "true"
    return raw


def parse_params(operation: Operation, common: dict[str, Parameter], path_values: dict[str, str],
                 query: list[tuple[str, str]], headers: dict[str, str]) -> dict[str, Any]:
    params: dict[str, Any] = dict(path_values)  # the ASGI server decoded the path already
    known = {**common, **operation.parameters}
    for name, raw in query:
        parameter = known.get(name)
        if parameter is None and "[" in name:  # `expand[]=a`, `expand[0]=a`: one more item of a list
            parameter = known.get(name.split("[", 1)[0])
            parameter = parameter if parameter is not None and parameter.repeated else None
        if parameter is None or parameter.location != "query":
            continue  # vendors ignore what they do not know
        value = _convert(parameter, raw)
        params[parameter.name] = [*params.get(parameter.name, []), value] if parameter.repeated else value
    for parameter in operation.headers():
        if parameter.name.lower() in headers:
            params[parameter.name] = _convert(parameter, headers[parameter.name.lower()])
    for parameter in operation.required():
        if params.get(parameter.name) in (None, ""):
            raise RestError(400, "required", f"Required parameter: {parameter.name}")
    return params


def body_of(operation: Operation, headers: dict[str, str], raw: bytes) -> Any:
    """The parsed body; None where an operation that takes none got none."""
    if not raw.strip() and operation.request is None and operation.content_type == "application/json":
        return None
    return read_body(operation.content_type, headers.get("content-type", ""), raw)


def basic_login(headers: dict[str, str]) -> str | None:
    """The user name of HTTP Basic auth (an email, for the vendors that name users by it), or
    None where the request has none or it does not decode."""
    value = headers.get("authorization", "")
    if not value.lower().startswith("basic "):
        return None
    try:
        return base64.b64decode(value.split(" ", 1)[1]).decode().partition(":")[0]
    except (ValueError, UnicodeDecodeError):
        return None


def bearer(headers: dict[str, str], params: dict[str, Any]) -> str | None:
    value = headers.get("authorization", "")
    if value.lower().startswith(("bearer ", "oauth ")):
        return value.split(" ", 1)[1].strip() or None
    return params.get("oauth_token") or params.get("access_token") or None


class Engine:
    """Matches requests to the table's operations and runs their handlers."""

    def __init__(self, api: RestApi) -> None:
        self.api = api
        # Literal paths before placeholders (`users/me` is not the user `me`); of the variants a
        # description gives one route, the least demanding answers (the others' handlers agree).
        by_specificity = sorted(api.spec.operations, key=_specificity)
        self.routes = [(o, _pattern(o)) for o in by_specificity]

    def match(self, method: str, path: str) -> tuple[Operation, dict[str, str]]:
        found_path = False
        for operation, pattern in self.routes:
            matched = pattern.match(path)
            if matched:
                found_path = True
                if operation.method == method:
                    return operation, matched.groupdict()
        if found_path:
            raise RestError(405, "httpMethodNotAllowed", f"Method {method} is not allowed here")
        raise RestError(404, "notFound", self.api.unknown_path)

    def within_budget(self, state: EnvState) -> None:
        budget = state.info.request_budget
        if budget is None:
            return
        spent, retry_after = spend(state.meta(SPENT_KEY) or [], budget, time.time())
        if retry_after is not None:
            raise self.api.rate_limited(retry_after)
        state.set_meta(SPENT_KEY, spent)

    def dispatch(self, store: EnvironmentStore, env_id: str, operation: Operation, params: dict, body: dict | None,
                 headers: dict[str, str]) -> tuple[Any, Call]:
        """One call in one transaction; a failed call keeps none of its writes but still counts
        against the budget."""
        try:
            with store.open(env_id, write=True, service=self.api.pack) as state:
                if state.service != self.api.pack:
                    raise RestError(404, "notFound", f"environment {env_id} is not a {self.api.pack} environment")
                self.within_budget(state)
                try:
                    with state.savepoint():
                        call = Call(state, operation, params, body, headers, bearer(headers, params))
                        call.user = self.api.identify(state, call.token, headers)
                        return self.api.handlers[operation.short_id](call), call
                except RestError as failed:
                    failure = failed
        except EnvironmentNotFound:
            raise RestError(404, "notFound", f"environment {env_id} not found") from None
        except InvalidEnvId:
            raise RestError(400, "invalid", "invalid environment id") from None
        raise failure

    async def answer(self, request: Request, store: EnvironmentStore, env_id: str, path: str) -> Response:
        return await self.respond(request, store, env_id, request.method, path, request.query_params.multi_items(),
                                  {k.lower(): v for k, v in request.headers.items()}, await request.body())

    async def respond(self, request: Request, store: EnvironmentStore, env_id: str, method: str, path: str,
                      query: list[tuple[str, str]], headers: dict[str, str], raw: bytes) -> Response:
        """One operation's answer (a batch's parts come here one by one)."""
        try:
            operation, path_values = self.match(method, path)
            params = parse_params(operation, self.api.spec.common, path_values, query, headers)
            partial = self.api.partial_responses and params.get("fields")
            selection = fields.parse(params["fields"]) if partial else None
            body = body_of(operation, headers, raw)
            result, call = await run_call(request, self.dispatch, store, env_id, operation, params, body, headers)
        except RestError as e:
            return self.error(e)
        except fields.InvalidFields as e:
            return self.error(RestError(400, "invalidParameter", str(e)))
        except Exception:  # a replica bug still answers in the vendor's shape, never with a traceback
            log.exception("%s %s failed", self.api.pack, path)
            return self.error(RestError(500, "backendError", "Backend Error"))
        if isinstance(result, Response):
            return result
        if result is None:
            return Response(status_code=204, headers=call.response_headers)
        return JSONResponse(fields.select(result, selection), status_code=call.status, headers=call.response_headers)

    def error(self, error: RestError) -> JSONResponse:
        return JSONResponse(self.api.error_body(error), status_code=error.status, headers=error.headers)


def build_router(api: RestApi) -> APIRouter:
    """Every operation under `/api/env/{env_id}/services/{pack}{service path}/...`."""
    engine = Engine(api)
    router = APIRouter(prefix=f"/api/env/{{env_id}}/services/{api.pack}", tags=[api.pack])
    for add_routes in api.extra:
        add_routes(router, engine)

    @router.api_route(api.spec.service_path + "/{path:path}", methods=METHODS + ["OPTIONS"])
    async def operation(env_id: str, path: str, request: Request, store: StoreDep) -> Response:
        return await engine.answer(request, store, env_id, path)

    return router
