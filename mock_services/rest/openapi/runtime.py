"""A generated pack at run time: its trimmed description read as the engine's operation table,
every operation given a handler (the generic action the model names, the pack's override where
it has one, else the vendor's error saying it is not modeled), and the engine's router over it.

A pack's overrides module (optional) may define:
    HANDLERS: {operationId: (resources, call) -> answer}  real rules (a payment intent's states)
    DEFAULTS: {table: {field: value}}                     what a new row has unless the body says
    MISSING: {table: "text with {key}"}                   the vendor's 404 message for a row not there
    IDS: {table: id style}                                how ids look where the description has no example
    OPTIONAL: {schema: [field, ...]}                      fields it calls required that the API does not demand
    OPTIONAL_HEADERS: {name, ...}                         headers it calls required that the API does not demand
    SPANS: {name, ...}                                    path placeholders whose values hold slashes
                                                          (GitLab's `acme/checkout`, which its clients send as %2F)
    identify: (state, token, headers) -> user id          who acts (default: the environment's user)
    credentials: (state) -> Credentials                   tokens per user and a sandbox's variables
                                                          (credentials.issuer); where it issues
                                                          them, an environment may require them
    ALIASES: {alias prefix: described prefix}             paths that answer as others (an older version's)
    ROUTES: {operationId: [path, ...]}                    paths newer than the description, answered by it
                                                          (matched before the described path)
    prepare: (resources, call) -> None                    what every call's parameters stand for, read before
                                                          its handler (Graph's `/me` and user names as user ids)
    EXTRA_ROUTES: [(router, engine) -> None]              routes beside the description's (Graph's token endpoint)
    error_body: (RestError) -> body                       the vendor's error shape, where its description
                                                          gives none that its clients read
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from functools import partial, wraps
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter

from mock_services.coverage import GENERATED, mark
from mock_services.rest import faults as rest_faults
from mock_services.rest.errors import RestError
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.credentials import Identify, requiring_issued
from mock_services.rest.openapi.schemas import Schemas
from mock_services.rest.openapi.semantics import Resources, not_modeled
from mock_services.rest.router import Call, RestApi, build_router
from mock_services.rest.spec import Operation, Parameter, Spec
from mock_services.store import EnvState


def _parameter(schemas: Schemas, data: dict) -> Parameter:
    schema = schemas.resolve(data.get("schema", {}))
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        schema = schemas.resolve(options[0])
    repeated = schema.get("type") == "array" or data["name"].endswith("[]")  # PagerDuty's `statuses[]`: a string each
    inner = schemas.resolve(schema.get("items", {})) if repeated else schema
    kind = inner.get("type", "string")
    enum = tuple(str(v) for v in inner.get("enum", ()) if isinstance(v, str))
    default = inner.get("default")
    return Parameter(data["name"], data["in"], kind if kind in ("integer", "boolean", "number") else "string",
                     bool(data.get("required")), repeated, enum, str(default) if default is not None else None,
                     multi_segment=bool(data.get("x-spans-segments")))


def operation_table(pack: str, document: dict, aliases: dict[str, str] | None = None,
                    routes: dict[str, list[str]] | None = None) -> Spec:
    """The engine's table from the trimmed description (the one source of the operations); an
    alias prefix answers as the prefix it names (Jira's `/rest/api/2/` as `/rest/api/3/`), and
    `routes` give an operation paths the description predates (Jira's `/search/jql`). An alias
    without a placeholder of the path it stands for (Graph's `/me` for `/users/{user_id}`) leaves
    that parameter to the pack's `prepare`."""
    schemas = Schemas(document)
    prefix = urlsplit((document.get("servers") or [{"url": ""}])[0]["url"]).path.rstrip("/")
    operations = []
    for path, methods in document["paths"].items():
        for method, data in methods.items():
            content = data.get("requestBody", {}).get("content", {})
            paths = [*(routes or {}).get(data["operationId"], []), path]  # `tickets/{id}.json` before `tickets/{id}`
            paths += [alias + p[len(real):] for p in paths for alias, real in (aliases or {}).items()
                      if p.startswith(real)]
            for routed in paths:
                operations.append(Operation(
                    f"{pack}.{data['operationId']}", method.upper(), routed.lstrip("/"),
                    {p["name"]: _parameter(schemas, p) for p in data["parameters"]
                     if p["in"] in ("query", "header") or (p["in"] == "path" and "{" + p["name"] + "}" in routed)},
                    "body" if content else None, None, next(iter(content), "application/json")))
    return Spec(pack, document.get("info", {}).get("version", ""), prefix, None, tuple(operations), {},
                document["components"].get("schemas", {}))


def _acting_user(state: EnvState, token: str | None, headers: dict[str, str]) -> str:
    return state.info.acting_user


def _identify(overrides: Any) -> Identify:
    """Who acts (the pack's rule, else the environment's user), behind the pack's issued tokens
    where it issues some (overrides' `credentials`)."""
    identify = getattr(overrides, "identify", _acting_user)
    issued = getattr(overrides, "credentials", None)
    return requiring_issued(identify, issued) if issued else identify


def _generated(resources: Resources, operation_id: str) -> Callable[[Call], Any]:
    """A read outside every resource the model keeps rows for (an account's balance, a list of
    something unmodeled): the plainest answer its description allows, nothing stored. (A search
    of kept rows is not one: an empty answer there would be wrong, so it stays not served.)"""
    def answer(call: Call) -> Any:
        call.status, schema = resources.response(operation_id)
        return resources.schemas.empty(schema)
    return mark(answer, GENERATED)


def _prepared(handler: Callable[..., Any], prepare: Callable[[Resources, Call], None],
              resources: Resources) -> Callable[..., Any]:
    """`handler` after the pack's `prepare` (its coverage mark kept)."""
    @wraps(handler)
    def run(call: Call) -> Any:
        prepare(resources, call)
        return handler(call)
    return run


def _overrides(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name != module:
            raise
        return None


def build(folder: Path, overrides_module: str) -> tuple[RestApi, APIRouter, Any]:
    """(the engine's API, its router, its fault answer) for the pack generated into `folder`."""
    document = json.loads((folder / "spec" / "openapi.json").read_text())
    model = json.loads((folder / "spec" / "model.json").read_text())
    pack = model["pack"]
    overrides = _overrides(overrides_module)
    for table, style in getattr(overrides, "IDS", {}).items():  # where the description shows no example id
        model["resources"][table]["id"] = style
    for name, fields in getattr(overrides, "OPTIONAL", {}).items():  # what the API does not demand after all
        schema = document["components"]["schemas"][name]
        schema["required"] = [f for f in schema.get("required", []) if f not in fields]
    spanning = set(getattr(overrides, "SPANS", ()))  # GitLab's project id, or its path with its slashes
    for parameter in (p for ops in document["paths"].values() for o in ops.values() for p in o["parameters"]):
        if parameter["in"] == "path" and parameter["name"] in spanning:
            parameter["x-spans-segments"] = True
    loose = {h.lower() for h in getattr(overrides, "OPTIONAL_HEADERS", ())}  # PagerDuty's Content-Type on a GET
    for parameter in (p for ops in document["paths"].values() for o in ops.values() for p in o["parameters"]):
        if parameter["in"] == "header" and parameter["name"].lower() in loose:
            parameter["required"] = False
    resources = Resources(pack, document, model, getattr(overrides, "DEFAULTS", {}), getattr(overrides, "MISSING", {}))
    custom = getattr(overrides, "HANDLERS", {})
    unknown = sorted(set(custom) - set(model["operations"]))
    if unknown:
        raise ValueError(f"{overrides_module} overrides operations the description lacks: {', '.join(unknown)}")
    handlers = {}
    for operation_id, entry in model["operations"].items():
        path, method, _ = resources.raw_ops[operation_id]
        if operation_id in custom:
            handlers[operation_id] = partial(custom[operation_id], resources)
        elif entry["action"]:
            handlers[operation_id] = getattr(resources, entry["action"])
        elif method == "get" and "{" not in path and resources.response(operation_id)[1] and not any(
                path.startswith(r["collection"]) for r in model["resources"].values() if r["collection"]):
            handlers[operation_id] = _generated(resources, operation_id)
        else:
            handlers[operation_id] = not_modeled(pack, operation_id, method, path)

    prepare = getattr(overrides, "prepare", None)
    if prepare:
        handlers = {operation_id: _prepared(handler, prepare, resources) for operation_id, handler in handlers.items()}

    def error_body(error: RestError) -> Any:
        return styles.error_body(model["error"], error)
    error_body = getattr(overrides, "error_body", error_body)

    def rate_limited(retry_after: int) -> RestError:
        return RestError(429, "rate_limit", "Too many requests hit the API too quickly.",
                         {"Retry-After": str(retry_after)})

    api = RestApi(pack=pack, spec=operation_table(pack, document, getattr(overrides, "ALIASES", None),
                                                  getattr(overrides, "ROUTES", None)),
                  handlers=handlers, error_body=error_body,
                  identify=_identify(overrides), rate_limited=rate_limited,
                  partial_responses=False, extra=list(getattr(overrides, "EXTRA_ROUTES", [])),
                  # The vendor has operations its trimmed description left out: say whose 404 it is.
                  unknown_path=f"Not Found: detour's {pack} replica has no operation at this path (it answers "
                               "those of its description; the service's page in detour's docs lists them)")
    return api, build_router(api), rest_faults.answers(rate_limited, error_body, {})
