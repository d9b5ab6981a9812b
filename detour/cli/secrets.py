"""`detour env secret ...`: secrets the sandbox never holds. Its variable gets a placeholder;
the proxy puts the value in only where the request goes to one of the secret's hosts, in the
parts of it that the secret names, and scrubs it from every answer those hosts send back."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from pydantic import ValidationError

from detour.cli.common import client, env_app, fail, state
from detour_core.policy import SecretRules, first_error
from detour_core.secrets import SecretStore

secret_app = typer.Typer(help="Secrets injected by the proxy: the sandbox sees placeholders.", no_args_is_help=True)
env_app.add_typer(secret_app, name="secret")


def _value(from_env: str | None, file: Path | None) -> str:
    """From a variable of detour's own environment, a file, or stdin: never from the command line."""
    if from_env and file:
        raise fail("give --from-env or --file, not both")
    if from_env:
        if from_env not in os.environ:
            raise fail(f"the variable {from_env} is not set")
        return os.environ[from_env]
    if file:
        try:
            return file.read_text().rstrip("\n")
        except OSError as e:
            raise fail(f"cannot read {file}: {e}") from None
    if sys.stdin.isatty():
        typer.echo("value (then Enter): ", err=True, nl=False)
    return sys.stdin.readline().rstrip("\n")


@secret_app.command("set")
def secret_set(env_id: str, name: str,
               host: Annotated[list[str], typer.Option("--host", help="HOST[,HOST...] the value may go to "
                                                                        "(*.domain for subdomains).")],
               from_env: Annotated[Optional[str], typer.Option(help="Read the value from this variable.")] = None,
               file: Annotated[Optional[Path], typer.Option(help="Read the value from this file.")] = None,
               inject: Annotated[Optional[list[str]], typer.Option(
                   help="PART[,PART...] of a request the value goes in: header (the default), query, body.")] = None,
               header: Annotated[Optional[list[str]], typer.Option(
                   help="A header besides Authorization that the value goes in (x-api-key, ...).")] = None,
               unchecked: Annotated[str, typer.Option(
                   help="An answer that cannot be checked for the value: refuse (502) or pass.")] = "refuse") -> None:
    """Keep a secret for ENV_ID's runs: their variable NAME holds a placeholder of the same shape."""
    client().environments.get(env_id)
    hosts = [h for value in host for h in value.split(",") if h.strip()]
    places = [p.strip() for value in inject or ["header"] for p in value.split(",") if p.strip()]
    try:
        rules = SecretRules(inject=places, headers=header or [], unchecked=unchecked)
    except ValidationError as e:
        raise fail(f"secret {name}: {first_error(e)}") from None
    secret = SecretStore(state().secrets_dir).set(env_id, name, _value(from_env, file), hosts, rules)
    typer.echo(f"{name} for {', '.join(secret.hosts)} in the {', '.join(where(secret))}; "
               f"the sandbox sees {secret.placeholder}")


def where(secret: SecretRules) -> list[str]:
    """The parts of a request the value goes in, in words."""
    headers = " and ".join(["Authorization", *secret.headers])
    return [f"{headers} header" if place == "header" else place for place in secret.inject]


@secret_app.command("list")
def secret_list(env_id: str) -> None:
    """Names, hosts and placeholders (never the values)."""
    client().environments.get(env_id)
    for name, secret in SecretStore(state().secrets_dir).all(env_id).items():
        typer.echo(f"{name}  hosts={','.join(secret.hosts)}  inject={','.join(secret.inject)}"
                   + (f"  headers={','.join(secret.headers)}" if secret.headers else "")
                   + f"  unchecked={secret.unchecked}  placeholder={secret.placeholder}")


@secret_app.command("rm")
def secret_rm(env_id: str, name: str) -> None:
    """Forget a secret; later runs no longer get its variable."""
    SecretStore(state().secrets_dir).remove(env_id, name)
    typer.echo(f"removed {name}")
