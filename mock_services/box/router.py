"""The Box replica's router: every operation of Box's official SDK (the generated spec),
answered by the state-backed handlers in Box's shapes; plus the download host that a
download's 302 points at (dl.boxcloud.com)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import Response

from detour_core.errors import EnvironmentNotFound
from mock_services.box import errors
from mock_services.box.access import identify
from mock_services.box.handlers import handlers_for
from mock_services.box.handlers.transfer import serve_download
from mock_services.deps import StoreDep
from mock_services.rest.errors import RestError
from mock_services.rest.router import Engine, RestApi, build_router
from mock_services.rest.spec import load_spec

SPEC_FILE = Path(__file__).parent / "spec" / "box_sdk.json"
SPEC = load_spec(SPEC_FILE)


def download_routes(router: APIRouter, engine: Engine) -> None:
    """`GET dl.boxcloud.com/d/1/{token}/download`: the bytes a download URL stands for."""

    @router.get("/d/1/{token}/download")
    def download(env_id: str, token: str, request: Request, store: StoreDep) -> Response:
        try:
            with store.open(env_id, service="box") as state:
                return serve_download(state, token, request.headers.get("range"))
        except RestError as failed:
            return engine.error(failed)
        except EnvironmentNotFound:
            return engine.error(errors.not_found("environment"))


API = RestApi(pack="box", spec=SPEC, handlers=handlers_for(SPEC), error_body=errors.error_body, identify=identify,
              rate_limited=errors.rate_limited, extra=[download_routes], partial_responses=False)
router = build_router(API)
