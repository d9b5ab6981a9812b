"""`detour doctor`: what this machine lacks, which backends can run, and what crashed
sandboxes left behind."""

from __future__ import annotations

import contextlib
import os
import shutil
from typing import Annotated

import typer

from detour.cli.common import app


def docker_leftovers(fix: bool) -> list[str]:
    """Say whether the docker backend can run; list (and remove) sandbox containers whose
    detour is gone."""
    import docker
    import requests

    from sandbox import docker as docker_backend
    from sandbox.images.build import missing_images
    try:
        client = docker_backend.connect_engine()
    except docker_backend.DockerUnavailable:
        where = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
        typer.echo(f"docker backend: unavailable: no Docker engine answers at {where} (to use it: install docker.io "
                   "and start dockerd, or set DOCKER_HOST to an engine; the other backends do not need one)")
        return []
    try:
        missing = missing_images(client)
        stale = docker_backend.leftovers(client)
    except (docker.errors.DockerException, requests.RequestException) as e:  # a busy engine: a timeout
        typer.echo(f"docker backend: the engine did not answer ({type(e).__name__}): its containers are not "
                   "checked; run `detour doctor` again")
        return []
    typer.echo("docker backend: " + (f"images missing: {', '.join(missing)} (run `detour images build`)"
                                     if missing else "available"))
    for name in stale:
        if fix:
            docker_backend.remove(client, name)
        typer.echo(f"{'removed' if fix else 'left over'}: container {name}")
    return stale


def proxy_user_leftovers(fix: bool, uid: int | None = None) -> list[str]:
    """List (and remove) what the proxy users of killed stacks left (detour/proxy_user.py):
    nftables tables of uids no running stack holds, broker sockets and cgroups named by
    processes that are gone; every uid's, or one's (a test's own stack). A running stack's stay."""
    from detour import proxy_user
    with proxy_user.registry_lock():
        tables = [t for t in proxy_user.dead_tables() if uid is None or t == f"{proxy_user.TABLE_PREFIX}{uid}"]
        sockets, groups = proxy_user.dead_sockets(uid or "*"), proxy_user.dead_groups(uid or "*")
        for name in tables if fix else []:
            proxy_user.delete_table(name)
        for made in sockets if fix else []:
            made.unlink(missing_ok=True)
        for folder in groups if fix else []:
            with contextlib.suppress(OSError):  # only an empty one goes: a killed stack's proxies die with it
                folder.rmdir()
    found = [f"nftables table {n}" for n in tables] + [f"broker socket {s}" for s in sockets] + [f"cgroup {g}" for g in groups]
    for what in found:
        typer.echo(f"{'removed' if fix else 'left over'}: a killed stack's proxy user's {what}")
    return found


def temp_leftovers(fix: bool) -> list[str]:
    """List (and remove) the temporary folders of detour processes that are gone: a killed
    stack's runs and the code it was given (sandbox/temp_folders.py). A live process's stay."""
    from sandbox import temp_folders
    found = temp_folders.remove_dead() if fix else temp_folders.dead_folders()
    for folder in found:
        typer.echo(f"{'removed' if fix else 'left over'}: folder {folder} (the detour that made it is gone)")
    return [str(folder) for folder in found]


def report_needs(install: bool) -> None:
    """What pip cannot install and this machine lacks; with `install`, apt gets it (as root)."""
    from sandbox import host_packages
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
    report_runtime(install)


def report_runtime(install: bool) -> None:
    """detour's own sandbox runtime (a clone's, or one under the user's data dir): built with `install`."""
    from sandbox import own_runtime
    runtime = own_runtime.own_runtime()
    if runtime.ready():
        typer.echo(f"sandbox runtime: {runtime.venv.parent}")
    elif install:
        from detour.progress import Steps
        with Steps("detour doctor --install: the sandbox runtime", total=own_runtime.STEPS) as steps:
            own_runtime.build(runtime, steps.step)
        typer.echo(f"installed: the sandbox runtime at {runtime.venv.parent}")
    else:
        typer.echo(f"missing: detour's sandbox runtime at {runtime.venv.parent} (`detour doctor --install` builds it; "
                   "the first run does too)")


def report_languages() -> None:
    """The languages agents may be written in beyond Python, Node, Bash and Perl, as found here."""
    from sandbox import host_packages
    found = [need.probe for need in host_packages.LANGUAGES if need.met() and not need.probe.startswith("/")]
    lacking = [need.package for need in host_packages.LANGUAGES if not need.met()]
    typer.echo("languages: python, node, bash, perl" + "".join(f", {name}" for name in found)
               + (f" (without {', '.join(lacking)})" if lacking else ""))


@app.command()
def doctor(fix: Annotated[bool, typer.Option("--fix/--check", help="Remove what is left over.")] = True,
           install: Annotated[bool, typer.Option(help="Install missing Debian packages with apt (as root).")] = False) -> None:
    """What this machine lacks and how to get it; which backends can run; and (removed) the
    namespaces, veths, nftables tables, cgroups and containers of sandboxes that are gone, the
    tables, sockets and cgroups of killed stacks' proxy users, and the temporary folders of
    detour processes that are gone."""
    from sandbox import namespace, netns

    report_needs(install)
    report_languages()
    missing = namespace.requirements_missing()
    typer.echo("namespace backend: " + ("available" if not missing else f"unavailable (needs {', '.join(missing)})"))
    folders = temp_leftovers(fix)
    if "root" in missing:
        if folders and not fix:
            raise typer.Exit(1)
        return
    found = docker_leftovers(fix) + proxy_user_leftovers(fix) + folders
    stale = netns.leftovers()
    for sid in stale:
        if fix:
            netns.teardown(sid)
            for folder in namespace.run_folders(sid):
                shutil.rmtree(folder, ignore_errors=True)
        typer.echo(f"{'removed' if fix else 'left over'}: sandbox {sid} (netns, veth, nftables table, cgroups, "
                   "temporary files)")
    if not stale and not found:
        typer.echo("no leftovers")
    elif not fix:
        raise typer.Exit(1)
