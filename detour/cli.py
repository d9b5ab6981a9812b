"""The `detour` command line: serve, env, run, logs, ca, templates."""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Annotated, Literal, Optional

import typer
from cryptography.hazmat.primitives import hashes

from certs.authority import CertificateAuthority
from mock_services.assertions import evaluate_environment, load_spec
from detour.suite import load_suite, run_suite
from detour import quick_run, reports
from detour_core.audit import AuditLog, AuditRecord
from detour.compare import Comparison, compare as compare_modes
from detour_core.credentials import api_key, secret_for
from detour_core.errors import DetourError
from detour_core.paths import StatePaths
from detour_core.policy import Capture, Policy, build_policy, load_policy, policy_file, save_policy
from detour.runner import RunResult, run_in_environment
from detour.stack import PARTS, Stack, running_stack, stack_for
from mock_services.request_budget import RequestBudget
from mock_services.store import EnvironmentStore
from mock_services.templates import save_template, template_names
from sandbox import namespace, netns
from sandbox.base import Limits, Mode, ProxyAccess, Sandbox, SandboxSpec
from sandbox.languages import LANGUAGES, command_for
from sandbox.backends import Backend, open_backend
from sandbox.runtimes import RuntimeChoice

app = typer.Typer(help="Run agent code whose only way out is detour's proxy.", no_args_is_help=True,
                  pretty_exceptions_enable=False)
env_app = typer.Typer(help="Create, list, delete and diff environments.", no_args_is_help=True)
suite_app = typer.Typer(help="Run agents over AgentDiff test suites.", no_args_is_help=True)
ca_app = typer.Typer(help="detour's certificate authority.", no_args_is_help=True)
app.add_typer(env_app, name="env")
app.add_typer(ca_app, name="ca")
app.add_typer(suite_app, name="suite")
images_app = typer.Typer(help="detour's Docker images (the docker backend and compose.yaml).", no_args_is_help=True)
app.add_typer(images_app, name="images")

FOLLOW_POLL_S = 0.2
CaptureOpt = Annotated[Optional[Capture], typer.Option(
    help="What records keep of each request beyond its line: headers, or headers and bodies (redacted).")]
AllowOpt = Annotated[Optional[list[str]], typer.Option(
    "--allow", help="A host (or *.domain) passed through to the real internet; repeatable. Default: deny.")]
PolicyOpt = Annotated[Optional[Path], typer.Option(
    "--policy", help="A policy file (JSON: capture, allow, redact, body_limit).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]
PythonOpt = Annotated[Optional[Path], typer.Option(
    "--python", help="Python agents run with this interpreter or venv and its packages (read-only).")]
NodeModulesOpt = Annotated[Optional[Path], typer.Option(
    "--node-modules", help="The node_modules Node agents import from (default: one beside the entry file, else detour's).")]
ImageOpt = Annotated[Optional[str], typer.Option(
    "--image", help="docker backend: run in this image (any with python3), not detour/sandbox.")]
StackPart = Literal["all", "proxy", "replicas"]


def state() -> StatePaths:
    return StatePaths.default().ensure()


def fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"detour: {message}", err=True)
    return typer.Exit(code)


def main() -> None:
    try:
        app()
    except DetourError as e:
        raise SystemExit(fail(str(e)).exit_code) from None


def host_port(value: str, option: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise fail(f"{option} wants HOST:PORT, not {value!r}")
    return host, int(port)


@app.command()
def serve(host: str = "127.0.0.1", proxy_port: int = 8080, replica_port: int = 8000,
          only: Annotated[StackPart, typer.Option(help="Run one part (a container each in compose.yaml).")] = "all",
          replicas: Annotated[Optional[str], typer.Option(help="HOST:PORT of replicas run elsewhere (with --only proxy).")] = None,
          publish_ca: Annotated[bool, typer.Option(help="Also copy the CA's public files where sandbox containers read them (a shared volume).")] = False,
          console_logs: Annotated[bool, typer.Option(help="Logs to the console instead of $DETOUR_HOME/logs (in a container).")] = False,
          no_auth: Annotated[bool, typer.Option("--no-auth", help="Platform API callers need no X-API-Key (loopback only).")] = False,
          workers: Annotated[int, typer.Option(min=1, help="Proxy processes sharing the proxy's ports (one core each); "
                                                       "default: one per core.")] = os.cpu_count() or 1,
          policy: PolicyOpt = None, allow: AllowOpt = None, capture: CaptureOpt = None,
          database: Annotated[Optional[str], typer.Option(
              help="postgresql://... : environments live in Postgres from now on (for every detour command on "
                   "this home), so several servers share them; `sqlite` goes back to files.")] = None) -> None:
    """Run the proxy and the replicas in the foreground until interrupted. --policy, --allow and
    --capture apply to every environment (each may add its own: `detour env policy`)."""
    paths = state()
    server_policy = policy_from(policy, allow, capture)
    if database:
        choose_database(paths, database)
    whole = only == "all"  # only a whole stack is one that `detour run` can use (stack.json)
    if whole and running_stack(paths):
        raise fail(f"a stack is already running for {paths.home} (see {paths.stack_file})")
    replica_host = None
    if replicas:
        replica_host, replica_port = host_port(replicas, "--replicas")
    if publish_ca:
        from sandbox.docker import IMAGE_TRUST
        CertificateAuthority(paths).ensure().publish(IMAGE_TRUST)
    parts = {"all": PARTS, "proxy": ("proxy",), "replicas": ("replicas",)}[only]
    with Stack(paths, host, proxy_port, replica_port, parts=parts, replica_host=replica_host,
               console_logs=console_logs, api_auth=not no_auth, policy=server_policy, workers=workers) as info:
        if whole:
            paths.stack_file.write_text(info.model_dump_json())
        typer.echo(f"detour: {', '.join(parts)} up (proxy port {info.proxy_port}, replicas at {info.replica_url}), "
                   f"state in {paths.home}", err=True)
        try:
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
            signal.pause()
        except KeyboardInterrupt:
            pass
        finally:
            if whole:
                paths.stack_file.unlink(missing_ok=True)


def choose_database(paths: StatePaths, url: str) -> None:
    """Checked by connecting before it is recorded, so a typo never strands this home's commands."""
    from mock_services.databases import database_for
    if url == "sqlite":
        paths.database_file.unlink(missing_ok=True)
        return
    previous = paths.database_file.read_text() if paths.database_file.exists() else None
    paths.database_file.write_text(url)
    try:
        database_for(paths).ids()
    except Exception as e:  # the driver's errors (bad URL, refused, auth) have no common base but Exception
        if previous is None:
            paths.database_file.unlink()
        else:
            paths.database_file.write_text(previous)
        raise fail(f"cannot use database {url!r}: {e}") from None


@app.command("api-key")
def api_key_command() -> None:
    """Print the key that callers of the platform API (AgentDiff's SDK) send as X-API-Key."""
    typer.echo(api_key(state()))


@app.command()
def templates() -> None:
    """List the templates environments can start from."""
    for name in template_names(state()):
        typer.echo(name)


@env_app.command("create")
def env_create(template: Annotated[str, typer.Option(help="Template to seed from.")] = "slack_default",
               env_id: Annotated[Optional[str], typer.Option("--id", help="Choose the id.")] = None,
               user: Annotated[Optional[str], typer.Option(help="User the agent acts as.")] = None,
               request_budget: Annotated[Optional[str], typer.Option(
                   help="N/SECONDS: requests beyond N per window get the API's rate-limit answer.")] = None,
               ttl: Annotated[Optional[float], typer.Option(help="Seconds until the environment is deleted.")] = None,
               policy: PolicyOpt = None, allow: AllowOpt = None, capture: CaptureOpt = None,
               as_json: JsonOpt = False) -> None:
    """Create an environment and print its proxy credentials."""
    paths = state()
    own_policy = policy_from(policy, allow, capture)
    try:
        budget = RequestBudget.parse(request_budget) if request_budget else None
    except ValueError as e:
        raise fail(str(e)) from None
    info = EnvironmentStore(paths).create(template, env_id=env_id, acting_user=user, request_budget=budget, ttl_s=ttl)
    if own_policy != Policy():
        save_policy(policy_file(paths, info.env_id), own_policy)
    secret = secret_for(paths, info.env_id)
    stack = running_stack(paths)
    proxy = stack.access(info.env_id, secret).url() if stack else None
    if as_json:
        typer.echo(json.dumps(info.model_dump() | {"secret": secret, "proxy_url": proxy}))
        return
    typer.echo(f"{info.env_id}  template={info.template} service={info.service} user={info.acting_user}")
    typer.echo(f"secret: {secret}")
    typer.echo(f"proxy:  {proxy or '(no stack running: start one with `detour serve`)'}")


@env_app.command("vars")
def env_vars(env_id: str,
             proxy: Annotated[str, typer.Option(help="HOST:PORT of the proxy, as the container sees it.")] = "proxy:8080") -> None:
    """Print the variables (KEY=VALUE) a detour/sandbox container needs to use this environment
    through a proxy container: compose's `agent` service reads them (see the README)."""
    from sandbox.docker import IMAGE_TRUST, container_environment
    paths = state()
    EnvironmentStore(paths).get(env_id)
    host, port = host_port(proxy, "--proxy")
    access = ProxyAccess(env_id=env_id, secret=secret_for(paths, env_id), host=host, port=port,
                         transparent_port=port, dns_port=port, gateway_port=port)
    spec = SandboxSpec(argv=["-"], proxy=access, trust=IMAGE_TRUST)
    for name, value in container_environment(spec, host).items():
        typer.echo(f"{name}={value}")


def policy_from(file: Path | None, allow: list[str] | None, capture: Capture | None,
                base: Policy | None = None) -> Policy:
    """A file's policy (else `base`), with --allow hosts added and --capture replacing its capture."""
    start = load_policy(file) if file else (base or Policy())
    return build_policy(start, allow=[*start.allow, *allow] if allow else None, capture=capture)


@env_app.command("policy")
def env_policy(env_id: str, policy: PolicyOpt = None, allow: AllowOpt = None, capture: CaptureOpt = None,
               reset: Annotated[bool, typer.Option("--reset", help="Back to the server's policy alone.")] = False) -> None:
    """Show an environment's own network policy; with options, change it (the proxy applies
    the change from the next request on)."""
    paths = state()
    EnvironmentStore(paths).get(env_id)
    path = policy_file(paths, env_id)
    current = Policy() if reset or not path.exists() else load_policy(path)
    updated = policy_from(policy, allow, capture, base=current)
    if updated != current or reset:
        save_policy(path, updated)
    typer.echo(updated.model_dump_json(indent=2))


@env_app.command("list")
def env_list(as_json: JsonOpt = False) -> None:
    """List environments, oldest first."""
    for info in EnvironmentStore(state()).list():
        typer.echo(info.model_dump_json() if as_json else
                   f"{info.env_id}  {info.template}  {info.service}  user={info.acting_user}")


@env_app.command("delete")
def env_delete(env_id: str) -> None:
    """Delete an environment and its state."""
    EnvironmentStore(state()).delete(env_id)
    typer.echo(f"deleted {env_id}")


@env_app.command("save-template")
def env_save_template(env_id: str, name: str) -> None:
    """Save an environment's current state as a new template."""
    paths = state()
    with EnvironmentStore(paths).open(env_id) as env_state:
        path = save_template(paths, name, env_state.tables())
    typer.echo(f"template {name} saved to {path}")


@env_app.command("diff")
def env_diff(env_id: str) -> None:
    """Changes since creation, in AgentDiff's shape (inserts, updates, deletes)."""
    typer.echo(EnvironmentStore(state()).diff(env_id).model_dump_json(indent=2))


def choose_backend(name: Backend, paths: StatePaths, runtime: RuntimeChoice = RuntimeChoice()) -> Sandbox:
    sandbox = open_backend(name, paths, runtime)
    if name == "auto" and sandbox.name == "process":
        typer.echo(f"detour: warning: no {', '.join(namespace.requirements_missing())}: running with the process "
                   "backend, which is not isolation (code that ignores proxy variables is not captured)", err=True)
    return sandbox


def host_path(word: str) -> Path:
    """Absolute, with ~ expanded, and never resolved through symlinks (a venv's python is one)."""
    return Path(os.path.abspath(os.path.expanduser(word)))


def program_file(args: list[str]) -> Path | None:
    """FILE (one existing file, or one name with a program suffix), or None for a command."""
    if len(args) == 1 and (host_path(args[0]).is_file() or Path(args[0]).suffix.lower() in LANGUAGES):
        program = host_path(args[0])
        if not program.is_file():
            raise fail(f"no such file: {args[0]}")
        return program
    return None


def summary(result: RunResult) -> str:
    return quick_run.summary(result.model_dump())


@app.command(context_settings={"allow_interspersed_args": False})
def run(args: Annotated[list[str], typer.Argument(help="FILE, or -- CMD ARGS...")],
        env: Annotated[Optional[str], typer.Option(help="Run in this environment.")] = None,
        template: Annotated[Optional[str], typer.Option(help="Run in a new environment from this template.")] = None,
        timeout: Annotated[float, typer.Option(help="Wall-clock seconds.")] = Limits().timeout_s,
        memory_mb: Annotated[int, typer.Option(help="Memory of the process tree.")] = Limits().memory_mb,
        cpu_s: Annotated[int, typer.Option(help="CPU seconds per process.")] = Limits().cpu_s,
        processes: Annotated[int, typer.Option(help="Processes at once.")] = Limits().processes,
        output_bytes: Annotated[int, typer.Option(help="stdout+stderr kept.")] = Limits().output_bytes,
        backend: Annotated[Backend, typer.Option(help="Sandbox backend.")] = "auto",
        mode: Annotated[Mode, typer.Option(help="proxy: through mitmproxy; rewrite: URL-rewriting preludes.")] = "proxy",
        python: PythonOpt = None, node_modules: NodeModulesOpt = None, image: ImageOpt = None,
        as_json: JsonOpt = False) -> None:
    """Run a program (python, node .js/.ts, bash, perl) or a command in a sandbox behind the proxy."""
    if env and template:
        raise fail("give --env or --template, not both")
    paths = state()
    limits = Limits(timeout_s=timeout, memory_mb=memory_mb, cpu_s=cpu_s, processes=processes,
                    output_bytes=output_bytes)
    program = program_file(args)
    argv = None if program else agent_argv(args)
    choice = RuntimeChoice(python=python, node_modules=node_modules, image=image,
                           command=tuple(argv or [str(program)]))
    sandbox = choose_backend(backend, paths, choice)
    argv = argv or command_for(program, sandbox.runtime)
    store = EnvironmentStore(paths)
    env_id = store.get(env).env_id if env else store.create(template or "slack_default").env_id
    with stack_for(paths) as info:
        result = run_in_environment(paths, info, env_id, sandbox, argv, program=program, limits=limits, mode=mode)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        sys.stdout.flush()
        separator = "" if (result.stdout + result.stderr).endswith("\n") or not (result.stdout + result.stderr) else "\n"
        typer.echo(separator + summary(result), err=True)
    raise typer.Exit(result.exit_code or 0)


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
    if c.states_match:
        console.print("[green]final states match[/green]")
        return
    console.print("[red]final states diverge[/red]")
    for label, rows in (("only in proxy mode", c.only_in_proxy), ("only in rewrite mode", c.only_in_rewrite)):
        for row in rows:
            console.print(f"  {label}: {json.dumps(row, sort_keys=True)}", markup=False)


@app.command()
def compare(program: Annotated[Path, typer.Argument(help="The agent program to run both ways.")],
            template: Annotated[str, typer.Option(help="Both environments start from this template.")] = "slack_default",
            backend: Annotated[Backend, typer.Option(help="Sandbox backend.")] = "auto",
            python: PythonOpt = None, node_modules: NodeModulesOpt = None, image: ImageOpt = None,
            as_json: JsonOpt = False) -> None:
    """Run FILE in proxy mode and in rewrite mode on two fresh environments; compare what each
    intercepted and the final states. Exit code 1 when the states diverge."""
    paths = state()
    file = host_path(str(program))
    if not file.is_file():
        raise fail(f"no such file: {program}")
    choice = RuntimeChoice(python=python, node_modules=node_modules, image=image, command=(str(file),))
    sandbox = choose_backend(backend, paths, choice)
    argv = command_for(file, sandbox.runtime)
    with stack_for(paths) as info:
        result = compare_modes(paths, info, sandbox, template, argv, file)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        comparison_report(result)
    raise typer.Exit(0 if result.states_match else 1)


@app.command()
def check(env: Annotated[str, typer.Option(help="The environment whose diff is checked.")],
          assertions: Annotated[Path, typer.Option(help="A spec, an assertion list, a test entry or a suite.")],
          test: Annotated[Optional[str], typer.Option(help="The test's id, when the file is a suite.")] = None,
          as_json: JsonOpt = False) -> None:
    """Evaluate AgentDiff assertions against an environment's diff; exit code 1 if any fails."""
    results = evaluate_environment(load_spec(assertions, test), EnvironmentStore(state()), env)
    for r in results:
        typer.echo(r.model_dump_json() if as_json else
                   f"{'PASS' if r.passed else 'FAIL'}  #{r.index} {r.assertion.diff_type} {r.assertion.entity}: "
                   f"{r.message}")
    failed = sum(not r.passed for r in results)
    if not as_json:
        typer.echo(f"{len(results) - failed} passed, {failed} failed")
    raise typer.Exit(1 if failed else 0)


def agent_argv(words: list[str]) -> list[str]:
    """A command with paths to existing files made absolute (runs start in a fresh folder, and
    a sandbox shows those files read-only where they are)."""
    return [str(host_path(word)) if host_path(word).is_file() else word for word in words]


@suite_app.command("run")
def suite_run(suite: Annotated[Path, typer.Argument(help="An AgentDiff test suite (JSON).")],
              agent: Annotated[str, typer.Option(help="The agent's command line.")],
              test: Annotated[Optional[str], typer.Option(help="Only this test id.")] = None,
              backend: Annotated[Backend, typer.Option(help="Sandbox backend.")] = "auto",
              mode: Annotated[Mode, typer.Option(help="proxy or rewrite.")] = "proxy",
              timeout: Annotated[float, typer.Option(help="Wall-clock seconds per test.")] = Limits().timeout_s,
              python: PythonOpt = None, node_modules: NodeModulesOpt = None, image: ImageOpt = None,
              as_json: JsonOpt = False) -> None:
    """For each test: a fresh environment from its seed, the agent with DETOUR_PROMPT, its assertions.
    Exit code 1 unless every test passes."""
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    paths = state()
    argv = agent_argv(shlex.split(agent))
    choice = RuntimeChoice(python=python, node_modules=node_modules, image=image, command=tuple(argv))
    sandbox = choose_backend(backend, paths, choice)
    total = len(load_suite(suite)["tests"]) if test is None else 1
    with stack_for(paths) as info, Progress(transient=True, disable=as_json) as bar:
        task = bar.add_task(f"running {suite.name}", total=total)
        report = run_suite(paths, info, sandbox, suite, argv, mode=mode, only=test, limits=Limits(timeout_s=timeout),
                           progress=lambda _: bar.advance(task))
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        table = Table(title=f"{report.suite}: {report.passed}/{len(report.tests)} passed", title_justify="left")
        for column in ("test", "name", "result", "assertions", "exit"):
            table.add_column(column)
        for t in report.tests:
            good = sum(a.passed for a in t.assertions)
            table.add_row(t.id, t.name, "[green]pass[/green]" if t.passed else "[red]fail[/red]",
                          f"{good}/{len(t.assertions)}", str(t.exit_code))
        Console().print(table)
    raise typer.Exit(0 if report.passed == len(report.tests) else 1)


def docker_leftovers(fix: bool) -> list[str]:
    """Say whether the docker backend can run; list (and remove) sandbox containers whose
    detour is gone."""
    from sandbox import docker as docker_backend
    from sandbox.images.build import missing_images
    try:
        client = docker_backend.connect_engine()
    except docker_backend.DockerUnavailable as e:
        typer.echo(f"docker backend: unavailable ({e})")
        return []
    missing = missing_images(client)
    typer.echo("docker backend: " + (f"images missing: {', '.join(missing)} (run `detour images build`)"
                                     if missing else "available"))
    stale = docker_backend.leftovers(client)
    for name in stale:
        if fix:
            docker_backend.remove(client, name)
        typer.echo(f"{'removed' if fix else 'left over'}: container {name}")
    return stale


def report_needs(install: bool) -> None:
    """What pip cannot install and this machine lacks; with `install`, apt gets it (as root)."""
    from sandbox import host_packages
    from sandbox.runtimes import DEFAULT_VENV
    needs = host_packages.missing()
    for need in needs:
        typer.echo(f"missing: {need.probe} (Debian package {need.package}), for {need.used_by}")
    if needs and install:
        try:
            host_packages.install(needs)
            typer.echo(f"installed: {', '.join(sorted({n.package for n in needs}))}")
        except host_packages.ProvisionError as e:
            typer.echo(f"detour: {e}; going on with what this machine has", err=True)
    elif needs:
        typer.echo(f"to install them: sudo {' '.join(host_packages.apt_command(needs))}  (or: detour doctor --install)")
    if not DEFAULT_VENV.is_dir():
        typer.echo(f"missing: detour's sandbox runtime {DEFAULT_VENV} (run `make`)")


@app.command()
def doctor(fix: Annotated[bool, typer.Option("--fix/--check", help="Remove what is left over.")] = True,
           install: Annotated[bool, typer.Option(help="Install missing Debian packages with apt (as root).")] = False) -> None:
    """What this machine lacks and how to get it; which backends can run; and (removed) the
    namespaces, veths, nftables tables, cgroups and containers of sandboxes that are gone."""
    report_needs(install)
    missing = namespace.requirements_missing()
    typer.echo("namespace backend: " + ("available" if not missing else f"unavailable (needs {', '.join(missing)})"))
    if "root" in missing:
        return
    containers = docker_leftovers(fix)
    stale = netns.leftovers()
    for sid in stale:
        if fix:
            netns.teardown(sid)
        typer.echo(f"{'removed' if fix else 'left over'}: sandbox {sid} (netns, veth, nftables table, cgroups)")
    if not stale and not containers:
        typer.echo("no leftovers")
    elif not fix:
        raise typer.Exit(1)


def record_line(r: AuditRecord) -> str:
    return (f"{r.ts} {r.env_id or '-'} {r.decision:<12} {r.status or '-'} {r.method} "
            f"{r.scheme}://{r.host}:{r.port}{r.path}" + (f"  ({r.reason})" if r.reason else ""))


def follow_records(audit: AuditLog, env: str | None, as_json: bool) -> None:
    """New records as they are written, until interrupted (every environment's, without --env)."""
    positions: dict[str | None, tuple[int, int]] = {}
    try:
        while True:
            for env_id in [env] if env else audit.environments():
                records, positions[env_id] = audit.read(env_id, positions.get(env_id, (0, 0)))
                for r in records:
                    typer.echo(r.model_dump_json(exclude_none=True) if as_json else record_line(r))
            time.sleep(FOLLOW_POLL_S)
    except KeyboardInterrupt:
        pass


@app.command()
def logs(env: Annotated[Optional[str], typer.Option(help="Only this environment.")] = None,
         follow: Annotated[bool, typer.Option("--follow", "-f", help="Keep printing new records.")] = False,
         har: Annotated[Optional[Path], typer.Option(help="Write the records as HAR 1.2 to this file.")] = None,
         summary: Annotated[bool, typer.Option("--summary", help="Counts by host, decision and status, bytes, "
                                                             "the slowest requests.")] = False,
         as_json: JsonOpt = False) -> None:
    """The audit records: one per request the proxy saw, and one per connection that made none."""
    audit = AuditLog(state().audit_dir)
    if follow:
        follow_records(audit, env, as_json)
        return
    records = audit.read(env)[0] if env else audit.all()
    if har:
        har.write_text(json.dumps(reports.har(records), indent=1))
        typer.echo(f"{len(records)} entries written to {har}", err=True)
    elif summary:
        report = reports.summarize(records)
        typer.echo(report.model_dump_json(indent=2) if as_json else summary_text(report))
    else:
        for r in records:
            typer.echo(r.model_dump_json(exclude_none=True) if as_json else record_line(r))


def summary_text(report: reports.Summary) -> str:
    def counts(title: str, values: dict[str, int]) -> str:
        return f"{title}: " + (", ".join(f"{k} {v}" for k, v in values.items()) or "none")
    lines = [f"{report.requests} records, {report.request_bytes} bytes sent, {report.response_bytes} received",
             counts("by decision", report.by_decision), counts("by status", report.by_status),
             counts("by host", report.by_host), "slowest:"]
    lines += [f"  {s.duration_ms:8.1f} ms  {s.status or '-'} {s.method} {s.url}" for s in report.slowest]
    return "\n".join(lines)


@ca_app.command("path")
def ca_path() -> None:
    """Print the paths a sandbox trusts (never the key's)."""
    paths = CertificateAuthority(state()).ensure()
    typer.echo(f"cert:   {paths.cert}\nbundle: {paths.bundle}")


@ca_app.command("show")
def ca_show() -> None:
    """Print the CA certificate's subject, validity and fingerprint."""
    cert = CertificateAuthority(state()).certificate()
    typer.echo(f"subject:   {cert.subject.rfc4514_string()}\n"
               f"not after: {cert.not_valid_after_utc.isoformat()}\n"
               f"sha256:    {cert.fingerprint(hashes.SHA256()).hex(':')}")


@ca_app.command("rotate")
def ca_rotate() -> None:
    """Make a new CA; the old one moves to retired/. Restart `detour serve` to use it."""
    retired = CertificateAuthority(state()).rotate()
    typer.echo(f"new CA in place; the previous one is in {retired}" if retired else "CA created")


@images_app.command("build")
def images_build(base: Annotated[Optional[str], typer.Option(help="A Debian trixie image from your registry "
                                                               "(default: one made here with debootstrap).")] = None,
                 mirror: Annotated[Optional[str], typer.Option(help="Debian mirror for debootstrap (default: apt's).")] = None,
                 requirements: Annotated[Optional[Path], typer.Option(
                     help="Derive an image from detour/sandbox with these Python packages.")] = None,
                 npm: Annotated[Optional[Path], typer.Option(
                     help="Derive an image from detour/sandbox with this package.json's Node packages.")] = None,
                 tag: Annotated[Optional[str], typer.Option(help="The derived image's tag (default: from its files).")] = None) -> None:
    """Build detour/sandbox, detour/proxy and detour/replicas; no image registry needed. With
    --requirements or --npm, derive an image for agents that bring their own packages
    (run it with `detour run --backend docker --image TAG`)."""
    from sandbox.docker import connect_engine
    from sandbox.images.build import build_images, derive_image, offline_base

    def progress(message: str) -> None:
        typer.echo(f"detour: {message}", err=True)

    client = connect_engine()
    if requirements or npm:
        typer.echo(derive_image(client, requirements, npm, tag))
        return
    build_images(client, base or offline_base(client, mirror, progress), progress)
    typer.echo("detour: images ready", err=True)
