"""Through a real stack, with the replicas in the proxy's process (an embedded stack's way, where
the app runs in mitmproxy's event loop): packs not yet built answer their first requests right,
and first requests that arrive together build the pack once (mock_services/app.py's LazyPack)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from certs.authority import CertificateAuthority
from detour.stack import EMBEDDED, Stack
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from detour_core.registry import EXTRA_PACKS_VARIABLE
from mock_services.store import EnvironmentStore
from tests.packs.notes.router import BUILDS_VARIABLE

REPO = Path(__file__).resolve().parents[2]
AT_ONCE = 8


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StatePaths, Stack, Path]]:
    root = tmp_path_factory.mktemp("lazy")
    state = StatePaths(root / "home").ensure()
    noted = state.home / "notes-builds"  # in the home the proxy sees, writable by the proxy's own user
    noted.touch(mode=0o666)
    noted.chmod(0o666)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(EXTRA_PACKS_VARIABLE, "tests.packs.notes.pack")
        patch.setenv("PYTHONPATH", str(REPO))  # the proxy imports the pack from tests/
        patch.setenv(BUILDS_VARIABLE, str(noted))
        running = Stack(state, parts=EMBEDDED)
        with running:
            yield state, running, noted


def client(state: StatePaths, running: Stack, template: str) -> httpx.Client:
    env_id = EnvironmentStore(state).create(template).env_id
    proxy = running.info.access(env_id, secret_for(state, env_id)).url()
    return httpx.Client(proxy=proxy, verify=str(CertificateAuthority(state).ensure().bundle), timeout=60)


def test_first_requests_at_once_are_answered_and_build_the_pack_once(stack):
    state, running, noted = stack
    assert running.replicas_in_process
    with client(state, running, "notes_default") as notes, ThreadPoolExecutor(AT_ONCE) as pool:
        answers = list(pool.map(lambda _: notes.get("https://notes.example.test/v1/notes"), range(AT_ONCE)))
    assert [(a.status_code, a.json()) for a in answers] == [(200, {"notes": ["seeded"]})] * AT_ONCE
    (proxy,) = [proc.pid for proc in running.processes.values() if "proxy_addons" in " ".join(proc.args)]
    assert noted.read_text().split() == [str(proxy)]


def test_a_generated_pack_s_first_request_is_answered_in_its_vendor_s_shape(stack):
    state, running, _ = stack
    with client(state, running, "stripe_default") as stripe:
        missing = stripe.get("https://api.stripe.com/v1/customers/cus_missing",
                             headers={"Authorization": "Bearer sk_test_detour"})
        unknown = stripe.get("https://api.stripe.com/v1/nothing_here", headers={"Authorization": "Bearer sk_test_detour"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "resource_missing"
    assert unknown.status_code == 404 and unknown.json()["error"]["type"] == "invalid_request_error"
