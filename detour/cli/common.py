"""What every command group of the CLI shares: the typer apps, the options that recur, and
the few words about paths and errors that each command would otherwise repeat.

Every command's module is imported for any command (typer builds the whole tree, and `detour
--help` lists it), so a module imports at its top only what its commands' signatures name; what
a command uses to run (the client, the stack, the CA, the store) it imports when it runs. A
test (tests/unit/test_cli_imports.py) holds `detour --help` to that."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from detour.run_options import JSON_HELP
from detour_core.paths import StatePaths
from detour_core.policy import Capture, Policy, Rule, build_policy, load_policy
from sandbox.backends import Backend

if TYPE_CHECKING:
    from detour.client import Client

app = typer.Typer(help="Run agent code whose only way out is detour's proxy.", no_args_is_help=True,
                  pretty_exceptions_enable=False)
env_app = typer.Typer(help="Create, list, delete and diff environments.", no_args_is_help=True)
suite_app = typer.Typer(help="Run agents over AgentDiff test suites.", no_args_is_help=True)
ca_app = typer.Typer(help="detour's certificate authority.", no_args_is_help=True)
images_app = typer.Typer(help="detour's Docker images (the docker backend and compose.yaml).", no_args_is_help=True)


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version
        typer.echo(f"detour {version('detour')}")
        raise typer.Exit()


@app.callback()
def _options(version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                                   help="Print detour's version and exit.")] = False) -> None:
    """Run agent code whose only way out is detour's proxy."""


app.add_typer(env_app, name="env")
app.add_typer(ca_app, name="ca")
app.add_typer(suite_app, name="suite")
app.add_typer(images_app, name="images")

CaptureOpt = Annotated[Optional[Capture], typer.Option(
    help="What records keep of each request beyond its line: headers, or headers and bodies (redacted).")]
AllowOpt = Annotated[Optional[list[str]], typer.Option(
    "--allow", help="A host (or *.domain) passed through to the real internet; repeatable. Default: deny.")]
PolicyOpt = Annotated[Optional[Path], typer.Option(
    "--policy", help="A policy file (JSON: capture, allow, rules, redact, body_limit).")]
RuleOpt = Annotated[Optional[list[str]], typer.Option(
    "--rule", help="'ACTION METHOD HOST/PATH' (e.g. 'deny POST slack.com/api/chat.delete'), added after the "
                   "policy's own rules; repeatable. The first rule that matches a request decides.")]
JsonOpt = Annotated[bool, typer.Option("--json", help=JSON_HELP)]
PythonOpt = Annotated[Optional[Path], typer.Option(
    "--python", help="Python agents run with this interpreter or venv and its packages (read-only).")]
NodeModulesOpt = Annotated[Optional[Path], typer.Option(
    "--node-modules", help="The node_modules Node agents import from (default: one beside the entry file, else detour's).")]
ImageOpt = Annotated[Optional[str], typer.Option(
    "--image", help="docker backend: run in this image (any with python3), not detour/sandbox.")]


def state() -> StatePaths:
    return StatePaths.default().ensure()


def fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"detour: {message}", err=True)
    return typer.Exit(code)


def host_port(value: str, option: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise fail(f"{option} wants HOST:PORT, not {value!r}")
    return host, int(port)


def host_path(word: str) -> Path:
    """Absolute, with ~ expanded, and never resolved through symlinks (a venv's python is one)."""
    return Path(os.path.abspath(os.path.expanduser(word)))


def program_file(args: list[str], bare: bool = False) -> Path | None:
    """FILE (an existing file, or a name with a program suffix), its arguments after it; None for
    a command (`bare`: the words came after `--`, or the first one is no program)."""
    from sandbox.languages import LANGUAGES
    if bare or not args:
        return None
    if host_path(args[0]).is_dir():  # run as a command it would fail in the sandbox (exit 126) saying less
        raise fail(f"{args[0]} is a folder: give a program file in it (agent.py, index.js, ...), or a command after --")
    if (len(args) == 1 and host_path(args[0]).is_file()) or Path(args[0]).suffix.lower() in LANGUAGES:
        program = host_path(args[0])
        if not program.is_file():
            raise fail(f"no such file: {args[0]}")
        return program
    return None


def agent_argv(words: list[str], checked: bool = False) -> list[str]:
    """A command with paths to existing files made absolute (runs start in a fresh folder, and
    a sandbox shows those files read-only where they are). `checked`: one whose program is
    neither a file nor on PATH is refused (a suite's agent that cannot start fails every test)."""
    if checked and not words:
        raise fail("--agent is empty: give its command line, e.g. --agent 'python3 agent.py'")
    if checked and not host_path(words[0]).is_file() and shutil.which(words[0]) is None:
        raise fail(f"--agent: {words[0]!r} is neither a file nor a program on PATH, so the agent cannot start")
    return [str(host_path(word)) if host_path(word).is_file() else word for word in words]


def policy_from(file: Path | None, allow: list[str] | None, capture: Capture | None,
                base: Policy | None = None, rules: list[str] | None = None) -> Policy:
    """A file's policy (else `base`), with --allow hosts and --rule rules added and --capture
    replacing its capture."""
    start = load_policy(file) if file else (base or Policy())
    added = [Rule.parse(text) for text in rules or []]
    return build_policy(start, allow=[*start.allow, *allow] if allow else None, capture=capture,
                        rules=[*start.rules, *added] if added else None)


def client(backend: Backend = "auto", python: Path | None = None, node_modules: Path | None = None,
           image: str | None = None) -> Client:
    """A client for one command: the running stack, else the proxy alone for this command."""
    from detour.client import Client
    from detour.stack import EMBEDDED
    return Client(home=state().home, backend=backend, python=python, node_modules=node_modules, image=image,
                  own_stack=EMBEDDED)


def warn_if_not_isolated(dt: Client, backend: Backend, command: tuple[str, ...]) -> None:
    """`auto` falls back to the process backend where namespaces cannot run: say so."""
    from sandbox import namespace
    if backend == "auto" and dt.sandbox(None, command).name == "process":
        typer.echo(f"detour: warning: no {', '.join(namespace.requirements_missing())}: running with the process "
                   "backend, which is not isolation (code that ignores proxy variables is not captured)", err=True)
