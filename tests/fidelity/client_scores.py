"""Each pack's fidelity score, measured from its vendor's official-client tests (`make fidelity`
runs `python -m tests.fidelity.client_scores`; not part of `make test`, whose own runs of the
same tests decide pass or fail).

The cases are the official-client tests that already exist in tests/e2e, named here per pack
(SOURCES), run once more on the namespace and process backends (docker's runs check the
backend, not the vendor). A test whose program prints a table the test holds to (its module's
EXPECTED) gives a case per key of that table, passed when the client's answer equals it, so one
wrong answer costs one case, not the program; the test itself is a case too (it also checks the
hosts reached and the diff). Where one program covers several packs, its table is keyed by
program section, and SOURCES says which pack each section is. The results go to
mock_services/fidelity.json (mock_services/fidelity.py), each pack with the date and commit it
was measured at; a pack whose tests this machine skips keeps its last measurement.
"""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from detour_core.registry import packs
from mock_services.fidelity import PackFidelity, load, save

ROOT = Path(__file__).parents[2]
PARAM = "the test's `pack` parameter"
# A test's nodeid prefix -> the pack(s) its vendor client exercises; a dict where one program's
# output is keyed by section ({section: pack}). The longest prefix that matches decides.
Packs = str | tuple[str, ...] | dict[str, str]
SOURCES: dict[str, Packs] = {
    "tests/e2e/test_official_clients.py::test_slack_sdk": "slack",
    "tests/e2e/test_official_clients.py::test_npm_slack_web_api": "slack",
    "tests/e2e/test_official_clients.py::test_linear_sdk": "linear",
    "tests/e2e/test_slack_web_api.py": "slack",
    "tests/e2e/test_linear_vendor_rules.py": "linear",
    "tests/e2e/test_rewrite_official_clients.py": PARAM,
    "tests/e2e/test_gmail_clients.py::test_google_api_python_client": "gmail",
    "tests/e2e/test_gmail_clients.py::test_npm_googleapis": "gmail",
    "tests/e2e/test_gmail_pubsub_watch.py": ("pubsub", "gmail"),
    "tests/e2e/test_calendar_clients.py::test_google_api_python_client": "calendar",
    "tests/e2e/test_calendar_clients.py::test_npm_googleapis": "calendar",
    "tests/e2e/test_calendar_clients.py::test_quick_add": "calendar",
    "tests/e2e/test_drive_clients.py::test_google_api_python_client": "drive",
    "tests/e2e/test_drive_clients.py::test_npm_googleapis": "drive",
    "tests/e2e/test_drive_clients.py::test_rewrite_mode": "drive",
    "tests/e2e/test_box_clients.py::test_boxsdk": "box",
    "tests/e2e/test_box_clients.py::test_box_node_sdk": "box",
    "tests/e2e/test_github_clients.py": "github",
    "tests/e2e/test_github_gh.py": "github",
    "tests/e2e/test_github_node.py::test_octokit_rest": "github",
    "tests/e2e/test_stripe_client.py": "stripe",
    "tests/e2e/test_twilio_client.py": "twilio",
    "tests/e2e/test_hubspot_client.py": "hubspot",
    "tests/e2e/test_jira_client.py": "jira",
    "tests/e2e/test_zendesk_client.py": "zendesk",
    "tests/e2e/test_notion_client.py": "notion",
    "tests/e2e/test_google_workspace_clients.py": {p: p for p in ("tasks", "docs", "sheets", "people", "chat")},
    "tests/e2e/test_microsoft_graph_clients.py": {"mail": "outlook_mail", "calendar": "outlook_calendar",
                                                  "teams": "teams", "onedrive": "onedrive"},
    "tests/e2e/test_team_tools_clients.py": {p: p for p in ("pagerduty", "sendgrid", "asana", "intercom", "sentry",
                                                            "discord", "trello", "gitlab")},
}
MEASURED_BACKENDS = {"namespace", "process"}
USES_TABLE = re.compile(r"\bEXPECTED\b")


def source(nodeid: str) -> Packs | None:
    matches = [prefix for prefix in SOURCES if nodeid.startswith(prefix)]
    return SOURCES[max(matches, key=len)] if matches else None


def measured(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    return source(item.nodeid) is not None and (
        callspec is None or callspec.params.get("backend", "process") in MEASURED_BACKENDS)


def listed(named: Packs) -> tuple[str, ...]:
    """The packs a source names (all sections' packs, for a program keyed by section)."""
    return (named,) if isinstance(named, str) else tuple(named.values()) if isinstance(named, dict) else named


def packs_of(item: pytest.Item, named: Packs) -> tuple[str, ...]:
    return (item.callspec.params["pack"],) if named == PARAM else listed(named)


def printed_table(results: list) -> dict:
    """The first JSON object a run of the test printed ({} if none did: the program failed)."""
    for result in results:
        try:
            found = json.loads(result.stdout)
        except ValueError:
            continue
        if isinstance(found, dict):
            return found
    return {}


def table_cases(item: pytest.Item, named: Packs, printed: dict) -> Iterator[tuple[str, str, bool]]:
    """(pack, case, passed) per key of the module's EXPECTED, for a test that holds to it."""
    expected = getattr(item.module, "EXPECTED", None)
    if not isinstance(expected, dict) or not USES_TABLE.search(inspect.getsource(item.function)):
        return
    if isinstance(named, dict):
        for section, pack in named.items():
            got = printed.get(section)
            for key, value in expected[section].items():
                yield pack, f"{item.name} {section}.{key}", isinstance(got, dict) and got.get(key) == value
        return
    for pack in packs_of(item, named):
        for key, value in expected.items():
            yield pack, f"{item.name} {key}", printed.get(key) == value


class Scores:
    """The pytest plugin: picks the sources' tests, records each one's runs and outcome, and
    writes the packs' cases when the session ends."""

    def __init__(self) -> None:
        self.items: dict[str, pytest.Item] = {}
        self.runs: dict[str, list] = defaultdict(list)
        self.failed: dict[str, bool] = {}

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        keep = [item for item in items if measured(item)]
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep
        self.items = {item.nodeid: item for item in keep}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        """Each LiveStack.run of the test, kept (the program's output is read after)."""
        from tests.conftest import LiveStack
        original = LiveStack.run

        def recording(stack, *args, **kwargs):
            result = original(stack, *args, **kwargs)
            self.runs[item.nodeid].append(result)
            return result
        LiveStack.run = recording
        try:
            return (yield)
        finally:
            LiveStack.run = original

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A test fails if any phase does; one skipped (this machine cannot run it) is no case."""
        if report.failed:
            self.failed[report.nodeid] = True
        elif report.skipped or report.when == "call":
            self.failed.setdefault(report.nodeid, None if report.skipped else False)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:  # noqa: ARG002 - pytest's hook signature
        if not self.failed:  # nothing ran (--collect-only, or all skipped): nothing measured
            return
        cases: dict[str, dict[str, bool]] = defaultdict(dict)
        for nodeid, failed in self.failed.items():
            item = self.items.get(nodeid)
            if item is None or failed is None:  # skipped: this machine cannot run it
                continue
            named = source(nodeid)
            for pack in packs_of(item, named):
                cases[pack][item.name] = not failed
            for pack, case, passed in table_cases(item, named, printed_table(self.runs[nodeid])):
                cases[pack][case] = passed
        write(cases)


def write(cases: dict[str, dict[str, bool]]) -> None:
    """The measured packs' cases over the file's earlier ones; every pack of the registry is in
    the file, one no source names with no cases (as of this run)."""
    now, commit = datetime.now(UTC).replace(microsecond=0), head()
    results = load()
    for pack in (p.name for p in packs()):
        if pack in cases or not (pack in results and results[pack].total):
            results[pack] = PackFidelity(measured_at=now, commit=commit, cases=dict(sorted(cases.get(pack, {}).items())))
    save(results)
    for pack, found in sorted(results.items()):
        print(f"{pack:<18} {found.score():>7}  {found.when()}")


def head() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def main(args: list[str]) -> int:
    """Runs every source's tests (pytest's options from `args`, e.g. -x) and writes the scores:
    always all of them, since a pack's cases come from several files."""
    files = sorted({prefix.split("::")[0] for prefix in SOURCES})
    return pytest.main(["-p", "no:randomly", *args, *files], plugins=[Scores()])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
