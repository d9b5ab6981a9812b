"""What the Google replicas' fuzz tests share: JSON bodies drawn from a method's own names and
a service's telling values, and a replica served in-process with one fresh environment."""

from __future__ import annotations

from fastapi.testclient import TestClient
from hypothesis import strategies as st

from detour.apps.server import create_app
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore


def json_values(names: list[str], samples: list[str]) -> st.SearchStrategy:
    """Nested JSON whose keys are `names` and whose leaves are anything, often `samples`."""
    scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                        st.text(max_size=30), st.sampled_from(samples))
    return st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(st.sampled_from(names), inner, max_size=4)),
                        max_leaves=8)


def served_replica(tmp_path_factory, template: str, service: str) -> tuple[TestClient, str]:
    """A client of detour's replica app (5xx answered, not raised) and the service's base path
    in a new environment of `template`."""
    state = StatePaths(tmp_path_factory.mktemp(f"{service}-fuzz")).ensure()
    client = TestClient(create_app(state, api_auth=False), raise_server_exceptions=False)
    return client, f"/api/env/{EnvironmentStore(state).create(template).env_id}/services/{service}"
