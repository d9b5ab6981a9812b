"""Microsoft Graph, as its four packs share it (Outlook mail, Outlook calendar, Teams, OneDrive:
mock_services/outlook_mail, outlook_calendar, teams, onedrive, each generated from Graph's
metadata): who acts (the token's user; `/me` and a user principal name stand for a user's id),
the tokens they issue and the Microsoft identity platform's token endpoint the official client
gets them from (login.microsoftonline.com: OpenID configuration and client credentials), OData's
query options over a list (`$filter`, `$orderby`, `$top`, `$skip`, `@odata.nextLink`), and
Graph's error body, `{"error": {"code", "message", "innerError"}}`."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from detour_core.registry import pack
from mock_services import clock
from mock_services.deps import StoreDep
from mock_services.issued_tokens import SALT_KEY, holder, issue
from mock_services.rest.errors import RestError
from mock_services.rest.openapi.credentials import issuer
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import METHODS, Call, Engine
from mock_services.store import EnvState, Row

PREFIX = "EwB"  # Graph's delegated access tokens start so
TENANT = "8f4b2c1e-6d3a-4e5f-9a7b-0c1d2e3f4a5b"  # Acme's tenant; any tenant in a URL is answered alike
CLIENT = "5e1c7a9d-2b4f-4c8e-a6d3-9f0b1e2c3d4a"  # the agent's app registration
GRAPH = "https://graph.microsoft.com"
CODES = {400: "BadRequest", 401: "InvalidAuthenticationToken", 403: "Authorization_RequestDenied",
         405: "BadRequest", 409: "nameAlreadyExists", 429: "TooManyRequests", 501: "NotImplemented"}

MAILBOX = "AAMkAGVmMDEzMTM4LTZmYWUtNDdkNC1hMDZiLTU1OGY5OTZhYmY4OA"  # an Exchange mailbox's ids begin so
NO_USER = "Resource '{key}' does not exist or one of its queried reference-property objects are not present."
NOT_IN_STORE = "The specified object was not found in the store."


def exchange_id(kind: str, length: int) -> dict:
    """The id style of an Exchange item (`AAMkAG…` then its kind's letters: a message's, a folder's)."""
    return {"kind": "prefix", "prefix": MAILBOX + kind, "length": length}


# What azure-identity's EnvironmentCredential (and DefaultAzureCredential) reads.
credentials = issuer(PREFIX, {"AZURE_TENANT_ID": TENANT, "AZURE_CLIENT_ID": CLIENT, "AZURE_CLIENT_SECRET": "{token}"})


def now() -> str:
    return clock.utcnow().isoformat(timespec="seconds").replace("+00:00", "Z")


def error_body_for(not_found: str) -> Callable[[RestError], dict]:
    """Graph's error body, with the code its workload gives a missing item (Outlook's
    `ErrorItemNotFound`, OneDrive's `itemNotFound`)."""

    def error_body(error: RestError) -> dict:
        given = (error.details or {}).get("code")
        code = given or (not_found if error.status == 404 else
                         CODES.get(error.status, "generalException" if error.status >= 500 else "BadRequest"))
        return {"error": {"code": code, "message": error.message, "innerError": {
            "date": now(), "request-id": str(clock.uuid4()), "client-request-id": str(clock.uuid4())}}}
    return error_body


def identify(state: EnvState, token: str | None, headers: dict[str, str]) -> str:
    """The user the token was issued to; any other token acts as the environment's user."""
    return holder(state.meta(SALT_KEY), (PREFIX,), token) or state.info.acting_user


def users_table(call: Call) -> str:
    return pack(call.operation.id.split(".", 1)[0]).users_table


def user_row(state: EnvState, table: str, key: str) -> Row | None:
    """A user by id or by user principal name (or mail), as Graph finds them."""
    found = state.first(table, id=key)
    if found is None and "@" in key:
        found = next((u for u in state.rows(table) if key.lower() in (str(u.get("userPrincipalName", "")).lower(),
                                                                       str(u.get("mail", "")).lower())), None)
    return found


def prepare(resources: Resources, call: Call) -> None:
    """`/me/...` is the caller's `/users/{user_id}/...` (overrides' ALIASES route it); a user
    named by principal name is their id; enum members are read in any case (`"Text"`, `"HTML"`)."""
    schema = resources.request_schema(call.operation.short_id)
    if schema is not None and isinstance(call.body, dict):
        call.body = _members(resources, call.body, schema, 0)
    if call.operation.path.split("/", 2)[1:2] == ["me"]:
        call.params["user_id"] = call.user
    key = call.params.get("user_id")
    if key is not None:
        found = user_row(call.state, users_table(call), str(key))
        if found is None:
            raise RestError(404, "Request_ResourceNotFound", NO_USER.format(key=key),
                            details={"code": "Request_ResourceNotFound"})
        call.params["user_id"] = found["id"]


ALIASES = {"/v1.0/me": "/v1.0/users/{user_id}"}


def _members(resources: Resources, value: Any, schema: Any, depth: int) -> Any:
    """`value` with each enum member spelled as the schema spells it."""
    found = resources.schemas.resolve(schema)
    if depth > 8:
        return value
    if isinstance(value, str) and found.get("enum"):
        return next((m for m in found["enum"] if isinstance(m, str) and m.lower() == value.lower()), value)
    if isinstance(value, list) and "items" in found:
        return [_members(resources, v, found["items"], depth + 1) for v in value]
    if isinstance(value, dict):
        props = {k.lower(): v for k, v in found.get("properties", {}).items()}
        return {k: _members(resources, v, props[k.lower()], depth + 1) if k.lower() in props else v
                for k, v in value.items()}
    return value


def me(call: Call) -> Row:
    return call.state.first(users_table(call), id=call.user) or {"id": call.user}


def identity(user: Row) -> dict:
    """A user as Graph names them in an identity set (a message's `from`, an item's `createdBy`)."""
    return {"user": {"id": user.get("id"), "displayName": user.get("displayName"), "userIdentityType": "aadUser"}}


def recipient(user: Row) -> dict:
    return {"emailAddress": {"name": user.get("displayName"), "address": user.get("mail") or
                             user.get("userPrincipalName")}}


# -- OData's query options over a list ------------------------------------------------------
COMPARE = re.compile(r"^\s*([\w/]+)\s+(eq|ne|gt|ge|lt|le)\s+('(?:[^']|'')*'|true|false|null|[\d.:TZ+-]+)\s*$", re.I)
FUNCTION = re.compile(r"^\s*(contains|startswith)\(\s*([\w/]+)\s*,\s*'((?:[^']|'')*)'\s*\)\s*$", re.I)


def _field(row: Row, path: str) -> Any:
    for part in path.split("/"):
        row = row.get(part) if isinstance(row, dict) else None
    return row


def _literal(text: str) -> Any:
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    return {"true": True, "false": False, "null": None}.get(text.lower(), text)


def _clause(text: str) -> Callable[[Row], bool]:
    compared, called = COMPARE.match(text), FUNCTION.match(text)
    if compared:
        name, op, value = compared.group(1), compared.group(2).lower(), _literal(compared.group(3))

        def test(row: Row) -> bool:
            have = _field(row, name)
            if op in ("eq", "ne"):
                return (str(have).lower() == str(value).lower() if isinstance(have, str) else have == value) \
                    == (op == "eq")
            if have is None:
                return False
            a, b = str(have), str(value)
            return {"gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b}[op]
        return test
    if called:
        how, name, value = called.group(1).lower(), called.group(2), called.group(3).replace("''", "'").lower()
        return lambda row: (str(_field(row, name) or "").lower().__contains__(value) if how == "contains"
                            else str(_field(row, name) or "").lower().startswith(value))
    raise RestError(400, "BadRequest", f"Invalid filter clause: {text.strip()}", details={"code": "BadRequest"})


def matches(expression: str) -> Callable[[Row], bool]:
    """A `$filter` of comparisons and contains/startswith joined by `and` (or by `or`)."""
    ors = [[_clause(part) for part in re.split(r"\s+and\s+", alternative, flags=re.I)]
           for alternative in re.split(r"\s+or\s+", expression, flags=re.I)]
    return lambda row: any(all(test(row) for test in clauses) for clauses in ors)


def queried(call: Call, rows: list[Row], default_order: str | None = None) -> tuple[list[Row], str | None]:
    """The page of `rows` the call's `$filter`, `$search`, `$orderby`, `$skip` and `$top` ask
    for, and the `@odata.nextLink` to the next page (None at the last)."""
    if call.params.get("$filter"):
        rows = [r for r in rows if matches(call.params["$filter"])(r)]
    if call.params.get("$search"):
        words = str(call.params["$search"]).strip('"').lower().split()
        rows = [r for r in rows if all(w in repr(r).lower() for w in words)]
    order = call.params.get("$orderby") or default_order
    for clause in reversed(order.split(",") if order else []):
        name, _, direction = clause.strip().partition(" ")
        rows = sorted(rows, key=lambda r: (_field(r, name) is None, str(_field(r, name) or "")),
                      reverse=direction.lower() == "desc")
    skip, top = int(call.params.get("$skip") or 0), call.params.get("$top")
    chosen = rows[skip:skip + int(top)] if top else rows[skip:]
    more = top and skip + int(top) < len(rows)
    if not more:
        return chosen, None
    query = {k: v for k, v in call.params.items() if k.startswith("$") and k != "$skip"}
    path = "/" + call.operation.path
    for name, value in call.params.items():
        path = path.replace("{" + name + "}", str(value))
    return chosen, f"{GRAPH}{path}?{urlencode({**query, '$skip': skip + int(top)})}"


def listing(resources: Resources, call: Call, rows: list[Row], default_order: str | None = None) -> dict:
    """`{"value": [...], "@odata.nextLink"}`: the rows as the list's item schema has them."""
    chosen, next_link = queried(call, rows, default_order)
    schema = resources.schemas.resolve(resources.response(call.operation.short_id)[1])
    item = schema["properties"]["value"]["items"]
    answer: dict[str, Any] = {"value": [selected(call, resources.present(call, r, item)) for r in chosen]}
    if next_link:
        answer["@odata.nextLink"] = next_link
    return answer


def selected(call: Call, found: dict) -> dict:
    """The fields `$select` names (and the id), or all."""
    names = {n.strip() for n in str(call.params.get("$select") or "").split(",") if n.strip()}
    return {k: v for k, v in found.items() if k in names or k == "id"} if names else found


def body(call: Call) -> dict:
    """The request's JSON object as sent (action parameters: Graph reads their names in any case)."""
    found = call.body if isinstance(call.body, dict) else {}
    return {k[:1].lower() + k[1:] if not k.startswith("@") else k: v for k, v in found.items()}


# -- the Microsoft identity platform (login.microsoftonline.com) -------------------------------
def token_routes(router: APIRouter, engine: Engine) -> None:
    """OpenID configuration and the v2.0 token endpoint of any tenant: a client secret the
    environment issued is its user's access token; client credentials otherwise act as the
    environment's user (detour issues no other kind)."""

    @router.get("/common/discovery/instance")
    async def instance(env_id: str, request: Request) -> JSONResponse:
        return JSONResponse({"tenant_discovery_endpoint": "https://login.microsoftonline.com/common/v2.0/.well-known/"
                                                          "openid-configuration", "api-version": "1.1",
                             "metadata": [{"preferred_network": "login.microsoftonline.com",
                                           "preferred_cache": "login.windows.net",
                                           "aliases": ["login.microsoftonline.com", "login.windows.net",
                                                       "login.microsoft.com", "sts.windows.net"]}]})

    @router.get("/{tenant}/v2.0/.well-known/openid-configuration")
    async def configuration(env_id: str, tenant: str) -> JSONResponse:
        base = f"https://login.microsoftonline.com/{tenant}"
        return JSONResponse({"issuer": f"{base}/v2.0", "token_endpoint": f"{base}/oauth2/v2.0/token",
                             "authorization_endpoint": f"{base}/oauth2/v2.0/authorize",
                             "device_authorization_endpoint": f"{base}/oauth2/v2.0/devicecode",
                             "jwks_uri": f"{base}/discovery/v2.0/keys", "tenant_region_scope": "NA",
                             "response_types_supported": ["code", "id_token", "code id_token", "id_token token"],
                             "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt",
                                                                       "client_secret_basic"]})

    @router.post("/{tenant}/oauth2/v2.0/token")
    async def token(env_id: str, tenant: str, request: Request, store: StoreDep) -> JSONResponse:
        form = dict(parse_qsl((await request.body()).decode("utf-8", "replace")))
        if form.get("grant_type") not in ("client_credentials", "refresh_token", "authorization_code", "password"):
            return JSONResponse({"error": "unsupported_grant_type", "error_description":
                                 f"AADSTS70003: The app requested an unsupported grant type '{form.get('grant_type')}'."},
                                status_code=400)
        try:
            with store.open(env_id, service=engine.api.pack) as state:
                salt, user = state.meta(SALT_KEY), state.info.acting_user
                secret_user = holder(salt, (PREFIX,), form.get("client_secret"))
                if state.info.require_issued_tokens and secret_user is None:
                    return JSONResponse({"error": "invalid_client", "error_description":
                                         "AADSTS7000215: Invalid client secret provided."}, status_code=401)
                access = issue(salt, PREFIX, secret_user or user) or f"{PREFIX}{user}"
        except Exception:  # an unknown or malformed environment: OAuth's own error shape
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        return JSONResponse({"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599,
                             "access_token": access})


def path_routes(adjust: Callable[[str], str] = lambda path: path) -> Callable[[APIRouter, Engine], None]:
    """Every `/v1.0/...` path, read as Graph reads it: repeated slashes as one (msgraph-sdk's base
    URL ends in a slash: `/v1.0//users`), then as `adjust` says (OneDrive's item paths)."""

    def add(router: APIRouter, engine: Engine) -> None:
        @router.api_route("/v1.0/{path:path}", methods=METHODS)
        async def read(env_id: str, path: str, request: Request, store: StoreDep) -> Response:
            return await engine.respond(request, store, env_id, request.method,
                                        adjust("v1.0/" + re.sub("//+", "/", path.lstrip("/"))),
                                        request.query_params.multi_items(),
                                        {k.lower(): v for k, v in request.headers.items()}, await request.body())
    return add


EXTRA_ROUTES = [token_routes, path_routes()]
