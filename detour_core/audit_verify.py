"""`detour logs --verify`: walks an environment's hash chain (audit.py writes it) and names
each record whose link does not match the line before it, so an edited, removed or
reordered record shows where it stands."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from detour_core.audit import AuditLog, link, segment_file, segments


@dataclass
class Verification:
    env_id: str | None
    records: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def intact(self) -> bool:
        return not self.problems


def verify(log: AuditLog, env_id: str | None) -> Verification:
    result = Verification(env_id)
    folder = log.folder(env_id)
    numbers = segments(folder)
    expected: str | None = None
    before = "the start of the log"
    for number in numbers:
        with segment_file(folder, number).open("rb") as f:
            for line_no, raw in enumerate(f, 1):
                if not raw.endswith(b"\n"):
                    break  # still being written
                where = f"segment {number:06d} line {line_no}"
                try:
                    record = json.loads(raw)
                    record_id, prev = record.get("id", "?"), record.get("prev")
                except ValueError:
                    record_id, prev = "?", object()
                rotated_away = number == numbers[0] and line_no == 1 and number > 1
                if prev != expected and not rotated_away:
                    result.problems.append(
                        f"{where} (record {record_id}) does not follow {before}: a record was edited, "
                        "removed or moved there")
                expected, before = link(raw), f"{where} (record {record_id})"
                result.records += 1
    return result
