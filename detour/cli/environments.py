"""`detour env ...` and `detour templates`: environments and what they start from."""

from __future__ import annotations

import json
import shlex
import time
from datetime import datetime, timezone
from typing import Annotated, Optional

import typer

from detour.cli.common import (AllowOpt, CaptureOpt, JsonOpt, PolicyOpt, RuleOpt, app, client, env_app, fail, host_port,
                               policy_from, state)
from detour.run_options import DEFAULT_TEMPLATE
from detour.stack import running_stack
from detour_core.credentials import secret_for
from detour_core.durations import seconds
from detour_core.policy import Policy, load_policy, policy_file, save_policy
from sandbox.base import ProxyAccess, SandboxSpec


@app.command()
def templates() -> None:
    """List the templates environments can start from."""
    for name in client().templates():
        typer.echo(name)


@env_app.command("create")
def env_create(template: Annotated[list[str], typer.Option(
                   help="Template to seed from (a service's or a world's, such as acme); several of different "
                        "services join into one world.")] = [DEFAULT_TEMPLATE],
               env_id: Annotated[Optional[str], typer.Option("--id", help="Choose the id.")] = None,
               user: Annotated[Optional[str], typer.Option(
                   "--user", "--as", help="User the agent acts as; in a world, a person (their tokens in every service).")] = None,
               request_budget: Annotated[Optional[str], typer.Option(
                   help="N/SECONDS: requests beyond N per window get the API's rate-limit answer.")] = None,
               ttl: Annotated[Optional[float], typer.Option(help="Seconds until the environment is deleted.")] = None,
               require_issued_tokens: Annotated[bool, typer.Option(
                   help="Refuse tokens the environment did not issue (see `detour env tokens`), as the service would.")] = False,
               policy: PolicyOpt = None, allow: AllowOpt = None, capture: CaptureOpt = None,
               rule: RuleOpt = None, as_json: JsonOpt = False) -> None:
    """Create an environment and print its proxy credentials."""
    from mock_services.request_budget import RequestBudget

    own_policy = policy_from(policy, allow, capture, rules=rule)
    try:
        budget = RequestBudget.parse(request_budget) if request_budget else None
    except ValueError as e:
        raise fail(str(e)) from None
    dt = client()
    info = dt.environments.create(template, env_id=env_id, acting_user=user, request_budget=budget, ttl_s=ttl,
                                  policy=own_policy, require_issued_tokens=require_issued_tokens)
    secret = secret_for(dt.state, info.env_id)
    stack = running_stack(dt.state)
    proxy = stack.access(info.env_id, secret).url() if stack else None
    if stack and stack.idle_exit_s:
        typer.echo(f"detour: this proxy URL is the background stack's (pid {stack.pid}), which leaves after "
                   f"{stack.idle_exit_s:.0f} s unused; the next command starts it again, on this port if it is "
                   "still free. `detour serve` keeps a stack up.", err=True)
    if as_json:
        typer.echo(json.dumps(info.model_dump() | {"secret": secret, "proxy_url": proxy}))
        return
    typer.echo(f"{info.env_id}  template={info.template} service={','.join(info.held())} user={info.acting_user}")
    typer.echo(f"secret: {secret}")
    typer.echo(f"proxy:  {proxy or '(no stack runs: `detour serve` starts one, and so does the first `detour run`)'}")


@env_app.command("tokens")
def env_tokens(env_id: str, as_json: JsonOpt = False) -> None:
    """The credential variables a run gets (NAME=value, one a line, shell-quoted: the acting
    user's, as each vendor's client reads them), then the token the environment issued each user."""
    environments = client().environments
    variables, tokens = environments.variables(env_id), environments.tokens(env_id)
    if as_json:
        typer.echo(json.dumps({"variables": variables, "tokens": tokens}))
        return
    for name, value in variables.items():
        typer.echo(f"{name}={shlex.quote(value)}")
    for user_id, token in tokens.items():
        typer.echo(f"{user_id}  {token}")


@env_app.command("vars")
def env_vars(env_id: str,
             proxy: Annotated[str, typer.Option(help="HOST:PORT of the proxy, as the container sees it.")] = "proxy:8080") -> None:
    """Print the variables (KEY=VALUE) a detour/sandbox container needs to use this environment
    through a proxy container: compose's `agent` service reads them (docs/guides/backends.md)."""
    from sandbox.docker import IMAGE_TRUST, container_environment
    paths = state()
    client().environments.get(env_id)
    host, port = host_port(proxy, "--proxy")
    access = ProxyAccess(env_id=env_id, secret=secret_for(paths, env_id), host=host, port=port,
                         transparent_port=port, dns_port=port, gateway_port=port)
    spec = SandboxSpec(argv=["-"], proxy=access, trust=IMAGE_TRUST)
    for name, value in container_environment(spec, host).items():
        typer.echo(f"{name}={value}")


@env_app.command("policy")
def env_policy(env_id: str, policy: PolicyOpt = None, allow: AllowOpt = None, capture: CaptureOpt = None,
               rule: RuleOpt = None, reset: Annotated[bool, typer.Option("--reset", help="Back to the server's policy alone.")] = False) -> None:
    """Show an environment's own network policy; with options, change it (the proxy applies
    the change from the next request on)."""
    from detour_core.secrets import SecretStore

    paths = state()
    client().environments.get(env_id)
    path = policy_file(paths, env_id)
    current = Policy() if reset or not path.exists() else load_policy(path)
    updated = policy_from(policy, allow, capture, base=current, rules=rule)
    if updated != current or reset:
        SecretStore(paths.secrets_dir).take(env_id, updated.secrets)
        save_policy(path, updated)
    typer.echo(updated.model_dump_json(indent=2))


@env_app.command("list")
def env_list(as_json: JsonOpt = False) -> None:
    """List environments, oldest first."""
    for info in client().environments.list():
        typer.echo(info.model_dump_json() if as_json else
                   f"{info.env_id}  {info.template}  {','.join(info.held())}  user={info.acting_user}")


def duration_s(text: str, option: str = "--older-than") -> float:
    try:
        return seconds(text)
    except ValueError:
        raise fail(f"{option} takes a number and a unit (90s, 30m, 12h, 7d), not {text!r}") from None


@env_app.command("delete")
def env_delete(env_ids: Annotated[Optional[list[str]], typer.Argument(help="The environments to delete.")] = None,
               every: Annotated[bool, typer.Option("--all", help="Every environment of this home.")] = False,
               older_than: Annotated[Optional[str], typer.Option(
                   help="DURATION (90s, 30m, 12h, 7d): every environment created longer ago.")] = None) -> None:
    """Delete environments and their state (their audit records stay)."""
    if bool(env_ids) + every + (older_than is not None) != 1:
        raise fail("name the environments to delete, or give --all or --older-than DURATION (one of the three)")
    environments = client().environments
    if not env_ids:
        before = time.time() - (duration_s(older_than) if older_than is not None else 0)
        env_ids = [info.env_id for info in environments.list() if info.created_at <= before]
        if not env_ids:
            typer.echo("no environment to delete")
    for env_id in env_ids:
        environments.delete(env_id)
        typer.echo(f"deleted {env_id}")


@env_app.command("clock")
def env_clock(env_id: str,
              set_to: Annotated[Optional[str], typer.Option("--set", help="The time it reads from now on "
                                                                      "(ISO 8601); frozen unless --run.")] = None,
              freeze: Annotated[bool, typer.Option("--freeze", help="Stop it where it is.")] = False,
              run: Annotated[bool, typer.Option("--run", help="Let it run on from where it is (or --set).")] = False,
              advance: Annotated[Optional[str], typer.Option(help="Step it on: 90s, 30m, 2h, 7d.")] = None,
              real: Annotated[bool, typer.Option("--real", help="Back to the wall clock.")] = False) -> None:
    """Show or set ENV_ID's time: its replicas read no other (timestamps, relative queries, expiries)."""
    from mock_services.clock import instant

    environments = client().environments
    if freeze + run + real > 1:
        raise fail("give one of --freeze, --run and --real")
    clock = environments.get(env_id).clock
    if set_to or freeze or run or real or advance:
        try:
            at = instant(set_to) if set_to else None
        except ValueError as e:
            raise fail(f"--set: {e}") from None
        mode = "real" if real else "running" if run or (clock.mode == "running" and not freeze and not set_to) \
            else "frozen"
        clock = environments.clock(env_id, at, mode, duration_s(advance, "--advance") if advance else None)
    typer.echo(f"{datetime.fromtimestamp(clock.now(), timezone.utc).isoformat()}  {clock.mode}")


@env_app.command("advance")
def env_advance(env_id: str, by: Annotated[str, typer.Argument(help="How far: 90s, 30m, 2h, 7d.")]) -> None:
    """Move ENV_ID's clock on by BY and fire what its timeline has due by then (a running clock
    runs on from there; any other stays frozen there)."""
    environments = client().environments
    mode = "running" if environments.get(env_id).clock.mode == "running" else "frozen"
    clock = environments.clock(env_id, None, mode, duration_s(by, "the duration"))
    typer.echo(f"{datetime.fromtimestamp(clock.now(), timezone.utc).isoformat()}  {clock.mode}")


@env_app.command("fork")
def env_fork(env_id: str, n: Annotated[int, typer.Option("-n", "--count", help="How many copies.")] = 1,
             as_json: JsonOpt = False) -> None:
    """Copies of ENV_ID as it stands now, each its own environment (ids, one a line)."""
    for info in client().environments.fork(env_id, n):
        typer.echo(info.model_dump_json() if as_json else info.env_id)


@env_app.command("save-template")
def env_save_template(env_id: str, name: str) -> None:
    """Save an environment's current state as a new template."""
    path = client().environments.save_template(env_id, name)
    typer.echo(f"template {name} saved to {path}")


@env_app.command("diff")
def env_diff(env_id: str) -> None:
    """Changes since creation, in AgentDiff's shape (inserts, updates, deletes)."""
    typer.echo(client().environments.diff(env_id).model_dump_json(indent=2))
