"""`detour run`, `compare`, `check` and `suite run`: agent code in sandboxes, and its scores."""

from __future__ import annotations

import json
import shlex
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from pydantic import ValidationError

from detour.cli.common import (ImageOpt, JsonOpt, NodeModulesOpt, PythonOpt, agent_argv, app, client, fail, host_path,
                               program_file, suite_app, warn_if_not_isolated)
from detour.interrupts import INTERRUPTED_EXIT, stopping_on_signals, to_terminal
from detour.run_options import DEFAULT_TEMPLATE, RUN_OPTIONS
from detour.run_summary import interrupted, report
from sandbox.backends import Backend
from sandbox.base import Limits, Mode, RunControl

if TYPE_CHECKING:
    from detour.compare import Comparison
    from detour.suite import SuiteReport, TestOutcome

EnvOpt = Annotated[Optional[str], typer.Option("--env", help=RUN_OPTIONS["--env"].help)]
TemplateOpt = Annotated[Optional[str], typer.Option("--template", help=RUN_OPTIONS["--template"].help)]
BackendOpt = Annotated[Backend, typer.Option("--backend", help=RUN_OPTIONS["--backend"].help)]
ModeOpt = Annotated[Mode, typer.Option("--mode", help=RUN_OPTIONS["--mode"].help)]


@app.command(context_settings={"allow_interspersed_args": False})
def run(args: Annotated[list[str], typer.Argument(help="FILE [ARG...] (run as `python FILE ARG...`), "
                                                      "or -- CMD ARG...")],
        env: EnvOpt = None, template: TemplateOpt = None,
        timeout: Annotated[float, typer.Option(help="Wall-clock seconds.")] = Limits().timeout_s,
        memory_mb: Annotated[int, typer.Option(help="Memory of the process tree.")] = Limits().memory_mb,
        cpu_s: Annotated[int, typer.Option(help="CPU seconds per process.")] = Limits().cpu_s,
        processes: Annotated[int, typer.Option(help="Processes at once.")] = Limits().processes,
        output_bytes: Annotated[int, typer.Option(help="stdout+stderr kept.")] = Limits().output_bytes,
        backend: BackendOpt = "auto", mode: ModeOpt = "proxy",
        python: PythonOpt = None, node_modules: NodeModulesOpt = None, image: ImageOpt = None,
        rm: Annotated[bool, typer.Option("--rm", help="Delete the environment the run makes once it ends "
                                                      "(its audit records stay).")] = False,
        stdio: Annotated[bool, typer.Option("--stdio", help="The program reads detour's stdin and its stdout is "
                                            "detour's, live: a stdio server (an MCP server) for whoever started "
                                            "detour. The summary still goes to stderr.")] = False,
        as_json: JsonOpt = False) -> None:
    """Run a program (python, node .js/.ts, bash, perl) or a command in a sandbox behind the proxy."""
    if env and template:
        raise fail("give --env or --template, not both")
    if env and rm:
        raise fail("--rm deletes the environment a run makes; one given with --env stays (`detour env delete` it)")
    limits = checked_limits(timeout_s=timeout, memory_mb=memory_mb, cpu_s=cpu_s, processes=processes,
                            output_bytes=output_bytes)
    program = program_file(args, bare="--" in sys.argv[1:])
    argv = None if program else agent_argv(args)
    control = RunControl(output=None if as_json else to_terminal)  # output as it comes, unless JSON holds it
    with client(backend, python, node_modules, image) as dt, stopping_on_signals(control.stop):
        warn_if_not_isolated(dt, backend, tuple(argv or [str(program)]))
        made = dt.environments.create(template or DEFAULT_TEMPLATE).env_id if rm else None
        options = dict(env=env or made, template=template or DEFAULT_TEMPLATE, mode=mode, limits=limits, stdio=stdio,
                       control=control)
        try:
            result = dt.run(program, args=args[1:], **options) if program else dt.run_command(argv, **options)
        finally:
            if made:
                dt.environments.delete(made)
    code = report(result.model_dump(mode="json"), as_json, streamed=control.output is not None)
    if control.stop.is_set():
        typer.echo(interrupted(result.model_dump(mode="json"), made), err=True)
        raise typer.Exit(INTERRUPTED_EXIT)
    raise typer.Exit(code)


def checked_limits(**given: float) -> Limits:
    """The limits, or one line naming the one out of range (typer reads numbers; Limits says which are valid)."""
    try:
        return Limits(**given)
    except ValidationError as e:
        option = "--" + str(e.errors()[0]["loc"][0]).removesuffix("_s").replace("_", "-")
        raise fail(f"{option} {e.errors()[0]['input']}: {e.errors()[0]['msg'].lower()}") from None


def comparison_report(c: Comparison) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="requests", title_justify="left")
    for column in ("request", "proxy", "rewrite"):
        table.add_column(column, justify="left" if column == "request" else "right")
    for row in c.requests:
        style = None if row.proxy == row.rewrite else "yellow"
        table.add_row(row.request, str(row.proxy), str(row.rewrite), style=style)
    console = Console()
    console.print(table)
    for result in (c.proxy, c.rewrite):
        d = result.diff
        killed = f", killed: {result.killed_reason}" if result.killed_reason else ""
        console.print(f"{result.mode:>7}: env {result.env_id}, exit {result.exit_code}{killed}; "
                      f"{len(d.inserts)} inserts, {len(d.updates)} updates, {len(d.deletes)} deletes")
    for divergence in c.divergences:
        console.print(f"diverge: {divergence}", style="red", markup=False, soft_wrap=True)
    if c.states_match:
        console.print("[green]final states match[/green]")
        return
    console.print("[red]final states diverge[/red]")
    for label, rows in (("only in proxy mode", c.only_in_proxy), ("only in rewrite mode", c.only_in_rewrite)):
        for row in rows:
            console.print(f"  {label}: {json.dumps(row, sort_keys=True)}", markup=False)


@app.command()
def compare(program: Annotated[Path, typer.Argument(help="The agent program to run both ways.")],
            template: Annotated[str, typer.Option(help="Both environments start from this template.")] = DEFAULT_TEMPLATE,
            backend: BackendOpt = "auto",
            python: PythonOpt = None, node_modules: NodeModulesOpt = None, image: ImageOpt = None,
            as_json: JsonOpt = False) -> None:
    """Run FILE in proxy mode and in rewrite mode on two fresh environments; compare what each
    intercepted and the final states. Exit code 1 when the exit codes, the requests or the states differ."""
    file = host_path(str(program))
    if not file.is_file():
        raise fail(f"no such file: {program}")
    stop = threading.Event()
    with client(backend, python, node_modules, image) as dt, stopping_on_signals(stop):
        warn_if_not_isolated(dt, backend, (str(file),))
        result = dt.compare(file, template, stop=stop)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        comparison_report(result)
    if stop.is_set():
        raise fail(f"interrupted: stopped both runs; environments {result.proxy.env_id} (proxy) and "
                   f"{result.rewrite.env_id} (rewrite) keep what they did", INTERRUPTED_EXIT)
    raise typer.Exit(0 if result.runs_match else 1)


@app.command()
def check(env: Annotated[str, typer.Option(help="The environment whose diff is checked.")],
          assertions: Annotated[Path, typer.Option(help="A spec, an assertion list, a test entry or a suite.")],
          test: Annotated[Optional[str], typer.Option(help="The test's id, when the file is a suite.")] = None,
          as_json: JsonOpt = False) -> None:
    """Evaluate AgentDiff assertions against an environment's diff; exit code 1 if any fails."""
    results = client().check(env, assertions, test)
    for r in results:
        typer.echo(r.model_dump_json() if as_json else
                   f"{'PASS' if r.passed else 'FAIL'}  #{r.index} {r.assertion.diff_type} {r.assertion.entity}: "
                   f"{r.message}")
    failed = sum(not r.passed for r in results)
    if not as_json:
        typer.echo(f"{len(results) - failed} passed, {failed} failed")
    raise typer.Exit(1 if failed else 0)


def suite_table(report: SuiteReport) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"{report.suite}: {report.passed}/{len(report.tests)} passed", title_justify="left")
    for column in ("test", "name", "result", "assertions", "exit", "why"):
        table.add_column(column)
    for t in report.tests:
        good = sum(a.passed for a in t.assertions)
        table.add_row(t.id, t.name, "[green]pass[/green]" if t.passed else "[red]fail[/red]",
                      f"{good}/{len(t.assertions)}", str(t.exit_code), escape(failure(t)))
    Console().print(table)


def failure(t: TestOutcome) -> str:
    """Why a test failed, in a few words: the agent stopped or never started, else its first
    failing assertion."""
    from detour.suite import NOT_STARTED

    if t.passed:
        return ""
    if t.killed_reason:
        return f"agent killed: {t.killed_reason}"
    if t.exit_code in NOT_STARTED:
        return f"agent did not start (exit {t.exit_code})"
    first = next((a for a in t.assertions if not a.passed), None)
    return f"#{first.index} {first.assertion.diff_type} {first.assertion.entity}: {first.message}" if first else ""


@suite_app.command("run")
def suite_run(suite: Annotated[Path, typer.Argument(help="An AgentDiff test suite (JSON).")],
              agent: Annotated[str, typer.Option(help="The agent's command line.")],
              test: Annotated[Optional[str], typer.Option(help="Only this test id.")] = None,
              backend: BackendOpt = "auto", mode: ModeOpt = "proxy",
              timeout: Annotated[float, typer.Option(help="Wall-clock seconds per test.")] = Limits().timeout_s,
              workers: Annotated[int, typer.Option(min=1, help="Tests run at once, each in its own environment "
                                                             "and sandbox (scores do not depend on it).")] = 1,
              python: PythonOpt = None, node_modules: NodeModulesOpt = None, image: ImageOpt = None,
              keep: Annotated[bool, typer.Option("--keep", help="Keep each test's environment (default: deleted "
                                                               "once its assertions are read).")] = False,
              ray: Annotated[Optional[str], typer.Option("--ray", metavar="ADDRESS", help="A Ray cluster's head "
                             "(HOST:PORT, or auto): a stack on each node, the tests spread over them, --workers "
                             "at once on each.")] = None,
              as_json: JsonOpt = False) -> None:
    """For each test: a fresh environment from its seed, the agent with DETOUR_PROMPT, its assertions.
    Exit code 1 unless every test passes."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from detour.suite import load_suite, ray_suite

    argv = agent_argv(shlex.split(agent), checked=image is None)  # another image may hold other programs
    total = len(load_suite(suite).tests) if test is None else 1
    quiet = as_json or not sys.stdout.isatty()  # a bar only for a person watching
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("[green]{task.fields[passed]} passed"), TimeElapsedColumn())
    stop = threading.Event()
    limits = checked_limits(timeout_s=timeout)
    if ray is not None:  # no local stack: each node's own runs the tests
        with Progress(*columns, transient=True, disable=quiet) as bar:
            task = bar.add_task(f"running {suite.name} on Ray", total=total, passed=0)
            result = ray_suite(suite, argv, ray, only=test, workers=workers, backend=backend, mode=mode,
                               limits=limits.model_dump(), keep=keep, progress=lambda done: bar.update(
                                   task, advance=1, passed=bar.tasks[0].fields["passed"] + done.passed))
    else:
        with (client(backend, python, node_modules, image) as dt,
              Progress(*columns, transient=True, disable=quiet) as bar, stopping_on_signals(stop)):
            warn_if_not_isolated(dt, backend, tuple(argv))
            task = bar.add_task(f"running {suite.name}", total=total, passed=0)
            result = dt.run_suite(suite, argv, mode=mode, test=test, limits=limits, workers=workers, keep=keep,
                                  stop=stop, progress=lambda done: bar.update(
                                      task, advance=1, passed=bar.tasks[0].fields["passed"] + done.passed))
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        suite_table(result)
    if stop.is_set():
        stopped = sum(t.killed_reason == "interrupted" for t in result.tests)
        raise fail(f"interrupted: {len(result.tests)} of {total} tests ran ({stopped} stopped, none counted as "
                   f"passed); their environments {'kept' if keep else 'deleted'}", INTERRUPTED_EXIT)
    raise typer.Exit(0 if result.passed == len(result.tests) else 1)
