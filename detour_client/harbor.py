"""A detour suite's test as a Harbor task (`pip install detour-client harbor`): an environment type
and a verifier, registered as Harbor takes third-party ones, by import path.

    harbor run -p tasks/acme_1 -a oracle --env detour_client.harbor:DetourEnvironment \\
        --verifier detour_client.harbor:DetourVerifier --ek backend=namespace   # DETOUR_URL, DETOUR_API_KEY

The task's `environment/detour.json` is a detour suite holding the test (`write_tasks` makes such
tasks from a suite, one a test). `start` makes the test's episode (detour_client.episode: a fresh
environment from its seed, as its acting user); every `exec` is one program in a sandbox behind
detour's proxy against that environment, so the agent's calls land in the replicas; the verifier
scores the test's assertions on the environment's diff; `stop` deletes the environment.

Harbor's commands expect a writable filesystem (/logs, /tests, /solution, the task's workdir)
where detour's sandbox has a read-only root and a fresh work directory each run. So the files
live here, beside Harbor: each command's program carries them in (a tar), binds each top-level
folder of them at its place in a nested bubblewrap (same network namespace: the proxy still sees
every call) and carries them back out with the command's output. Uploads and downloads are copies
here. This suits tasks with small files (the whole tree travels with each command); `user` is
the sandbox's own uid, or root in the nested user namespace when Harbor asks for root.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import shlex
import shutil
import tarfile
import tempfile
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.environments.options import EnvironmentOptions
from harbor.models.trial.paths import EnvironmentPaths
from harbor.models.verifier.result import VerifierResult
from harbor.verifier.base import BaseVerifier
from pydantic import Field

from detour_client.episode import Episode, find_test
from detour_client.http import StackClient
from detour_client.rollouts import SuiteError

SUITE_FILE = "detour.json"  # in the task's environment/: a suite holding the task's test
WORKDIR = "/app"            # a task's working directory when its [environment] names none
NO_TIMEOUT_S = 3600.0       # how long a command Harbor gives no timeout may run
TEST_SH = """#!/bin/bash
echo "this task is scored on its detour environment's diff: --verifier detour_client.harbor:DetourVerifier" >&2
exit 1
"""
OUTPUT_BYTES = 64 * 1024 * 1024  # the files and the command's output, as base64, on the program's stdout
MARGIN_S = 30.0             # the program's unpacking and packing around the command

# The program each command becomes. The files arrive as base64 of a tar.gz, the command runs in a
# bubblewrap whose root is the sandbox's (read-only), each top-level folder of the files bound
# writable at its place, /tmp and /home as they are; the files and the command's output leave as
# one tar.gz on stdout, and the program exits with the command's code.
PROGRAM = r"""set -u
shopt -s nullglob
mkdir -p "$HOME/root" "$HOME/io"
base64 -d <<'DETOUR_FILES' | tar -xzf - -C "$HOME/root"
{files}
DETOUR_FILES
binds=()
for entry in /*; do
  name=${{entry#/}}
  case "$name" in proc|dev) continue;; esac
  [ -e "$HOME/root/$name" ] && continue
  if [ -L "$entry" ]; then binds+=(--symlink "$(readlink "$entry")" "$entry")
  elif [ "$name" = tmp ] || [ "$name" = home ]; then binds+=(--bind "$entry" "$entry")
  else binds+=(--ro-bind "$entry" "$entry"); fi
done
for entry in "$HOME"/root/*; do binds+=(--bind "$entry" "/${{entry##*/}}"); done
timeout {timeout_s} bwrap --die-with-parent "${{binds[@]}}" --dev /dev --proc /proc {options} \
  -- bash -c {command} >"$HOME/io/out" 2>"$HOME/io/err" </dev/null
code=$?
tar -czf - -C "$HOME" root io | base64 -w0
exit $code
"""


class DetourOptions(EnvironmentOptions):
    """`--ek NAME=VALUE`: where the stack is and how its sandboxes run."""

    url: str | None = Field(None, description="The stack's URL (default: $DETOUR_URL).")
    api_key: str | None = Field(None, description="The stack's API key (default: $DETOUR_API_KEY).")
    backend: str = Field("namespace", description="The sandbox backend (the nested bubblewrap needs namespace).")


class DetourEnvironment(BaseEnvironment):
    """One Harbor trial's environment: a detour episode of the task's test, and its files."""

    options_model = DetourOptions
    options: DetourOptions
    episode: Episode | None = None
    root: Path | None = None

    @staticmethod
    def type() -> str:
        return "detour"

    @cached_property
    def suite(self) -> dict[str, Any]:
        path = self.environment_dir / SUITE_FILE
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: a detour task's environment/ holds its test as a suite")
        return json.loads(path.read_text())

    @cached_property
    def test_id(self) -> str:
        """The test named as the task is, or the suite's only test."""
        ids = [str(test.get("id")) for test in self.suite["tests"]]
        if self.environment_name in ids or len(ids) != 1:
            return self.environment_name
        return ids[0]

    @property
    def workdir(self) -> str:
        return self.task_env_config.workdir or WORKDIR

    def _validate_definition(self) -> None:
        find_test(self.suite, self.test_id)  # one line naming the suite's tests if it is not there

    async def start(self, force_build: bool) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="detour-harbor-"))
        paths = EnvironmentPaths()
        for folder in (paths.agent_dir, paths.verifier_dir, paths.artifacts_dir, self.workdir):
            self._local(str(folder)).mkdir(parents=True, exist_ok=True)
        stack = StackClient(self.options.url, api_key=self.options.api_key)
        self.episode = Episode(stack, self.suite, self.test_id, {"backend": self.options.backend})
        await asyncio.to_thread(self.episode.start)
        self.logger.debug(f"detour environment {self.episode.env_id} for {self.test_id}")

    async def stop(self, delete: bool) -> None:
        """The environment goes (kept, and named in the log, when Harbor says not to delete)."""
        if self.episode is not None:
            if delete:
                await asyncio.to_thread(self.episode.close)
            else:
                self.logger.info(f"detour environment {self.episode.env_id} kept")
            self.episode.stack.close()
            self.episode = None
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def _local(self, path: str) -> Path:
        """Where a path of the environment's is kept here (relative paths: from the workdir)."""
        if self.root is None:
            raise RuntimeError("the environment has not started")
        inside = PurePosixPath(self.workdir) / path
        if ".." in inside.parts:
            raise ValueError(f"{path!r}: a path with '..' is refused")
        return self.root.joinpath(*inside.parts[1:])

    @cached_property
    def files(self) -> asyncio.Lock:
        """One command or copy at a time: a command brings the whole tree back, and would undo
        a copy made while it ran (or another command's files)."""
        return asyncio.Lock()

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        async with self.files:
            target = self._local(target_path)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source_path, target)

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        async with self.files:
            shutil.copytree(source_dir, self._local(target_dir), dirs_exist_ok=True)

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        async with self.files:
            Path(target_path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self._local(source_path), target_path)

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        async with self.files:
            shutil.copytree(self._local(source_dir), target_dir, dirs_exist_ok=True)

    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        """The command in the episode's sandbox, its files carried in and back."""
        if self.episode is None or self.root is None:
            raise RuntimeError("the environment has not started")
        timeout_s = float(timeout_sec or NO_TIMEOUT_S)
        options = ["--chdir", cwd or self.workdir]
        for name, value in (self._merge_env(env) or {}).items():
            options += ["--setenv", name, value]
        if self._resolve_user(user) in ("root", 0):
            options += ["--unshare-user", "--uid", "0", "--gid", "0"]
        limits = {"timeout_s": timeout_s + MARGIN_S, "output_bytes": OUTPUT_BYTES}
        async with self.files:
            program = PROGRAM.format(files=_pack(self.root), timeout_s=timeout_s, command=shlex.quote(command),
                                     options=shlex.join(options))
            done = await asyncio.to_thread(self.episode.execute, program, "bash", limits=limits)
            try:
                out, err = _unpack(done["stdout"] or "", self.root)
            except (ValueError, tarfile.TarError):
                raise RuntimeError(f"detour's sandbox did not run the command (exit {done['exit_code']}): "
                                   f"{(done['stderr'] or '')[-500:]}") from None
        return ExecResult(stdout=out, stderr=err, return_code=done["exit_code"] if done["exit_code"] is not None else -1)


class DetourVerifier(BaseVerifier):
    """The task's test scored on the environment's diff: the reward is the share of its
    assertions that pass, as `detour suite run` scores it; the counts go to verifier/detour.json."""

    async def verify(self) -> VerifierResult:
        environment = self.environment
        if not isinstance(environment, DetourEnvironment) or environment.episode is None:
            raise TypeError("detour's verifier scores a started detour environment "
                            "(--env detour_client.harbor:DetourEnvironment)")
        scored = await asyncio.to_thread(environment.episode.score)
        self.trial_paths.verifier_dir.mkdir(parents=True, exist_ok=True)
        (self.trial_paths.verifier_dir / "detour.json").write_text(json.dumps(scored))
        return VerifierResult(rewards={"reward": scored["reward"]})


def write_tasks(suite: dict[str, Any], folder: Path) -> list[Path]:
    """A Harbor task per test of the suite under `folder` (named by the test's id): the prompt as
    its instruction, the test as its environment's suite. A solution (solution/solve.sh) is the
    caller's to add. DetourVerifier scores; tests/test.sh, which Harbor requires, only says so."""
    made = []
    for test in suite["tests"]:
        task = folder / str(test["id"])
        if str(test["id"]) in ("", ".", "..") or "/" in str(test["id"]):
            raise SuiteError(f"test id {test['id']!r} cannot name a task folder")
        for part in ("environment", "tests"):
            (task / part).mkdir(parents=True, exist_ok=True)
        (task / "tests" / "test.sh").write_text(TEST_SH)
        (task / "task.toml").write_text('version = "1.0"\n\n[metadata]\nsource = "detour"\n')
        (task / "instruction.md").write_text(str(test.get("prompt", "")) + "\n")
        one = {**{k: v for k, v in suite.items() if k != "tests"}, "tests": [test]}
        (task / "environment" / SUITE_FILE).write_text(json.dumps(one, indent=1))
        made.append(task)
    return made


def _pack(root: Path) -> str:
    """The files as base64 of a tar.gz (what the program unpacks into its root)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for entry in sorted(root.iterdir()):
            tar.add(entry, arcname=entry.name)
    return base64.b64encode(buffer.getvalue()).decode()


def _unpack(blob: str, root: Path) -> tuple[str, str]:
    """The program's tar: its root replaces the files here; its io/ holds the command's output."""
    with tempfile.TemporaryDirectory() as staging, \
            tarfile.open(fileobj=io.BytesIO(base64.b64decode(blob.strip(), validate=True)), mode="r:gz") as tar:
        tar.extractall(staging, filter="data")
        came = Path(staging)
        shutil.rmtree(root)
        shutil.move(came / "root", root)
        return ((came / "io" / "out").read_text(errors="replace"), (came / "io" / "err").read_text(errors="replace"))
