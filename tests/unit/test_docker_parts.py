"""The docker backend's parts that need no engine: the stdin framing the entrypoint reads,
the variables a container gets, the image names compose.yaml uses, apt's mirror."""

import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from sandbox.base import ProxyAccess, SandboxSpec
from sandbox.docker import (HOME, IMAGE_RUNTIME, IMAGE_TRUST, container_argv, container_environment, host_files,
                            payload)
from sandbox.images import entry
from sandbox.images.build import IMAGES, debian_mirror
from sandbox.languages import command_for

REPO = Path(__file__).resolve().parents[2]
ACCESS = ProxyAccess(env_id="env-1", secret="s3cret", host="127.0.0.1", port=8080, transparent_port=8081,
                     dns_port=8053, gateway_port=8082)


def spec(tmp_path: Path, **fields) -> SandboxSpec:
    return SandboxSpec(**{"argv": ["true"], "proxy": ACCESS, "trust": IMAGE_TRUST} | fields)


def sent(tmp_path, **fields) -> bytes:
    return payload(spec(tmp_path, **fields), {}, "10.213.0.1", IMAGE_RUNTIME)


def test_the_entrypoint_reads_the_run_unpacks_the_program_and_leaves_stdin_to_it(tmp_path):
    """entry.py as the container runs it (minus the network wait), fed what payload() sends."""
    program = tmp_path / "agent.py"
    program.write_text("print('hi')\n")
    work = tmp_path / "work"
    work.mkdir()
    run = ("import sys; from sandbox.images import entry; argv, env = entry.read_run(); entry.unpack_files(); "
           "print(argv, env['HTTPS_PROXY'], sys.stdin.read(), end='')")
    done = subprocess.run([sys.executable, "-c", run], input=sent(tmp_path, program=program, stdin=b"rest"),
                          cwd=work, capture_output=True, env=os.environ | {"PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"['true'] http://env-1:s3cret@10.213.0.1:8080 rest"
    assert (work / "agent.py").read_text() == "print('hi')\n"


def test_the_entrypoint_refuses_a_missing_or_cut_payload(tmp_path):
    for data, message in ((b"plain stdin", b"no payload"), (entry.frame(b"x" * 100)[:-10], b"cut short"),
                          (entry.frame(b'{"argv": []}'), b"command did not arrive")):
        run = "from sandbox.images import entry; entry.read_run(); entry.unpack_files()"
        done = subprocess.run([sys.executable, "-c", run], input=data, cwd=tmp_path, capture_output=True,
                              env=os.environ | {"PYTHONPATH": str(REPO)})
        assert done.returncode == 1 and message in done.stderr


def frames(data: bytes) -> list[bytes]:
    found = []
    while data:
        size = int(data[len(entry.MAGIC):len(entry.MAGIC) + entry.LENGTH_DIGITS])
        start = len(entry.MAGIC) + entry.LENGTH_DIGITS
        found.append(data[start:start + size])
        data = data[start + size:]
    return found


def test_the_payload_holds_the_run_and_only_the_program(tmp_path):
    program = tmp_path / "agent.sh"
    program.write_text("echo hi\n")
    run, files = frames(sent(tmp_path, program=program))
    assert json.loads(run)["argv"] == ["true"] and json.loads(run)["env"]["HOME"] == str(HOME)
    with tarfile.open(fileobj=io.BytesIO(files)) as tar:
        assert [(m.name, m.uid, m.mode) for m in tar.getmembers()] == [("agent.sh", 0, 0o644)]


def test_container_variables_name_only_paths_inside_the_image(tmp_path):
    env = container_environment(spec(tmp_path), "10.213.0.1")
    assert env["HTTPS_PROXY"] == "http://env-1:s3cret@10.213.0.1:8080"
    assert env["SSL_CERT_FILE"] == str(IMAGE_TRUST.cert) and env["HOME"] == str(HOME)
    assert str(REPO) not in "".join(env.values()) and sys.prefix not in "".join(env.values())
    assert env["PATH"].split(":")[0] == str(IMAGE_RUNTIME.python.parent)
    rewrite = container_environment(spec(tmp_path, mode="rewrite"), "10.213.0.1")
    assert rewrite["PYTHONPATH"] == str(IMAGE_RUNTIME.preludes / "python")


def test_programs_start_with_the_images_interpreters():
    assert command_for(Path("a.py"), IMAGE_RUNTIME) == ["/opt/detour/venv/bin/python3", "a.py"]
    assert command_for(Path("a.ts"), IMAGE_RUNTIME) == ["/usr/local/bin/node", "a.ts"]
    assert command_for(Path("a.sh"), IMAGE_RUNTIME) == ["/bin/bash", "a.sh"]


def test_compose_uses_the_images_detour_builds():
    services = yaml.safe_load((REPO / "compose.yaml").read_text())["services"]
    assert {name: s["image"] for name, s in services.items()} == {
        "replicas": IMAGES["replicas"], "proxy": IMAGES["proxy"], "agent": IMAGES["sandbox"]}
    assert {s["build"]["target"] for s in services.values()} == {"replicas", "proxy", "sandbox"}
    networks = yaml.safe_load((REPO / "compose.yaml").read_text())["networks"]
    assert all(n["internal"] for n in networks.values())
    assert services["agent"]["networks"] == ["sandbox"] and services["replicas"]["networks"] == ["backend"]


@pytest.mark.parametrize("text, mirror", [
    ("Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n", "http://deb.debian.org/debian"),
    ("deb http://mirror.example/debian/ bookworm main\n", "http://mirror.example/debian"),
])
def test_the_mirror_comes_from_apts_sources(tmp_path, monkeypatch, text, mirror):
    source = tmp_path / "debian.sources"
    source.write_text(text)
    monkeypatch.setattr("sandbox.images.build.APT_SOURCES", (source,))
    assert debian_mirror() == mirror


def test_host_files_a_command_names_are_copied_in_but_never_detours_state(tmp_path):
    agent, home = tmp_path / "agent.py", tmp_path / "home"
    agent.write_text("print(1)\n")
    (home / "ca").mkdir(parents=True)
    (home / "ca" / "detour-ca.key").write_text("secret")
    argv = ["python3", str(agent), str(home / "ca" / "detour-ca.key"), "/bin/sh", "--flag"]
    shipped = host_files(argv, home)
    assert shipped == {str(agent): Path(".detour-files/1/agent.py")}
    assert container_argv(argv, shipped) == ["python3", "/home/agent/.detour-files/1/agent.py",
                                             str(home / "ca" / "detour-ca.key"), "/bin/sh", "--flag"]
    run, files = frames(payload(spec(tmp_path, argv=argv), shipped, "10.213.0.1", IMAGE_RUNTIME))
    assert json.loads(run)["argv"] == container_argv(argv, shipped)
    with tarfile.open(fileobj=io.BytesIO(files)) as tar:
        assert tar.getnames() == [".detour-files/1/agent.py"]


def test_no_engine_is_a_clear_error_not_a_traceback(tmp_path):
    detour = str(Path(sys.executable).parent / "detour")
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home"), "DOCKER_HOST": f"unix://{tmp_path}/no.sock"}
    for argv in (["run", "--backend", "docker", "--", "true"], ["images", "build"]):
        done = subprocess.run([detour, *argv], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.startswith("detour: ") and "Docker engine" in done.stderr


def test_the_entrypoint_unpacks_on_a_python_without_extraction_filters(tmp_path):
    """Images with an older Python (Debian 12's 3.11.2 has no tarfile filters): the same files
    arrive, and anything but a plain file at a relative path is refused."""
    program = tmp_path / "agent.py"
    program.write_text("print('hi')\n")
    no_filters = "import tarfile; del tarfile.data_filter; from sandbox.images import entry; entry.unpack_files()"
    work = tmp_path / "work"
    work.mkdir()
    files = frames(sent(tmp_path, program=program))[1]  # the files' frame alone: unpack_files() reads it
    done = subprocess.run([sys.executable, "-c", no_filters], input=entry.frame(files),
                          cwd=work, capture_output=True, env=os.environ | {"PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert (work / "agent.py").read_text() == "print('hi')\n"
    for name, kind in (("../escape.py", tarfile.REGTYPE), ("/abs.py", tarfile.REGTYPE), ("link", tarfile.SYMTYPE)):
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w") as tar:
            member = tarfile.TarInfo(name)
            member.type, member.linkname = kind, "/etc/passwd" if kind == tarfile.SYMTYPE else ""
            tar.addfile(member, io.BytesIO(b""))
        refused = subprocess.run([sys.executable, "-c", no_filters], input=entry.frame(archive.getvalue()),
                                 cwd=work, capture_output=True, env=os.environ | {"PYTHONPATH": str(REPO)})
        assert refused.returncode == 1 and b"refusing" in refused.stderr, (name, refused.stderr)
    assert sorted(p.name for p in work.iterdir()) == ["agent.py"]
