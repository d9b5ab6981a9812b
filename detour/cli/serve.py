"""`detour serve` (the stack in the foreground) and `detour api-key`."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Annotated, Literal, Optional

import typer

from detour_core.policy import Policy
from detour_core.secrets import SERVER, SecretStore
from detour import background
from detour.cli.common import AllowOpt, CaptureOpt, PolicyOpt, RuleOpt, app, fail, host_port, policy_from, state
from detour.stack import (DEFAULT_PROXY_PORT, DEFAULT_REPLICA_PORT, EMBEDDED, PARTS, PROXY_PORT_VARIABLE,
                          REPLICA_PORT_VARIABLE, Stack, record_file, running_stacks)
from detour_core.credentials import api_key
from detour_core.errors import DetourError
from detour_core.paths import StatePaths

StackPart = Literal["all", "proxy", "replicas"]


def server_secrets(paths, given: list[str], policy: Policy) -> None:
    """The server's secrets are this server's: written at start (its policy's, then --secret's),
    none left from an earlier one."""
    store = SecretStore(paths.secrets_dir)
    store.forget(SERVER)
    store.take(SERVER, policy.secrets)
    for entry in given:
        name, equals, hosts = entry.partition("=")
        if not equals or not hosts:
            raise fail(f"--secret takes NAME=HOST[,HOST], not {entry!r}")
        if name not in os.environ:
            raise fail(f"--secret {name}: the variable {name} is not set for detour serve")
        store.set(SERVER, name, os.environ[name], hosts.split(","))


@app.command()
def serve(host: str = "127.0.0.1",
          proxy_port: Annotated[int, typer.Option(envvar=PROXY_PORT_VARIABLE, min=0, max=65535)] = DEFAULT_PROXY_PORT,
          replica_port: Annotated[int, typer.Option(envvar=REPLICA_PORT_VARIABLE, min=0, max=65535)]
          = DEFAULT_REPLICA_PORT,
          only: Annotated[StackPart, typer.Option(help="Run one part (a container each in compose.yaml).")] = "all",
          replicas: Annotated[Optional[str], typer.Option(help="HOST:PORT of replicas run elsewhere (with --only proxy).")] = None,
          publish_ca: Annotated[bool, typer.Option(help="Also copy the CA's public files where sandbox containers read them (a shared volume).")] = False,
          console_logs: Annotated[bool, typer.Option(help="Logs to the console instead of $DETOUR_HOME/logs (in a container).")] = False,
          no_auth: Annotated[bool, typer.Option("--no-auth", help="Platform API callers need no X-API-Key (loopback only).")] = False,
          workers: Annotated[int, typer.Option(min=1, help="Proxy processes sharing the proxy's ports (one core each); "
                                                       "default: one per core.")] = os.cpu_count() or 1,
          policy: PolicyOpt = None, allow: AllowOpt = None, capture: CaptureOpt = None,
          rule: RuleOpt = None,
          secret: Annotated[Optional[list[str]], typer.Option(
              help="NAME=HOST[,HOST]: every environment's runs get a placeholder in NAME; the proxy puts in the "
                   "value of this process's variable NAME for those hosts.")] = None,
          audit_segment_mb: Annotated[Optional[int], typer.Option(
              min=1, help="An environment's records start a new file past this size (default 64; 8 are kept).")] = None,
          idle_exit: Annotated[Optional[float], typer.Option(
              help="Leave after this many seconds in which no command used the stack (a background stack).")] = None,
          database: Annotated[Optional[str], typer.Option(
              help="postgresql://... : environments live in Postgres from now on (for every detour command on "
                   "this home), so several servers share them; `sqlite` goes back to files.")] = None) -> None:
    """Run the proxy and the replicas in the foreground until interrupted. --policy, --allow and
    --capture apply to every environment (each may add its own: `detour env policy`)."""
    paths = state()
    server_policy = policy_from(policy, allow, capture, rules=rule)
    if database:
        choose_database(paths, database)
    parts = {"all": PARTS, "proxy": EMBEDDED, "replicas": ("replicas",)}[only]
    refuse_a_second(paths, parts)
    server_secrets(paths, secret or [], server_policy)
    replica_host = None
    if replicas:
        replica_host, replica_port = host_port(replicas, "--replicas")
    if publish_ca:
        from certs.authority import CertificateAuthority
        from sandbox.docker import IMAGE_TRUST
        CertificateAuthority(paths).ensure().publish(IMAGE_TRUST)
    stack = Stack(paths, host, proxy_port, replica_port, parts=parts, replica_host=replica_host,
                  console_logs=console_logs, api_auth=not no_auth, policy=server_policy, workers=workers,
                  audit_segment_mb=audit_segment_mb)
    record = record_file(paths, parts)
    # Before the start, not after: a stack stopped while it starts (a background launch given up on)
    # takes down what it had set up, as Stack.start does on any exception.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        with stack as info:
            typer.echo(f"detour: {', '.join(parts)} up (proxy port {info.proxy_port}, replicas at "
                       f"{info.replica_url}), state in {paths.home}", err=True)
            wait(paths, stack, record, idle_exit)
    except KeyboardInterrupt:
        pass
    finally:
        record.unlink(missing_ok=True)  # once the stack's processes are gone: `stack stop` waits for this


def refuse_a_second(paths: StatePaths, parts: tuple[str, ...]) -> None:
    """One server per part and home: a second would fight the first for its ports and record."""
    for info in running_stacks(paths):
        if set(info.parts) & set(parts):
            kind = "a background stack" if info.idle_exit_s else f"detour serve ({', '.join(info.parts)})"
            raise fail(f"{kind} already runs for {paths.home} (pid {info.pid}, proxy port {info.proxy_port}): "
                       "stop it with `detour stack stop`")


def wait(paths: StatePaths, stack: Stack, record: Path, idle_exit: float | None) -> None:
    """Until a signal, or (a background stack) until no command has used it for `idle_exit` s.
    SIGHUP (`detour ca rotate` sends it) restarts the proxy with the home's new CA; the record
    is written again once it listens, which is how the sender knows. A part that dies (SIGCHLD
    wakes the wait) is started again at once, and the runs under way then say so."""
    hangups: list[int] = []
    woken = threading.Event()
    signal.signal(signal.SIGHUP, lambda number, _: (hangups.append(number), woken.set()))
    signal.signal(signal.SIGCHLD, lambda *_: woken.set())
    description = stack.info.model_copy(update={"idle_exit_s": idle_exit}).model_dump_json()
    _write_whole(record, description)  # only now: a SIGHUP before the handler would end the server
    started = time.time()
    while idle_exit is None or background.idle_for(paths, started) < idle_exit:
        if hangups:
            hangups.clear()
            stack.restart("proxy")
            _write_whole(record, description)
        for death in stack.revive():
            typer.echo(f"detour: {death.text()} died; started again", err=True)
        woken.wait(1.0 if idle_exit is None else min(1.0, idle_exit / 4))
        woken.clear()


def choose_database(paths: StatePaths, url: str) -> None:
    """Recorded only once it answers (a few seconds at most; Ctrl-C ends the check), so a typo
    or a database that is down never strands this home's commands."""
    from mock_services.databases import check_database
    from mock_services.databases.postgres import shown
    if url == "sqlite":
        paths.database_file.unlink(missing_ok=True)
        return
    recorded = paths.database_file.read_text().strip() if paths.database_file.exists() else ""
    kept = f"this home keeps {shown(recorded) if recorded else 'its SQLite files'}"
    try:
        check_database(url)
    except KeyboardInterrupt:
        raise fail(f"database check interrupted: nothing recorded, {kept}", 130) from None
    except DetourError as e:
        raise fail(f"{e}; nothing recorded, {kept}") from None
    _write_whole(paths.database_file, url)


def _write_whole(path: Path, text: str) -> None:
    """Under another name, then renamed: a reader that sees the file sees all of it (a test or a
    `detour run` waiting for stack.json read it empty, half written, under load)."""
    partial = path.with_suffix(".writing")
    partial.write_text(text)
    partial.replace(path)


@app.command("api-key")
def api_key_command() -> None:
    """Print the key that callers of the platform API (AgentDiff's SDK) send as X-API-Key."""
    typer.echo(api_key(state()))
