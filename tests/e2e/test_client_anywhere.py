"""The client installs where the stack cannot: detour-client's wheel (built from client/, as a
user's `python -m build` would) in a fresh venv beside the newest verifiers, whose pydantic
mitmproxy 12.2's pins forbid, and from there rollouts of the acme suite against a `detour serve`
stack, over HTTP alone.

Slow the first time in a day (pip takes ~4 minutes over verifiers' dependencies); the venv is
kept for the day, the client's wheel built and installed anew each run."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import needs_namespaces
from tests.harness_venvs import client_wheel, detour_serve, harness_venv, run

pytestmark = needs_namespaces

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "examples" / "suites" / "acme.json"
AGENT = REPO / "tests" / "agents" / "acme_suite.py"

TRAINER = """
import json, sys
import pydantic, verifiers
from detour_client import Client, StackError, SuiteError
url, key, suite, agent = sys.argv[1:]
client = Client(url, api_key=key)
outcomes = [(o.id, o.rollout, o.score, o.env_id) for o in
            client.rollouts(suite, ["python3", agent], n=1, workers=2, backend="namespace")]
try:
    next(client.rollouts(suite, ["python3", agent], test="acme_99"))
except SuiteError as e:
    refused = str(e)
try:
    client.rollout(json.load(open(suite)), __import__("detour_client").Rollout("acme_1"), [])
except StackError as e:
    stack_refused = str(e)
print(json.dumps({"outcomes": outcomes, "left": client.environments(), "refused": refused,
                  "stack_refused": stack_refused, "pydantic": pydantic.VERSION, "verifiers": verifiers.__version__}))
"""


@pytest.fixture(scope="module")
def trainer(tmp_path_factory) -> Path:
    """A venv with the newest verifiers and detour-client's wheel (built now), and nothing of the
    stack (tests/harness_venvs.py: kept for the day, the wheel installed anew each time)."""
    return harness_venv("trainer", ["verifiers"], client_wheel(tmp_path_factory.mktemp("trainer")))


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[str, str]]:
    with detour_serve(tmp_path_factory.mktemp("client-anywhere") / "home") as platform:
        yield platform


def test_the_client_beside_the_newest_verifiers_runs_rollouts_against_a_stack(trainer, served, tmp_path):
    python = trainer
    stack_free = subprocess.run([python, "-c", "import mitmproxy"], capture_output=True, text=True)
    assert stack_free.returncode != 0  # nothing of the stack came with the client
    (tmp_path / "trainer.py").write_text(TRAINER)
    url, key = served
    report = json.loads(run([python, tmp_path / "trainer.py", url, key, SUITE, AGENT], tmp_path).stdout)
    assert tuple(int(p) for p in report["pydantic"].split(".")[:2]) >= (2, 12)  # beyond mitmproxy 12.2's pins
    assert tuple(int(p) for p in report["verifiers"].split(".")[:2]) >= (0, 4)
    outcomes = report["outcomes"]
    assert sorted(o[0] for o in outcomes) == sorted(f"acme_{i}" for i in range(1, 16))
    assert {o[2] for o in outcomes} == {1.0} and len({o[3] for o in outcomes}) == 15
    assert report["left"] == []  # each rollout's environment went once scored
    assert report["refused"] == "no test 'acme_99' in the suite (its tests: " + ", ".join(
        f"acme_{i}" for i in range(1, 16)) + ")"
    assert report["stack_refused"].startswith("the stack refused POST /rollouts (422)")
