"""The Gmail replica's router: every operation of Gmail v1's discovery document (the
generated spec), answered by the state-backed handlers in Google's shapes; plus the upload
paths and Google's batch endpoint (at `/batch`, and at `/batch/gmail/v1` where older clients
send it)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter

from mock_services.gmail.handlers import HANDLERS
from mock_services.gmail.mailbox import identify
from mock_services.gmail.uploads import upload_routes
from mock_services.rest import google
from mock_services.rest.router import Engine, RestApi, build_router
from mock_services.rest.spec import load_spec

SPEC_FILE = Path(__file__).parent / "spec" / "gmail_v1.json"


def batch_routes(router: APIRouter, engine: Engine) -> None:
    google.batch_routes(router, engine)
    endpoint = next(r.endpoint for r in router.routes if getattr(r, "path", "").endswith("/batch"))
    router.add_api_route("/batch/gmail/v1", endpoint, methods=["POST"])


API = RestApi(pack="gmail", spec=load_spec(SPEC_FILE), handlers=HANDLERS, error_body=google.error_body,
              identify=identify, rate_limited=google.rate_limited, extra=[upload_routes, batch_routes, google.token_routes])
router = build_router(API)
