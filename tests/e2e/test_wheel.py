"""detour as a package: `python -m build` of the repository gives a wheel whose `pip install` in
a fresh venv, in a folder outside the checkout, is a working `detour`: its version, `detour
doctor --install` building the sandbox runtime under the user's data directory (not the clone),
and the quickstart page's agent and commands, as written: an unmodified slack_sdk agent against
slack_default, and its diff.

Slow (minutes): pip and npm fetch detour's dependencies and the runtime's from the package
registries, as a user's install does (their caches make later runs quicker). The agent's own
traffic goes nowhere but the replica."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from detour.stack import free_port
from tests.e2e.test_readme_examples import QUICKSTART, SKIPPED, commands_of, shown_files

REPO = Path(__file__).resolve().parents[2]


def run(argv: list, env: dict, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in argv], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture
def user(tmp_path):
    """A fresh venv with the wheel installed, a data dir, a home and ports of its own; the stack
    its run started is stopped after."""
    base = Path(getattr(sys, "_base_executable", sys.executable))
    plain = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "DETOUR_HOME")}
    run([sys.executable, "-m", "build", "--outdir", tmp_path / "dist", REPO], plain, tmp_path)
    [wheel] = (tmp_path / "dist").glob("detour-*.whl")
    run([base, "-m", "venv", tmp_path / "venv"], plain, tmp_path)
    run([tmp_path / "venv" / "bin" / "pip", "install", "--quiet", wheel], plain, tmp_path)
    ports: set[int] = set()
    env = plain | {"PATH": f"{tmp_path / 'venv' / 'bin'}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                   "XDG_DATA_HOME": str(tmp_path / "data"), "DETOUR_HOME": str(tmp_path / "detour-home"),
                   "DETOUR_PROXY_PORT": str(free_port("127.0.0.1", ports)),
                   "DETOUR_REPLICA_PORT": str(free_port("127.0.0.1", ports)), "DETOUR_STACK_IDLE_S": "120"}
    work = tmp_path / "work"
    work.mkdir()
    yield env, work, tmp_path
    subprocess.run(["detour", "stack", "stop"], env=env, cwd=work, capture_output=True, timeout=60)


def test_the_wheel_installed_in_a_fresh_venv_runs_an_agent_outside_the_checkout(user):
    env, work, tmp = user
    where = run(["python", "-c", "import detour, sandbox; print(detour.__file__, sandbox.__file__)"], env, work)
    assert str(REPO) not in where.stdout and str(tmp / "venv") in where.stdout
    assert run(["detour", "--version"], env, work).stdout.strip() == "detour 0.1.0"

    doctor = subprocess.run(["detour", "doctor", "--install", "--check"], env=env, cwd=work, capture_output=True,
                            text=True, timeout=900)  # --check: another sandbox's leftovers are not this test's
    runtime = tmp / "data" / "detour-runtime"
    assert f"installed: the sandbox runtime at {runtime}" in doctor.stdout, doctor.stdout + doctor.stderr
    assert (runtime / "venv" / "bin" / "python3").exists() and (runtime / "node_packages" / "node_modules").is_dir()

    for name, text in shown_files(QUICKSTART).items():
        (work / name).write_text(text)
    ran = {command: run(["bash", "-c", command], env, work, timeout=300)
           for command in commands_of(QUICKSTART) if command not in SKIPPED}
    run_output = ran["detour run --env first agent.py"]
    assert run_output.stdout == "posted in #general\n" and "1 inserts" in run_output.stderr, run_output.stderr
    assert '"message_text": "Hello from my first agent"' in ran["detour env diff first"].stdout
