"""The GitHub replica's router: git's smart HTTP (github.com), raw files and archives
(raw.githubusercontent.com, codeload.github.com), then every operation of
GitHub's OpenAPI description (the generated table) on the generic REST engine, answered by the
state-backed handlers or, where the replica does not model one, in GitHub's error shape."""

from __future__ import annotations

from pathlib import Path

from mock_services.github import access, errors
from mock_services.github.git.files import file_routes
from mock_services.github.git.smart_http import git_routes
from mock_services.github.handlers import handlers_for
from mock_services.rest.router import RestApi, build_router
from mock_services.rest.spec import load_spec

SPEC_FILE = Path(__file__).parent / "spec" / "api.github.com.json"
SPEC = load_spec(SPEC_FILE)

API = RestApi(pack="github", spec=SPEC, handlers=handlers_for(SPEC), error_body=errors.error_body,
              identify=access.identify, rate_limited=errors.rate_limited, extra=[git_routes, file_routes],
              partial_responses=False)
router = build_router(API)
