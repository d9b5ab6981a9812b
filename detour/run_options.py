"""`detour run`'s options that the console's fast path also reads: one table of their names,
help and defaults, so the full CLI (typer) and the fast path (no imports) parse the same words.
"""

from __future__ import annotations

from typing import NamedTuple

DEFAULT_TEMPLATE = "slack_default"
JSON_FLAG = "--json"


class RunOption(NamedTuple):
    field: str
    help: str


# The options that take a value and that the fast path passes on to the stack's run API.
RUN_OPTIONS: dict[str, RunOption] = {
    "--env": RunOption("env", "Run in this environment."),
    "--template": RunOption("template", "Run in a new environment from this template."),
    "--backend": RunOption("backend", "Sandbox backend."),
    "--mode": RunOption("mode", "proxy: through mitmproxy; rewrite: URL-rewriting preludes."),
}
JSON_HELP = "Print JSON for machines."
