"""The process backend with real child processes: environment, limits, cleanup."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import uuid
from pathlib import Path

import psutil
import pytest

from certs.authority import CertificateAuthority
from sandbox.base import Limits, ProxyAccess, SandboxSpec
from sandbox.process import ProcessSandbox
from sandbox.run_uid import reveal_commands


@pytest.fixture
def run(state, tmp_path):
    trust = CertificateAuthority(state).ensure().trust_files()
    sandbox = ProcessSandbox(tmp_path / "runs")

    def go(code: str, proxy: ProxyAccess | None = None, **limits):
        program = tmp_path / f"p_{uuid.uuid4().hex[:6]}.py"
        program.write_text(textwrap.dedent(code))
        spec = SandboxSpec(argv=[sys.executable, program.name], proxy=proxy, trust=trust,
                           limits=Limits(**limits), program=program)
        return sandbox.run(spec)
    return go


def test_environment_is_built_from_empty(run, state, monkeypatch):
    monkeypatch.setenv("HOST_ONLY_SECRET", "leak")
    monkeypatch.setenv("SSL_CERT_DIR", "/etc/ssl/certs")
    proxy = ProxyAccess(env_id="e", secret="s", host="127.0.0.1", port=1, transparent_port=2, dns_port=3, gateway_port=4)
    result = run("import json, os; print(json.dumps(dict(os.environ)))", proxy=proxy)
    env = json.loads(result.stdout)
    paths = CertificateAuthority(state).paths
    assert "HOST_ONLY_SECRET" not in env and "SSL_CERT_DIR" not in env
    assert env["SSL_CERT_FILE"] == env["REQUESTS_CA_BUNDLE"] == env["CURL_CA_BUNDLE"] == env["HTTPLIB2_CA_CERTS"] \
        == env["GIT_SSL_CAINFO"] == env["NODE_EXTRA_CA_CERTS"] == env["DENO_CERT"] == str(paths.cert)
    assert env["WGETRC"] == str(paths.wgetrc)
    assert env["https_proxy"] == env["HTTPS_PROXY"] == env["http_proxy"] == "http://e:s@127.0.0.1:1"
    assert env["NODE_USE_ENV_PROXY"] == "1"
    assert str(state.home) not in " ".join(v for k, v in env.items() if k not in
                                           ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO",
                                            "HTTPLIB2_CA_CERTS", "NODE_EXTRA_CA_CERTS", "DENO_CERT", "WGETRC"))


def test_each_run_gets_a_fresh_work_directory_that_is_removed(run):
    first = run("import os; open('mark', 'w').write('x'); print(os.getcwd())")
    second = run("import os; print(os.path.exists('mark'), os.getcwd())")
    assert second.stdout.startswith("False")
    assert first.stdout.strip() != second.stdout.split()[1]
    assert not __import__("os").path.exists(first.stdout.strip())


def test_exit_code_stdout_and_stderr(run):
    result = run("import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)")
    assert (result.exit_code, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert result.killed_reason is None and not result.timed_out


def test_wall_timeout(run):
    result = run("while True: pass", timeout_s=1)
    assert result.timed_out and result.killed_reason == "timeout"
    assert result.exit_code == 137
    assert 1000 <= result.duration_ms < 10000


def test_memory_cap(run):
    result = run("""
        chunks = []
        while True:
            chunks.append(bytearray(16 * 1024 * 1024))
    """, memory_mb=200, timeout_s=60)
    assert result.killed_reason == "memory" and not result.timed_out


def test_output_cap_is_enforced_while_streaming(run):
    result = run("""
        import sys
        while True:
            sys.stdout.write('x' * 4096)
    """, output_bytes=50_000, timeout_s=60)
    assert result.killed_reason == "output"
    assert len(result.stdout) + len(result.stderr) <= 50_000


def test_cpu_limit(run):
    result = run("while True: pass", cpu_s=1, timeout_s=60)
    assert result.killed_reason == "cpu"


def test_process_limit(run):
    result = run("""
        import subprocess, time
        procs = [subprocess.Popen(['sleep', '30']) for _ in range(40)]
        time.sleep(30)
    """, processes=10, timeout_s=60)
    assert result.killed_reason == "processes"


def test_file_size_limit(run):
    result = run("open('big', 'wb').write(b'x' * 5 * 1024 * 1024)", file_size_mb=1)
    assert result.exit_code != 0 and "File too large" in result.stderr


def test_nothing_outlives_the_run(run):
    marker = uuid.uuid4().hex
    result = run(f"""
        import subprocess, time
        subprocess.Popen(['bash', '-c', 'exec -a {marker}-group sleep 300'])
        subprocess.Popen(['bash', '-c', 'exec -a {marker}-setsid sleep 300'], start_new_session=True)
        time.sleep(0.5)
    """)
    assert result.exit_code == 0
    leftovers = [p for p in psutil.process_iter(["cmdline"]) if marker in " ".join(p.info["cmdline"] or [])]
    assert leftovers == []


def test_an_httplib2_that_went_around_the_proxy_is_explained_on_the_process_backend():
    """Shown with the error's text: a real one would need a lookup of a host outside this machine."""
    from detour.runner import proxy_hints
    failure = ("Traceback (most recent call last):\n  File \"httplib2/__init__.py\", line 1, in _conn_request\n"
               "httplib2.error.ServerNotFoundError: Unable to find the server at www.googleapis.com\n")
    assert "pip install PySocks" in proxy_hints("process", failure)[0]
    assert proxy_hints("namespace", failure) == [] and proxy_hints("process", "Traceback: KeyError\n") == []


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="masks are mounted by root")
def test_a_folder_behind_a_closed_one_inside_another_revealed_folder_is_revealed_too(tmp_path):
    """Revealing a folder (here behind pytest's 0700 one) makes it reachable, not what a closed
    folder inside it holds: a revealed folder in there gets a mask of its own, and the closed
    folder's other files stay hidden."""
    inner = tmp_path / "outer" / "closed" / "inner"
    inner.mkdir(parents=True)
    (inner / "file").write_text("shown")
    (inner.parent / "other").write_text("hidden")
    inner.parent.chmod(0o700)
    stash = Path(tempfile.mkdtemp())  # outside every folder masked
    try:
        look = f"cat {inner}/file && test ! -e {inner.parent}/other"
        script = " && ".join([*reveal_commands([tmp_path / "outer", inner], stash),
                              f"setpriv --reuid=65534 --regid=65534 --clear-groups -- sh -c '{look}'"])
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script],
                              capture_output=True, text=True, timeout=30)
    finally:
        shutil.rmtree(stash)
    assert done.returncode == 0 and done.stdout == "shown", done.stderr
