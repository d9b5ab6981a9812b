"""`detour ca ...` and `detour images build`: the CA sandboxes trust and the images they run in."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from cryptography.hazmat.primitives import hashes

from certs.authority import CertificateAuthority
from detour.cli.common import ca_app, images_app, state


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
