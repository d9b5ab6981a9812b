"""How faithfully each pack answers its vendor's official clients, as measured, never written by
hand: `make fidelity` runs the official-client tests (tests/fidelity/client_scores.py names them
per pack), and writes each pack's cases, passed or not, with the date and commit it measured
them at, to fidelity.json beside this module. `detour services` and the service pages read that
one file; the score (passed of total) is counted on read, so the file holds only what was seen.

A case is one check of an official client's program (a key of its expected output: the calls
the client made and the answer it read) or, where a test has no such table, the test itself.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, RootModel

RESULTS = Path(__file__).with_name("fidelity.json")


class PackFidelity(BaseModel):
    """One pack's cases as one run of `make fidelity` found them."""

    measured_at: datetime
    commit: str
    cases: dict[str, bool]

    @property
    def passed(self) -> int:
        return sum(self.cases.values())

    @property
    def total(self) -> int:
        return len(self.cases)

    def score(self) -> str:
        """`passed/total`, or `-` where no official-client test covers the pack."""
        return f"{self.passed}/{self.total}" if self.cases else "-"

    def when(self) -> str:
        return f"{self.measured_at:%Y-%m-%d} at {self.commit}"

    def summary(self) -> dict:
        """The counts and when they were measured, without the cases (`detour services --json`)."""
        return {"passed": self.passed, "total": self.total, "measured_at": self.measured_at.isoformat(),
                "commit": self.commit}


class Fidelity(RootModel[dict[str, PackFidelity]]):
    """{pack: its measured cases}: the whole results file."""


def load(path: Path = RESULTS) -> dict[str, PackFidelity]:
    """The measured packs; empty where `make fidelity` has not written the file."""
    return Fidelity.model_validate_json(path.read_text()).root if path.exists() else {}


def save(packs: dict[str, PackFidelity], path: Path = RESULTS) -> None:
    path.write_text(Fidelity(dict(sorted(packs.items()))).model_dump_json(indent=1) + "\n")
