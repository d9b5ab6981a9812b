"""The fidelity scores (mock_services/fidelity.json) as `make fidelity` wrote them: the file is
well formed and covers every pack, exactly the packs an official-client test names have cases,
the tests it names exist, and `detour services` shows what the file says (the measuring itself
is `make fidelity`'s, not this test's)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

from typer.testing import CliRunner

from detour.cli import app
from detour_core.registry import packs
from mock_services.fidelity import RESULTS, PackFidelity, load, save
from tests.fidelity.client_scores import PARAM, SOURCES, listed, printed_table, table_cases

REPO = Path(__file__).resolve().parents[2]


def named_packs() -> set[str]:
    return {pack for named in SOURCES.values() if named != PARAM for pack in listed(named)}


def test_the_results_cover_every_pack_and_only_the_named_ones_have_cases():
    assert RESULTS.exists(), "run `make fidelity`: it measures the packs and writes the scores"
    results = load()
    assert set(results) == {p.name for p in packs()}, "a pack is missing: run `make fidelity`"
    assert named_packs() <= {name for name, found in results.items() if found.total} <= {p.name for p in packs()}
    assert all(found.commit and found.passed <= found.total for found in results.values())


def test_every_source_names_a_test_that_exists_and_a_pack_of_the_registry():
    assert named_packs() <= {p.name for p in packs()}
    for prefix in SOURCES:
        path, _, function = prefix.partition("::")
        assert (REPO / path).is_file(), prefix
        assert not function or re.search(rf"^def {function}", (REPO / path).read_text(), re.M), prefix


def test_a_pack_with_no_cases_scores_none_and_the_file_round_trips(tmp_path):
    now = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)
    written = {"a": PackFidelity(measured_at=now, commit="abc1234", cases={"x": True, "y": False}),
               "b": PackFidelity(measured_at=now, commit="abc1234", cases={})}
    save(written, tmp_path / "fidelity.json")
    read = load(tmp_path / "fidelity.json")
    assert (read, read["a"].score(), read["b"].score(), read["a"].when()) == (written, "1/2", "-", "2026-11-27 at abc1234")


def test_detour_services_shows_each_packs_measured_score():
    listed = json.loads(CliRunner().invoke(app, ["services", "--json"]).output)
    assert {row["service"]: row["fidelity"] for row in listed} == {name: found.summary() for name, found in load().items()}
    text = CliRunner().invoke(app, ["services"]).output
    slack = load()["slack"]
    assert re.search(rf"^slack .* {slack.score()}  slack\.com", text, re.M) and slack.when() in text


EXPECTED = {"mail": {"unread": 2, "missing": 404}, "teams": {"said": ["hi"]}}


def a_test_holding_to_the_table():
    return EXPECTED


def test_one_wrong_answer_costs_its_case_and_a_program_that_printed_nothing_all_of_them():
    item = SimpleNamespace(module=SimpleNamespace(EXPECTED=EXPECTED), function=a_test_holding_to_the_table, name="t[ns]")
    sections = {"mail": "outlook_mail", "teams": "teams"}
    printed = printed_table([SimpleNamespace(stdout="warming up"),
                             SimpleNamespace(stdout=json.dumps({"mail": {"unread": 2, "missing": 500}, "teams": {"said": ["hi"]}}))])
    assert list(table_cases(item, sections, printed)) == [
        ("outlook_mail", "t[ns] mail.unread", True), ("outlook_mail", "t[ns] mail.missing", False),
        ("teams", "t[ns] teams.said", True)]
    assert [passed for *_, passed in table_cases(item, sections, printed_table([SimpleNamespace(stdout="")]))] == [False] * 3
    flat = SimpleNamespace(module=SimpleNamespace(EXPECTED={"me": "agent"}), function=a_test_holding_to_the_table, name="t")
    assert list(table_cases(flat, "jira", {"me": "agent"})) == [("jira", "t me", True)]
