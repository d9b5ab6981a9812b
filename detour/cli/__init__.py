"""The `detour` command line: a module per command group (serve, stack, environments, runs, logs,
doctor, authority), each command a few lines over `detour.client.Client` or the store.
The console entry point (detour/console.py) sends everything but a plain `run` here."""

from __future__ import annotations

# In the order `detour --help` lists them.
from detour.cli import serve, stack, environments, secrets, faults, runs, replay, logs, doctor, authority  # noqa: I001
from detour.cli.common import app, fail
from detour_core.errors import DetourError, EnvironmentNotFound
from mock_services.assertions import UnknownEntity

__all__ = ["app", "main", "authority", "doctor", "environments", "faults", "logs", "replay", "runs", "secrets", "serve",
           "stack"]


# Errors that say a thing named does not exist leave with 1, as a command that looked and found
# nothing; anything else wrong with the input with 2, as typer's own usage errors.
NOT_FOUND = (EnvironmentNotFound, UnknownEntity)


def main() -> None:
    try:
        app()
    except DetourError as e:
        raise SystemExit(fail(str(e), 1 if isinstance(e, NOT_FOUND) else 2).exit_code) from None
