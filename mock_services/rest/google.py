"""What every Google API replica shares: Google's error shape, its rate-limit answer, the
batch endpoint (multipart/mixed of HTTP requests) and the OAuth token endpoint that
credentials refresh against (service-account keys, refresh tokens)."""

from __future__ import annotations

import secrets
from email import message_from_bytes, policy
from http import HTTPStatus
from urllib.parse import parse_qsl, unquote, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from mock_services import clock
from mock_services.deps import StoreDep
from mock_services.rest import faults as rest_faults
from mock_services.rest.errors import RestError
from mock_services.rest.router import Engine

STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                409: "ALREADY_EXISTS", 412: "FAILED_PRECONDITION", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
                501: "UNIMPLEMENTED", 503: "UNAVAILABLE"}
USAGE_LIMITS = {"rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded"}
TOKEN_PREFIX = "ya29.detour."


def error_body(error: RestError) -> dict:
    """`{"error": {"code", "message", "errors": [{"domain", "reason", "message"}], "status"}}`."""
    domain = "usageLimits" if error.reason in USAGE_LIMITS else "global"
    body = {"code": error.status, "message": error.message,
            "errors": [{"domain": domain, "reason": error.reason, "message": error.message}]}
    if error.status in STATUS_NAMES:
        body["status"] = STATUS_NAMES[error.status]
    return {"error": body}


# The generic engine's reasons as Google names them in `errors[].reason` (packs generated from a
# discovery document: mock_services/rest/openapi/from_discovery.py).
GENERATED_REASONS = {400: "invalid", 401: "authError", 403: "forbidden", 404: "notFound", 501: "notImplemented"}


def generated_error_body(error: RestError) -> dict:
    """Google's error body for a pack generated from a discovery document, which describes none."""
    reason = error.reason if error.status == 429 else GENERATED_REASONS.get(error.status, error.reason)
    return error_body(RestError(error.status, reason, error.message))


def rate_limited(retry_after: int) -> RestError:
    return RestError(429, "rateLimitExceeded", "Rate Limit Exceeded", {"Retry-After": str(retry_after)})


# The status faults an environment injects, as Google answers them (detour_core.faults).
fault_answer = rest_faults.answers(rate_limited, error_body, {})


def issue_token(user_id: str) -> str:
    """A token that names the user it acts as (sandboxes hold no real secrets to protect)."""
    return f"{TOKEN_PREFIX}{user_id}.{secrets.token_urlsafe(12)}"


def token_user(token: str | None) -> str | None:
    if token and token.startswith(TOKEN_PREFIX):
        return token[len(TOKEN_PREFIX):].rpartition(".")[0] or None
    return None


def _split_part(payload: bytes) -> tuple[str, str, list[tuple[str, str]], dict[str, str], bytes]:
    """One part of a batch: `GET /calendar/v3/...?q HTTP/1.1`, headers, a blank line, a body."""
    head, _, body = payload.replace(b"\r\n", b"\n").partition(b"\n\n")
    lines = head.decode("utf-8", "replace").split("\n")
    method, target, *_ = lines[0].split(" ") + [""]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    parts = urlsplit(target)
    return method.upper(), unquote(parts.path), parse_qsl(parts.query, keep_blank_values=True), headers, body


def _response_part(content_id: str | None, response: Response) -> str:
    reason = HTTPStatus(response.status_code).phrase
    lines = ["Content-Type: application/http"]
    if content_id:
        lines.append(f"Content-ID: <response-{content_id.strip('<>')}>")
    body = response.body.decode() if response.body else ""
    inner = [f"HTTP/1.1 {response.status_code} {reason}"]
    inner += [f"{k}: {v}" for k, v in response.headers.items() if k.lower() in ("content-type", "etag", "retry-after")]
    return "\r\n".join(lines) + "\r\n\r\n" + "\r\n".join(inner) + "\r\n\r\n" + body


def batch_routes(router: APIRouter, engine: Engine) -> None:
    """`POST {batchPath}`: each part runs as its own request (Google's batches are not atomic)."""
    spec = engine.api.spec
    if not spec.batch_path:
        return

    @router.post(spec.batch_path)
    async def batch(env_id: str, request: Request, store: StoreDep) -> Response:
        content_type = request.headers.get("content-type", "")
        if not content_type.startswith("multipart/mixed"):
            return engine.error(RestError(400, "badContent", "Batch requests need multipart/mixed"))
        envelope = message_from_bytes(f"Content-Type: {content_type}\r\n\r\n".encode() + await request.body(),
                                      policy=policy.HTTP)
        if not envelope.is_multipart():
            return engine.error(RestError(400, "badContent", "Batch request has no parts"))
        answers = []
        for part in envelope.iter_parts():
            method, path, query, headers, body = _split_part(part.get_payload(decode=True) or b"")
            if not path.startswith(spec.service_path + "/"):
                response: Response = engine.error(RestError(404, "notFound", "Not Found"))
            else:
                headers.setdefault("authorization", request.headers.get("authorization", ""))
                response = await engine.respond(request, store, env_id, method, path[len(spec.service_path) + 1:],
                                                query, headers, body)
            answers.append(_response_part(part.get("Content-ID"), response))
        boundary = f"batch_{clock.token_hex(16)}"
        text = "".join(f"--{boundary}\r\n{answer}\r\n" for answer in answers) + f"--{boundary}--\r\n"
        return Response(text, media_type=f"multipart/mixed; boundary={boundary}")


def token_routes(router: APIRouter, engine: Engine) -> None:
    """`POST /token` (oauth2.googleapis.com): a token for the environment's acting user, or
    for the user a service account's assertion names as its subject."""

    @router.post("/token")
    async def token(env_id: str, request: Request, store: StoreDep) -> JSONResponse:
        form = dict(parse_qsl((await request.body()).decode("utf-8", "replace")))
        grant = form.get("grant_type", "")
        if grant not in ("refresh_token", "urn:ietf:params:oauth:grant-type:jwt-bearer", "client_credentials",
                         "authorization_code"):
            return JSONResponse({"error": "unsupported_grant_type", "error_description": f"Invalid grant_type: {grant}"},
                                status_code=400)
        try:
            with store.open(env_id, service=engine.api.pack) as state:
                user = state.info.acting_user
        except Exception:  # an unknown or malformed environment: OAuth's own error shape
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        answer = {"access_token": issue_token(user), "expires_in": 3599, "token_type": "Bearer"}
        if form.get("scope"):
            answer["scope"] = form["scope"]
        return JSONResponse(answer)

