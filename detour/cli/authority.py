"""`detour ca ...` and `detour images build`: the CA sandboxes trust and the images they run in."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from detour.cli.common import ca_app, fail, images_app, state
from detour.stack import StackInfo, record_file, running_stacks
from detour_core.paths import StatePaths

RESTART_TIMEOUT_S = 30.0


@ca_app.command("path")
def ca_path(bundle: Annotated[bool, typer.Option(
        "--bundle", help="The system's CAs and detour's in one file (for clients that trust one file only).")] = False) -> None:
    """Print the path of the CA certificate that sandboxes trust (never the key's)."""
    from certs.authority import CertificateAuthority
    paths = CertificateAuthority(state()).ensure()
    typer.echo(paths.bundle if bundle else paths.cert)


@ca_app.command("show")
def ca_show() -> None:
    """Print the CA certificate's subject, validity and fingerprint."""
    from cryptography.hazmat.primitives import hashes

    from certs.authority import CertificateAuthority
    cert = CertificateAuthority(state()).certificate()
    typer.echo(f"subject:   {cert.subject.rfc4514_string()}\n"
               f"not after: {cert.not_valid_after_utc.isoformat()}\n"
               f"sha256:    {cert.fingerprint(hashes.SHA256()).hex(':')}")


@ca_app.command("rotate")
def ca_rotate() -> None:
    """Make a new CA; the old one moves to retired/. A running stack's proxy restarts to sign with it."""
    from certs.authority import CertificateAuthority
    paths = state()
    retired = CertificateAuthority(paths).rotate()
    typer.echo(f"new CA in place; the previous one is in {retired}" if retired else "CA created")
    for info in running_stacks(paths):
        if "proxy" in info.parts:
            typer.echo(restart_proxy(paths, info))


def restart_proxy(paths: StatePaths, info: StackInfo) -> str:
    """SIGHUP makes `detour serve` restart its proxy, which reads the CA at start only; the
    server writes its record again once the proxy listens."""
    record = record_file(paths, info.parts)
    before = record.stat().st_mtime_ns
    os.kill(info.pid, signal.SIGHUP)
    deadline = time.monotonic() + RESTART_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            if record.stat().st_mtime_ns != before:
                return f"restarted the proxy of the running stack (pid {info.pid}): later runs trust the new CA"
        except FileNotFoundError:
            return f"the running stack (pid {info.pid}) stopped; the next command starts one with the new CA"
        time.sleep(0.05)
    raise fail(f"the stack (pid {info.pid}) did not restart its proxy within {RESTART_TIMEOUT_S:.0f} s, so it "
               "still signs with the old CA: `detour stack stop`, then start it again")


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
    from detour.progress import Steps
    from sandbox.docker import connect_engine
    from sandbox.images.build import IMAGES, build_images, derive_image, offline_base

    client = connect_engine()
    if requirements or npm:
        typer.echo(derive_image(client, requirements, npm, tag))
        return
    with Steps("detour images build", total=1 + len(IMAGES) + (base is None)) as steps:
        build_images(client, base or offline_base(client, mirror, steps.step), steps.step)
    typer.echo("detour: images ready", err=True)
