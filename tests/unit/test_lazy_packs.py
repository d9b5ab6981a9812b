"""The replica app builds a pack's routes on the first request below its path prefix
(mock_services/app.py's Packs and LazyPack): making the app builds none, concurrent first requests wait
for one build, and the built routes answer as the app's own table did (405, 404 at unknown paths)."""

import asyncio

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.routing import NoMatchFound

from detour_core.registry import EXTRA_PACKS_VARIABLE, InvalidServicePack
from mock_services.app import LazyPack, Packs, create_replica_app
from mock_services.store import EnvironmentStore
from tests.packs.notes.router import builds

FIRST_REQUESTS = 8


def lazy(app, name: str) -> LazyPack:
    (packs,) = [r for r in app.router.routes if isinstance(r, Packs)]
    return packs.by_name[name]


async def first_requests(app, url: str) -> list[httpx.Response]:
    """FIRST_REQUESTS at once, the pack's build held until they have all reached it."""
    before = builds.count
    builds.gate.clear()
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://replica") as client:
            calls = [asyncio.create_task(client.get(url)) for _ in range(FIRST_REQUESTS)]
            while builds.count == before:  # the first request is building the pack
                await asyncio.sleep(0.01)
            for _ in range(100):  # the others run up to the pack's route meanwhile
                await asyncio.sleep(0)
            builds.gate.set()
            return await asyncio.gather(*calls)
    finally:
        builds.gate.set()


def test_concurrent_first_requests_build_a_pack_once_and_are_answered(state, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(EXTRA_PACKS_VARIABLE, "tests.packs.notes.pack")
    app = create_replica_app(state)
    (packs,) = [r for r in app.router.routes if isinstance(r, Packs)]
    assert all(p.routes is None for p in packs.by_name.values())  # none built yet
    env_id = EnvironmentStore(state).create("notes_default").env_id
    before = builds.count

    answers = asyncio.run(first_requests(app, f"/api/env/{env_id}/services/notes/v1/notes"))

    assert [(a.status_code, a.json()) for a in answers] == [(200, {"notes": ["seeded"]})] * FIRST_REQUESTS
    assert builds.count == before + 1
    assert lazy(app, "notes").routes is not None and lazy(app, "slack").routes is None  # only what was called


def test_a_built_pack_answers_unknown_paths_methods_and_names_as_the_app_did(state, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(EXTRA_PACKS_VARIABLE, "tests.packs.notes.pack")
    app = create_replica_app(state)
    env_id = EnvironmentStore(state).create("notes_default").env_id
    client = TestClient(app)
    prefix = f"/api/env/{env_id}/services/notes"
    with pytest.raises(NoMatchFound):  # not built: its routes' names are not known yet, nor is it an error
        app.url_path_for("notes", env_id=env_id)
    assert client.get(prefix + "/v1/notes").json() == {"notes": ["seeded"]}
    assert app.url_path_for("notes", env_id=env_id) == prefix + "/v1/notes"
    assert client.put(prefix + "/v1/notes").status_code == 405  # the path is the pack's; the method is not
    assert client.get(prefix + "/v2/nothing").json() == {"detail": "Not Found"}
    assert client.get(f"/api/env/{env_id}/services/notesx/v1/notes").status_code == 404  # not the pack's prefix
    slack = client.post(f"/api/env/{env_id}/services/slack/api/nothing.here")  # a vendor's own shape
    assert slack.json()["ok"] is False


def test_a_users_pack_whose_router_cannot_be_imported_fails_the_start(state, tmp_path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "typo_pack.py").write_text(
        "from pathlib import Path\nfrom detour_core.pack import ServicePack\n"
        "PACK = ServicePack(name='typo', hosts=('typo.example.test',), router='typo_pack_routr:router',"
        " templates=Path('.'), signature_tables=('t',))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(EXTRA_PACKS_VARIABLE, "typo_pack")
    with pytest.raises(InvalidServicePack, match="service pack 'typo': its router 'typo_pack_routr:router' cannot be "
                                                   "imported: ModuleNotFoundError"):
        create_replica_app(state)
