"""Slack Web API routes at AgentDiff's paths: .../services/slack/{method} and .../slack/api/{method}.

Parameters come from the query string, a JSON body or a form body, as Slack accepts;
the token from `Authorization: Bearer` or a `token` parameter. Every failure leaves
here as Slack's `{"ok": false, "error": ...}`.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from detour.credentials import InvalidEnvId
from mock_services.deps import StoreDep
from mock_services.errors import EnvironmentNotFound
from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.methods import METHODS
from mock_services.store import EnvironmentStore

router = APIRouter(prefix="/api/env/{env_id}/services/slack", tags=["slack"])


async def read_params(request: Request) -> dict[str, Any]:
    params: dict[str, Any] = dict(request.query_params)
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.method != "POST":
        return params
    if content_type == "application/json":
        raw = await request.body()
        try:
            body = json.loads(raw) if raw.strip() else {}
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise SlackError("invalid_json") from None
        if not isinstance(body, dict):
            raise SlackError("invalid_json")
        params.update(body)
    elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        form = await request.form()
        params.update({k: v for k, v in form.items() if isinstance(v, str)})
    return params


def bearer_token(request: Request, params: dict[str, Any]) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer ") and header[7:].strip():
        return header[7:].strip()
    token = params.pop("token", None)
    return token if isinstance(token, str) and token else None


def dispatch(store: EnvironmentStore, env_id: str, method: str, params: dict[str, Any]) -> dict:
    handler = METHODS[method]
    try:
        with store.open(env_id, write=True) as state:
            if state.service != "slack":
                raise SlackError("not_a_slack_environment", status=404)
            return {"ok": True, **handler(SlackCall(state, state.info.acting_user, params))}
    except EnvironmentNotFound:
        raise SlackError("environment_not_found", status=404) from None
    except InvalidEnvId:
        raise SlackError("invalid_environment_id", status=400) from None


@router.api_route("/{method}", methods=["GET", "POST"])
@router.api_route("/api/{method}", methods=["GET", "POST"])
async def call_method(env_id: str, method: str, request: Request, store: StoreDep) -> JSONResponse:
    try:
        if method not in METHODS:
            raise SlackError("unknown_method", status=404, req_method=method)
        params = await read_params(request)
        if bearer_token(request, params) is None:
            raise SlackError("not_authed")
        body = await run_in_threadpool(dispatch, store, env_id, method, params)
    except SlackError as e:
        return JSONResponse(e.body(), status_code=e.status)
    return JSONResponse(body)
