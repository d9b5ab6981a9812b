"""The longest test modules first, so that two workers end together.

`make test` hands whole modules to its two workers (`--dist loadfile`), in collection order: a
module of minutes that happens to come last (the wheel's fresh installs, Ray's clusters) runs
alone while the other worker idles. Ordering modules by the time they took is the classic
longest-first schedule. The times come from a measured run (`make test-timings` writes
tests/module_seconds.json); a module not in the file yet counts as a slow one, since new modules
are mostly end-to-end ones.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

SECONDS = Path(__file__).parent / "module_seconds.json"
UNMEASURED = 60.0  # a new module's guess: an end-to-end module's typical time


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class ModuleOrder:
    """Orders collected items by their module's measured time; with `--record-module-seconds`,
    measures each module's time (setup, call and teardown of its tests) and writes the file."""

    def __init__(self, record: bool) -> None:
        self.record = record
        self.seconds: dict[str, float] = defaultdict(float)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        known = json.loads(SECONDS.read_text()) if SECONDS.exists() else {}
        first_seen = {module_of(item.nodeid): n for n, item in reversed(list(enumerate(items)))}
        # Stable within a module, and between modules of equal time the collection order.
        items.sort(key=lambda item: (-known.get(module_of(item.nodeid), UNMEASURED),
                                     first_seen[module_of(item.nodeid)]))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.record:
            self.seconds[module_of(report.nodeid)] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.record or hasattr(session.config, "workerinput"):
            return  # xdist's workers report to the controller, which writes
        known = json.loads(SECONDS.read_text()) if SECONDS.exists() else {}
        known.update({module: round(seconds, 1) for module, seconds in self.seconds.items()})
        SECONDS.write_text(json.dumps(dict(sorted(known.items(), key=lambda kv: -kv[1])), indent=1) + "\n")
