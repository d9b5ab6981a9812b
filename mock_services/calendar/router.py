"""The Calendar replica's router: every operation of Calendar v3's discovery document (the
generated spec), answered by the state-backed handlers, in Google's shapes; plus Google's
batch endpoint and the OAuth token endpoint."""

from __future__ import annotations

from pathlib import Path

from mock_services.calendar.access import identify
from mock_services.calendar.handlers import HANDLERS
from mock_services.rest import google
from mock_services.rest.router import RestApi, build_router
from mock_services.rest.spec import load_spec

SPEC_FILE = Path(__file__).parent / "spec" / "calendar_v3.json"

API = RestApi(pack="calendar", spec=load_spec(SPEC_FILE), handlers=HANDLERS, error_body=google.error_body,
              identify=identify, rate_limited=google.rate_limited,
              extra=[google.batch_routes, google.token_routes])
router = build_router(API)
