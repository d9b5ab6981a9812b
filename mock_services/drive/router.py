"""The Drive replica's router: every operation of Drive v3's discovery document (the generated
spec), answered by the state-backed handlers in Google's shapes; Google's batch endpoint; and
the upload paths (`/upload/drive/v3/...`) of the two methods the document says take media
(files.create, files.update), whose bodies reach their handlers as the bytes that came."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import Response

from mock_services.deps import StoreDep
from mock_services.drive.access import identify
from mock_services.drive.handlers import HANDLERS
from mock_services.drive.handlers.uploads import HANDLERS as UPLOAD_HANDLERS
from mock_services.rest import google
from mock_services.rest.router import Engine, RestApi, build_router
from mock_services.rest.spec import Parameter, Spec, load_spec

SPEC_FILE = Path(__file__).parent / "spec" / "drive_v3.json"
SPEC = load_spec(SPEC_FILE)
MEDIA_UPLOADS = ("files.create", "files.update")  # the methods with `mediaUpload` in the document


def upload_spec(spec: Spec) -> Spec:
    """The media methods as their upload path takes them: any body, as bytes, and the session
    id a resumable upload's Location carries."""
    session = Parameter("upload_id", "query")
    return replace(spec, operations=tuple(
        replace(o, content_type="application/octet-stream", parameters={**o.parameters, "upload_id": session})
        for o in spec.operations if o.short_id in MEDIA_UPLOADS))


def upload_routes(router: APIRouter, engine: Engine) -> None:
    uploads = Engine(replace(engine.api, spec=upload_spec(engine.api.spec), handlers=UPLOAD_HANDLERS))

    @router.api_route("/upload/drive/v3/{path:path}", methods=["POST", "PATCH", "PUT"])
    async def upload(env_id: str, path: str, request: Request, store: StoreDep) -> Response:
        query = request.query_params.multi_items()
        method = request.method
        if method == "PUT" and request.query_params.get("upload_id"):
            method = "PATCH" if "/" in path.strip("/") else "POST"  # a session's chunks, for the method that opened it
        return await uploads.respond(request, store, env_id, method, path, query,
                                     {k.lower(): v for k, v in request.headers.items()}, await request.body())


API = RestApi(pack="drive", spec=SPEC, handlers=HANDLERS, error_body=google.error_body, identify=identify,
              rate_limited=google.rate_limited, extra=[google.batch_routes, google.token_routes, upload_routes])
router = build_router(API)
