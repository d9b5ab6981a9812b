"""A service is a pack and one registration: a throwaway pack (tests/packs/notes), named in
DETOUR_SERVICE_PACKS and nowhere in detour's tree, is routed by host, served, logged and diffed,
through the proxy and through rewrite mode's preludes, as Slack and Linear are."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from detour.stack import Stack
from detour_core.paths import StatePaths
from detour_core.registry import EXTRA_PACKS_VARIABLE, service_names
from mock_services.store import EnvironmentStore
from tests.conftest import BACKENDS, LiveStack

REPO = Path(__file__).resolve().parents[2]
AGENT = """
import json, urllib.request
def call(method, body=None):
    data = json.dumps(body).encode() if body else None
    request = urllib.request.Request("https://notes.example.test/v1/notes", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request, timeout=20))
call("POST", {"text": "from the agent"})
print(json.dumps(call("GET")))
"""


@pytest.fixture(scope="module")
def notes_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:
    root = tmp_path_factory.mktemp("notes")
    state = StatePaths(root / "home").ensure()
    (root / "scripts").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(EXTRA_PACKS_VARIABLE, "tests.packs.notes.pack")
        patch.setenv("PYTHONPATH", str(REPO))  # the stack's processes import the pack from tests/
        with Stack(state) as info:
            yield LiveStack(state, info, EnvironmentStore(state), root / "scripts")


def test_the_pack_is_not_in_detours_own_registry():
    assert "notes" not in service_names()


@pytest.mark.parametrize("mode", ["proxy", "rewrite"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_registered_pack_is_routed_served_audited_and_diffed(notes_stack, backend, mode):
    env = notes_stack.env("notes_default")
    result = notes_stack.run(env, AGENT, ".py", backend=backend, mode=mode)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == '{"notes": ["seeded", "from the agent"]}'
    assert [(r.decision, r.service, r.host, r.path) for r in result.requests] == [
        ("routed", "notes", "notes.example.test", "/v1/notes")] * 2
    assert {r.mode for r in result.requests} <= ({"rewrite"} if mode == "rewrite" else {"regular", "transparent"})
    assert [(row["__table__"], row["text"]) for row in result.diff.inserts] == [("notes", "from the agent")]


def test_its_other_hosts_stay_denied(notes_stack):
    env = notes_stack.env("notes_default")
    code = ("import urllib.request, urllib.error\n"
            "try: urllib.request.urlopen('https://other.example.test/v1/notes', timeout=20)\n"
            "except urllib.error.HTTPError as e: print(e.code)\n")
    result = notes_stack.run(env, code, ".py")
    assert result.stdout.strip() == "403"
    assert [(r.decision, r.reason) for r in result.requests] == [("denied", "host not allowed")]
