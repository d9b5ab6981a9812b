"""`detour env fault ...`: what goes wrong on purpose in an environment (detour_core.faults)."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer
from pydantic import ValidationError

from detour.cli.common import client, env_app, fail
from detour_core.faults import Fault
from detour_core.strict import first_error


def _body(pairs: list[str]) -> dict:
    """`field=value` pairs; a value that reads as JSON (a number, true) is taken as such."""
    found = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name:
            raise fail(f"--body takes FIELD=VALUE, not {pair!r}")
        try:
            found[name] = json.loads(value)
        except ValueError:
            found[name] = value
    return found


def _latency(text: str | None) -> float | tuple[float, float]:
    """`MS` or `LOW,HIGH`."""
    try:
        values = [float(v) for v in (text or "0").split(",")]
    except ValueError:
        raise fail(f"--latency-ms takes MS or LOW,HIGH, not {text!r}") from None
    if len(values) > 2:
        raise fail(f"--latency-ms takes MS or LOW,HIGH, not {text!r}")
    return values[0] if len(values) == 1 else (values[0], values[1])


@env_app.command("fault")
def env_fault(env_id: str,
              fault: Annotated[Optional[str], typer.Argument(
                  help="KIND METHOD HOST/PATH: rate_limited, error, latency, hang, drop or lost_answer, "
                       "e.g. 'rate_limited POST slack.com/api/chat.postMessage'.")] = None,
              probability: Annotated[float, typer.Option(help="The chance a matching request is hit.")] = 1.0,
              times: Annotated[Optional[int], typer.Option(help="Hit exactly N matching requests.")] = None,
              seed: Annotated[int, typer.Option(help="Seeds the draws.")] = 0,
              status: Annotated[int, typer.Option(help="An error's status: 500, 502 or 503.")] = 503,
              latency_ms: Annotated[Optional[str], typer.Option(help="A latency: MS, or LOW,HIGH.")] = None,
              operation: Annotated[Optional[str], typer.Option(help="A GraphQL operation's name.")] = None,
              body: Annotated[Optional[list[str]], typer.Option(help="FIELD=VALUE the body must carry.")] = None,
              clear: Annotated[bool, typer.Option("--clear", help="Remove every fault.")] = False) -> None:
    """Add a fault to ENV_ID's policy (or --clear them); print the environment's faults."""
    environments = client().environments
    faults = [] if clear else environments.faults(env_id)
    if fault:
        kind, _, match = fault.strip().partition(" ")
        try:
            faults.append(Fault(kind=kind, match=match.strip(), probability=probability, times=times, seed=seed,
                                status=status, latency_ms=_latency(latency_ms), operation=operation,
                                body=_body(body or [])))
        except ValidationError as e:
            raise fail(f"fault {fault!r}: {first_error(e)}") from None
    if fault or clear:
        faults = environments.faults(env_id, faults)
    for number, each in enumerate(faults, 1):
        typer.echo(each.label(number) + "".join(f"  {k}={v}" for k, v in each.model_dump(
            exclude={"kind", "match"}, exclude_defaults=True).items()))
