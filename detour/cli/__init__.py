"""The `detour` command line: a module per command group (serve, stack, environments, runs, logs,
doctor, authority), each command a few lines over `detour.client.Client` or the store.
The console entry point (detour/console.py) sends everything but a plain `run` here."""

from __future__ import annotations

import sys
import warnings

# In the order `detour --help` lists them.
from detour.cli import serve, stack, environments, services, secrets, faults, runs, replay, logs, doctor, authority  # noqa: I001
from detour.cli.common import app, fail
from detour.interrupts import INTERRUPTED_EXIT
from detour_core.errors import DetourError, NameNotFound
from detour_core.strict import KeptKeys

__all__ = ["app", "main", "authority", "doctor", "environments", "faults", "logs", "replay", "runs", "secrets", "serve", "services",
           "stack"]


SHOW_PYTHONS = warnings.showwarning


def _show(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001 (warnings' hook)
    """Detour's own warnings as one line of the CLI's; any other as Python shows it."""
    if issubclass(category, KeptKeys):
        print(f"detour: warning: {message}", file=sys.stderr)
    else:
        SHOW_PYTHONS(message, category, filename, lineno, file, line)


def main() -> None:
    warnings.showwarning = _show
    try:
        app()
    except DetourError as e:
        # a thing named that does not exist: 1; anything else wrong with the input: 2, as typer's usage errors
        raise SystemExit(fail(str(e), 1 if isinstance(e, NameNotFound) else 2).exit_code) from None
    except KeyboardInterrupt:  # a signal outside a run, or a second one: leave now, in one line
        raise SystemExit(fail("interrupted", INTERRUPTED_EXIT).exit_code) from None
