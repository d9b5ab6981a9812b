"""Slack Web API routes at AgentDiff's paths: .../services/slack/{method} and .../slack/api/{method}.

Parameters come from the query string, a JSON body or a form body, as Slack accepts;
the token from `Authorization: Bearer` or a `token` parameter. Every method of the
catalogue is answered in Slack's shape, and every failure leaves here as Slack's
`{"ok": false, "error": ...}` with HTTP 200 (429 for `ratelimited`), never a 404 or a
traceback. The file upload URLs that `files.getUploadURLExternal` hands out
(files.slack.com/upload/v1/...) land here too.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from detour_core.credentials import InvalidEnvId
from mock_services.deps import StoreDep, run_call
from detour_core.errors import EnvironmentNotFound
from mock_services.request_budget import SPENT_KEY, spend
from mock_services.slack import catalogue
from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.interactions import INTERACTIONS
from mock_services.slack.methods import METHODS
from mock_services.slack.methods.auth import check_token
from mock_services.slack.methods.files import MAX_UPLOAD_BYTES, file_content, receive_upload
from mock_services.slack.methods.scheduled import deliver_due_messages
from mock_services.slack.socket_mode import link
from mock_services.slack.tokens import identify, is_app_token
from mock_services.store import EnvironmentStore, EnvState

router = APIRouter(prefix="/api/env/{env_id}/services/slack", tags=["slack"])
log = logging.getLogger(__name__)


def reject_constant(name: str) -> None:
    """NaN and Infinity are not JSON, though Python's parser takes them."""
    raise ValueError(f"{name} is not JSON")


async def read_params(request: Request) -> dict[str, Any]:
    params: dict[str, Any] = dict(request.query_params)
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.method != "POST":
        return params
    if content_type == "application/json":
        raw = await request.body()
        try:
            body = json.loads(raw, parse_constant=reject_constant) if raw.strip() else {}
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise SlackError("invalid_json") from None
        if not isinstance(body, dict):
            raise SlackError("json_not_object")
        params.update(body)
    elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        try:
            form = await request.form()
        except Exception:  # starlette's parsers raise several types for one cause: a bad body
            raise SlackError("invalid_form_data") from None
        # a file part (users.setPhoto's image, files.remote.add's preview) arrives as its bytes
        params.update({k: v if isinstance(v, str) else await v.read() for k, v in form.items()})
    return params


def bearer_token(request: Request, params: dict[str, Any]) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer ") and header[7:].strip():
        return header[7:].strip()
    token = params.pop("token", None)
    return token if isinstance(token, str) and token else None


# Arguments whose absence Slack answers with an error of its own, not `invalid_arguments`.
ABSENT = {"channel": "channel_not_found", "query": "no_query"}


def missing_arguments(method: catalogue.Method, params: dict[str, Any]) -> None:
    """An argument that is absent; an empty string is a value, as Slack reads it (`topic=""`
    clears a topic, `name=""` is `invalid_name_required`). An absent channel is an unknown one
    and an absent search query an empty one, as Slack documents them."""
    missing = [arg for arg in method.required if params.get(arg) is None]
    for arg in missing:
        if arg in ABSENT:
            raise SlackError(ABSENT[arg])
    if missing:
        raise SlackError("invalid_arguments", response_metadata={
            "messages": [f"[ERROR] missing required field: {arg}" for arg in missing]})


def answer(method: catalogue.Method, call: SlackCall) -> dict:
    if method.answer == "state":
        return METHODS[method.name](call)
    if method.answer == "empty":
        return dict(method.empty_result or {})
    if method.answer == "retired":
        raise SlackError("method_deprecated")
    raise SlackError("not_supported_by_replica", method=method.name)


def within_budget(state: EnvState) -> None:
    budget = state.info.request_budget
    if budget is None:
        return
    spent, retry_after = spend(state.meta(SPENT_KEY) or [], budget, time.time())
    if retry_after is not None:
        raise SlackError("ratelimited", status=429, headers={"Retry-After": str(retry_after)})
    state.set_meta(SPENT_KEY, spent)


def run_method(state: EnvState, method: catalogue.Method, token: str | None, params: dict[str, Any]) -> dict:
    user_id = identify(state, token) if method.name not in catalogue.NO_TOKEN else state.info.acting_user
    call = SlackCall(state, user_id, params, token)
    if method.name not in catalogue.NO_TOKEN:
        check_token(call)
        if is_app_token(token) and method.name != "apps.connections.open":
            raise SlackError("not_allowed_token_type")  # an app-level token opens connections, nothing else
    missing_arguments(method, params)
    deliver_due_messages(state)
    return {"ok": True, **answer(method, call)}


def dispatch(store: EnvironmentStore, env_id: str, method: catalogue.Method, token: str | None,
             params: dict[str, Any]) -> dict:
    """One call in one transaction. A call that fails keeps none of its writes but still
    counts against the budget, as it would at Slack."""
    try:
        with store.open(env_id, write=True, service="slack") as state:
            if state.service != "slack":
                raise SlackError("not_a_slack_environment", status=404)
            within_budget(state)
            try:
                with state.savepoint():
                    return run_method(state, method, token, params)
            except SlackError as failed:
                failure = failed
    except EnvironmentNotFound:
        raise SlackError("environment_not_found", status=404) from None
    except InvalidEnvId:
        raise SlackError("invalid_environment_id", status=400) from None
    raise failure


def interact(store: EnvironmentStore, env_id: str, token: str, kind: str, params: dict[str, Any]) -> dict:
    """A person's slash command or button click (slack/interactions.py), as the token's user."""
    with store.open(env_id, write=True, service="slack") as state:
        return INTERACTIONS[kind](SlackCall(state, identify(state, token), dict(params), token))


def act(store: EnvironmentStore, env_id: str, token: str, method: str, params: dict[str, Any]) -> dict:
    """A method called as the token's user by detour itself (a timeline's step), or one of a
    person's interactions with an app: Slack's answer."""
    known = catalogue.lookup(method)
    try:
        if method in INTERACTIONS:
            return interact(store, env_id, token, method, params)
        if known is None:
            raise SlackError("unknown_method", req_method=method)
        return dispatch(store, env_id, known, token, dict(params))
    except SlackError as e:
        return e.body()


def slack_response(body: dict, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=headers)


@router.api_route("/{method}", methods=["GET", "POST"])
@router.api_route("/api/{method}", methods=["GET", "POST"])
async def call_method(env_id: str, method: str, request: Request, store: StoreDep) -> JSONResponse:
    try:
        known = catalogue.lookup(method)
        if known is None:
            raise SlackError("unknown_method", req_method=method)
        params = await read_params(request)
        token = bearer_token(request, params)
        if token is None and method not in catalogue.NO_TOKEN:
            raise SlackError("not_authed")
        body = await run_call(request, dispatch, store, env_id, known, token, params)
    except SlackError as e:
        return slack_response(e.body(), e.status, e.headers)
    except Exception:  # a replica bug must still answer in Slack's shape, and never leak a traceback
        log.exception("slack method %s failed", method)
        return slack_response({"ok": False, "error": "fatal_error"}, 500)
    return slack_response(body)


router.add_api_websocket_route("/link/", link)  # Socket Mode (wss-primary/wss-backup.slack.com/link/)
router.add_api_websocket_route("/link", link)


def store_upload(store: EnvironmentStore, env_id: str, file_id: str, body: bytes) -> bool:
    with store.open(env_id, write=True, service="slack") as state:
        return receive_upload(state, file_id, body)


def read_file(store: EnvironmentStore, env_id: str, file_id: str) -> tuple[bytes, str] | None:
    with store.open(env_id, service="slack") as state:
        return file_content(state, file_id)


@router.post("/upload/v1/{file_id}")
async def upload_file(env_id: str, file_id: str, request: Request, store: StoreDep) -> Response:
    """The upload URL of files.getUploadURLExternal: raw bytes or a multipart `file` field."""
    body = await request.body()
    if len(body) > MAX_UPLOAD_BYTES:
        return Response("file too large", status_code=413)
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        form = await request.form()
        upload = next((v for v in form.values() if not isinstance(v, str)), None)
        body = await upload.read() if upload is not None else b""
    try:
        found = await run_call(request, store_upload, store, env_id, file_id, body)
    except (EnvironmentNotFound, InvalidEnvId):
        found = False
    if not found:
        return Response("upload url not found", status_code=404)
    return Response(f"OK - {len(body)}", media_type="text/plain")


@router.get("/files-pri/{owner}/{name}")
async def download_file(env_id: str, owner: str, name: str, request: Request, store: StoreDep) -> Response:
    """A file's `url_private`: its bytes, for a caller with a token (as Slack asks)."""
    if bearer_token(request, dict(request.query_params)) is None:
        return Response("not authed", status_code=401)
    file_id = owner.rpartition("-")[2]
    try:
        found = await run_call(request, read_file, store, env_id, file_id)
    except (EnvironmentNotFound, InvalidEnvId):
        found = None
    if found is None:
        return Response("file not found", status_code=404)
    content, mimetype = found
    return Response(content, media_type=mimetype)
