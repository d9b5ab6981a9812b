"""Gmail's upload paths (`/upload/gmail/v1/...`): a message sent, inserted, imported or
drafted as media rather than as base64 in JSON. Each upload becomes the JSON call it stands
for (the metadata with the bytes as `raw`) and runs as that operation: `uploadType=media`
(the bytes alone), `multipart` (multipart/related: metadata, then the bytes) and `resumable`
(a session whose id carries the method and metadata, then the bytes in one PUT)."""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import Response

from mock_services.deps import StoreDep
from mock_services.gmail import mime
from mock_services.rest.errors import RestError
from mock_services.rest.router import Engine

PREFIX = "/upload/gmail/v1/"
ROOT = "https://gmail.googleapis.com"  # where a resumable session's later requests go (Gmail's rootUrl)


def related_parts(content_type: str, raw: bytes) -> list[bytes]:
    """The bodies of a multipart/related request, byte for byte."""
    match = re.search(r'boundary="?([^";]+)"?', content_type)
    if not match:
        raise RestError(400, "badContent", "A multipart upload needs a boundary")
    delimiter = b"--" + match.group(1).encode()
    bodies = []
    for chunk in raw.split(delimiter)[1:]:
        if chunk.startswith(b"--"):
            break
        _, _, body = chunk.replace(b"\r\n", b"\n", 2).partition(b"\n\n") if b"\r\n\r\n" not in chunk \
            else chunk.partition(b"\r\n\r\n")
        bodies.append(body[:-2] if body.endswith(b"\r\n") else body.rstrip(b"\n"))
    return bodies


def metadata_of(text: bytes) -> dict:
    try:
        found = json.loads(text or b"{}")
    except ValueError:
        raise RestError(400, "parseError", "Parse Error") from None
    if not isinstance(found, dict):
        raise RestError(400, "parseError", "Parse Error")
    return found


def with_raw(path: str, metadata: dict, data: bytes) -> bytes:
    """The JSON body the operation takes: a Message's `raw`, or a Draft's message's."""
    raw = mime.encode(data)
    if "/drafts" in path:
        message = metadata.get("message") if isinstance(metadata.get("message"), dict) else {}
        metadata = {**metadata, "message": {**message, "raw": raw}}
    else:
        metadata = {**metadata, "raw": raw}
    return json.dumps(metadata).encode()


def upload_routes(router: APIRouter, engine: Engine) -> None:

    @router.api_route(PREFIX + "{path:path}", methods=["POST", "PUT"])
    async def upload(env_id: str, path: str, request: Request, store: StoreDep) -> Response:
        query = [(k, v) for k, v in request.query_params.multi_items() if k not in ("uploadType", "upload_id")]
        headers = {k.lower(): v for k, v in request.headers.items()}
        kind = request.query_params.get("uploadType", "media")
        body, content_type = await request.body(), headers.get("content-type", "")
        try:
            method = request.method
            if kind == "resumable" and "upload_id" not in request.query_params:
                session = base64.urlsafe_b64encode(json.dumps({"method": method, "metadata": metadata_of(body)})
                                                   .encode()).decode()
                again = urlencode([*query, ("uploadType", "resumable"), ("upload_id", session)])
                location = f"{ROOT}{PREFIX}{path}?{again}"
                return Response(status_code=200, headers={"Location": location, "X-GUploader-UploadID": session})
            if kind == "resumable":
                session = metadata_of(base64.urlsafe_b64decode(request.query_params["upload_id"].encode()))
                method, metadata, data = session.get("method", "POST"), session.get("metadata") or {}, body
            elif kind == "multipart":
                parts = related_parts(content_type, body)
                if len(parts) != 2:
                    raise RestError(400, "badContent", "A multipart upload has metadata and media")
                metadata, data = metadata_of(parts[0]), parts[1]
            elif kind == "media":
                metadata, data = {}, body
            else:
                raise RestError(400, "invalid", f"Invalid uploadType: {kind}")
        except (RestError, ValueError) as e:
            return engine.error(e if isinstance(e, RestError) else RestError(400, "invalid", "Invalid upload"))
        return await engine.respond(request, store, env_id, method, "gmail/v1/" + path, query,
                                    headers | {"content-type": "application/json"}, with_raw(path, metadata, data))
