"""The GitHub replica's router: git's smart HTTP (github.com), GraphQL (`/graphql`), raw files
and archives (raw.githubusercontent.com, codeload.github.com), then every operation of
GitHub's OpenAPI description (the generated table) on the generic REST engine, answered by the
state-backed handlers or, where the replica does not model one, in GitHub's error shape."""

from __future__ import annotations

from mock_services.github import access, errors
from mock_services.github.git.files import file_routes
from mock_services.github.git.smart_http import git_routes
from mock_services.github.graphql.endpoint import graphql_routes
from mock_services.github.handlers import handlers_for
from mock_services.github.table import SPEC, SPEC_FILE
from mock_services.rest.router import RestApi, build_router

__all__ = ["API", "SPEC", "SPEC_FILE", "router"]

API = RestApi(pack="github", spec=SPEC, handlers=handlers_for(SPEC), error_body=errors.error_body,
              identify=access.identify, rate_limited=errors.rate_limited, extra=[git_routes, graphql_routes, file_routes],
              partial_responses=False)
router = build_router(API)
