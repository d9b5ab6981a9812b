"""The operation table generated from GitHub's OpenAPI description (generate_spec.py), loaded
once for the REST router and the GraphQL layer alike."""

from __future__ import annotations

from pathlib import Path

from mock_services.rest.spec import load_spec

SPEC_FILE = Path(__file__).parent / "spec" / "api.github.com.json"
SPEC = load_spec(SPEC_FILE)
