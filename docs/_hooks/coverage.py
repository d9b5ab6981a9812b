"""MkDocs hook: a service page's coverage table is written from the pack itself at build time
(mock_services/coverage.py: each operation of the vendor's description, stateful, generated
or not served), so it cannot drift from what the replica answers; above it, the pack's fidelity
score as `make fidelity` last measured it (mock_services/fidelity.json, read, never typed). A
page holds `<!-- coverage:NAME -->` where they go."""

from __future__ import annotations

import re

MARKER = re.compile(r"<!-- coverage:(\w+) -->")
WORDS = {"stateful": "reads or changes the environment's rows", "generated": "the vendor's shape, nothing stored",
         "not served": "says so, in the vendor's error shape"}


def fidelity(service: str) -> str:
    """The official-client cases passed, when they were measured, and each case in a folded block."""
    from mock_services.fidelity import load
    found = load().get(service)
    if found is None:
        return f"**Fidelity**: `{service}` is not measured yet (`make fidelity` measures it).\n\n"
    if not found.total:
        return f"**Fidelity**: no official-client test covers `{service}` yet.\n\n"
    cases = [f"    | `{case}` | {'passed' if ok else '**failed**'} |" for case, ok in found.cases.items()]
    return "\n".join([
        f"**Fidelity**: {found.passed} of {found.total} cases of the vendor's official clients pass (measured "
        f"{found.when()} by `make fidelity`).", "",
        f'??? note "The {found.total} cases"', "", "    | case | result |", "    |---|---|", *cases, "", ""])


def table(service: str) -> str:
    """The counts, then every operation in a folded block (GitHub's description has over a thousand)."""
    from detour_core.registry import pack
    from mock_services.coverage import KINDS, counts, of
    coverage = of(pack(service))
    if coverage is None:
        return f"`{service}` states no coverage."
    total = counts(coverage)
    rows = [f"| `{operation}` | {kind} |" for operation, kind in sorted(coverage.items())]
    return "\n".join([
        "| answered | operations | what the replica does |", "|---|---|---|",
        *(f"| {kind} | {total[kind]} | {WORDS[kind]} |" for kind in KINDS), "",
        f'??? note "All {len(coverage)} operations of the description (`detour services` counts them)"', "",
        "    | operation | answered |", "    |---|---|", *(f"    {row}" for row in rows)])


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 - MkDocs' hook signature
    return MARKER.sub(lambda found: fidelity(found.group(1)) + table(found.group(1)), markdown)
