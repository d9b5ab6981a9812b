"""detour from Python: a long-lived client over one stack, and the one place that sets up a
run (store, backend, stack). The CLI's commands are a few lines over it.

A program that runs agent code thousands of times (an evaluation loop, RL rollouts) keeps one
`Client`, which uses the running stack or starts its own once and stops it on `close()`; a CLI
command is a client for one command. Sandboxes are made once per backend and runtime, so an
interpreter is probed once per client, not once per run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from pathlib import Path
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from detour_core.audit import AuditLog
from detour_core.credentials import secret_for
from detour_core.errors import DetourError
from detour_core.paths import StatePaths
from detour_core.faults import Fault
from detour_core.policy import Policy, load_policy, policy_file, save_policy, set_faults
from detour_core.secrets import SecretStore
from detour import background
from detour.run_options import DEFAULT_TEMPLATE
from detour.runner import RunResult, run_in_environment
from detour.stack import PARTS, Part, Stack, StackInfo, running_stack
from mock_services.clock import Clock, Instant, moved
from mock_services.request_budget import RequestBudget
from mock_services.store import EnvironmentInfo, EnvironmentStore, StateDiff
from mock_services.templates import save_template, template_names
from mock_services.timelines.run import set_clock
from sandbox import temp_folders
from sandbox.backends import Backend, open_backend
from sandbox.base import Limits, Mode, RunControl, Sandbox
from sandbox.languages import command_for, stdin_command, suffix_of
from sandbox.runtimes import RuntimeChoice

if TYPE_CHECKING:  # what only some methods use is imported in them: a CLI command is a client for one command
    from detour.compare import Comparison
    from detour.replay import Replay
    from detour.suite import SuiteReport, TestOutcome
    from mock_services.assertions import AssertionResult

Language = Literal["python", "javascript", "typescript", "bash", "perl"]


class Environments:
    """Environments of the client's detour home: the CLI's `detour env`."""

    def __init__(self, state: StatePaths) -> None:
        self.state = state
        self.store = EnvironmentStore(state)

    def create(self, template: str | list[str] = DEFAULT_TEMPLATE, env_id: str | None = None,
               acting_user: str | None = None, ttl_s: float | None = None,
               request_budget: RequestBudget | None = None, policy: Policy | None = None,
               require_issued_tokens: bool = False, clock: Clock | None = None,
               seed: str | None = None) -> EnvironmentInfo:
        """`template`: a service's or a world's, or several of different services joined into
        one world; `acting_user`: in a world, a person's handle (`alice`), who acts in every service;
        `policy`: the environment's own network policy, beside the server's;
        `require_issued_tokens`: refuse the tokens the environment did not issue (see `tokens`);
        `clock` (`Clock().set(at)`) and `seed`: its time and what its ids are drawn from."""
        info = self.store.create(template, env_id=env_id, acting_user=acting_user, ttl_s=ttl_s,
                                 request_budget=request_budget, require_issued_tokens=require_issued_tokens,
                                 clock=clock, seed=seed)
        if policy is not None and policy.secrets:
            try:
                SecretStore(self.state.secrets_dir).take(info.env_id, policy.secrets)
            except DetourError:
                self.store.delete(info.env_id)  # a policy that cannot be applied makes no environment
                raise
        if policy is not None and policy != Policy():
            save_policy(policy_file(self.state, info.env_id), policy)
        return info

    def get(self, env_id: str) -> EnvironmentInfo:
        return self.store.get(env_id)

    def list(self) -> list[EnvironmentInfo]:
        return self.store.list()

    def tokens(self, env_id: str) -> dict[str, str]:
        """The token the environment issued each of its users (a program acts as whoever's it holds)."""
        return self.store.credentials(env_id).tokens

    def variables(self, env_id: str) -> dict[str, str]:
        """The credential variables a run in the environment gets (its acting user's, under the
        names each vendor's own client reads), from each pack's `credentials` hook."""
        return self.store.credentials(env_id).variables

    def diff(self, env_id: str) -> StateDiff:
        return self.store.diff(env_id)

    def delete(self, env_id: str) -> None:
        self.store.delete(env_id)

    def faults(self, env_id: str, faults: list[Fault] | None = None) -> list[Fault]:
        """The environment's faults; with `faults`, replaced by them ([] clears them)."""
        self.store.get(env_id)
        if faults is not None:
            return set_faults(self.state, env_id, faults).faults
        path = policy_file(self.state, env_id)
        return load_policy(path).faults if path.exists() else []

    def clock(self, env_id: str, at: Instant | None = None, mode: Literal["frozen", "running", "real"] = "frozen",
              advance_s: float | None = None) -> Clock:
        """Set the environment's time: `at` (or its current time: a datetime, ISO 8601 text or epoch
        seconds), `advance_s` later, frozen or running from there; `mode="real"` returns to the wall
        clock. Its replicas read no other time."""
        return set_clock(self.store, env_id, moved(self.store.get(env_id).clock, at, mode, advance_s)).clock

    def fork(self, env_id: str, n: int = 1) -> list[EnvironmentInfo]:
        """`n` copies of the environment as it stands now (group rollouts, retries from here)."""
        return self.store.fork(env_id, n)

    def save_template(self, env_id: str, name: str) -> Path:
        with self.store.open(env_id) as env_state:
            return save_template(self.state, name, env_state.template_body())


class Client:
    """One detour home, one stack, and the sandboxes made so far."""

    def __init__(self, home: str | os.PathLike | None = None, backend: Backend = "auto",
                 python: str | os.PathLike | None = None, node_modules: str | os.PathLike | None = None,
                 image: str | None = None, stack: StackInfo | None = None,
                 own_stack: tuple[Part, ...] = PARTS, use_background: bool | None = None) -> None:
        """`stack`: one started elsewhere (its StackInfo) instead of `detour serve`'s or the
        home's background stack (detour.background: started on first use, unless
        `DETOUR_BACKGROUND=off`); with `use_background=False`, the client starts its own, of
        `own_stack`'s parts, and stops it on close."""
        self.state = (StatePaths(Path(home).resolve()) if home else StatePaths.default()).ensure()
        self.backend = backend
        self.runtime = RuntimeChoice(python=Path(python) if python else None,
                                     node_modules=Path(node_modules) if node_modules else None, image=image)
        self.environments = Environments(self.state)
        self._stack: Stack | None = None
        self._info = stack
        self._own_parts = own_stack
        self._background = background.enabled() if use_background is None else use_background
        self._sandboxes: dict[tuple[Backend, RuntimeChoice], Sandbox] = {}

    def templates(self) -> list[str]:
        return template_names(self.state)

    @property
    def stack(self) -> StackInfo:
        """The running stack (`detour serve`'s or the home's background one), else the one a
        background start gives, else one of the client's own, started on first use."""
        if self._info is None and self._background:
            self._info = background.background_stack(self.state)
        if self._info is None:
            self._info = running_stack(self.state)
        if self._info is None:
            self._stack = Stack(self.state, parts=self._own_parts)
            self._info = self._stack.start()
        return self._info

    def sandbox(self, backend: Backend | None = None, command: tuple[str, ...] = ()) -> Sandbox:
        """A file's own venv or node_modules beside it may choose the runtime, as on the CLI."""
        choice = RuntimeChoice(self.runtime.python, self.runtime.node_modules, self.runtime.image, command)
        key = (backend or self.backend, choice)
        if key not in self._sandboxes:
            self._sandboxes[key] = open_backend(key[0], self.state, choice)
        return self._sandboxes[key]

    def _environment(self, env: str | None, template: str) -> str:
        return self.environments.get(env).env_id if env else self.environments.create(template).env_id

    def run(self, code_or_file: str | os.PathLike, language: Language = "python", env: str | None = None,
            template: str = DEFAULT_TEMPLATE, backend: Backend | None = None, mode: Mode = "proxy",
            limits: Limits | None = None, workspace: str | os.PathLike | None = None,
            filename: str | None = None, args: Sequence[str] = (), stdio: bool = False,
            control: RunControl | None = None) -> RunResult:
        """A path is a program file (its suffix says its language); a string is code in
        `language`, or in the file type of `filename`; `args` follow it on its command line
        (`sys.argv[1:]`). Without `env`, a new environment from `template`. `stdio`: the program
        reads this process's stdin and writes to its stdout as it runs (a stdio MCP server).
        `control`: its output as it comes, and a stop (`control.stop.set()`) that ends it early."""
        with _program(code_or_file, language, filename) as program:
            sandbox = self.sandbox(backend, (str(program),) if isinstance(code_or_file, os.PathLike) else ())
            argv = [*command_for(program, sandbox.runtime), *args]  # an unknown file type: refused before anything
            env_id = self._environment(env, template)
            return run_in_environment(self.state, self.stack, env_id, sandbox, argv, program=program, limits=limits,
                                      mode=mode, workspace=Path(workspace) if workspace else None, stdio=stdio,
                                      control=control)

    def run_command(self, argv: list[str], env: str | None = None, template: str = DEFAULT_TEMPLATE,
                    backend: Backend | None = None, mode: Mode = "proxy", limits: Limits | None = None,
                    stdio: bool = False, control: RunControl | None = None) -> RunResult:
        """A command line (`detour run -- CMD ARGS`): files it names are shown read-only where they are."""
        sandbox = self.sandbox(backend, tuple(argv))
        env_id = self._environment(env, template)
        return run_in_environment(self.state, self.stack, env_id, sandbox, argv, limits=limits, mode=mode, stdio=stdio,
                                  control=control)

    def compare(self, file: str | os.PathLike, template: str = DEFAULT_TEMPLATE,
                backend: Backend | None = None, stop: threading.Event | None = None) -> Comparison:
        """Proxy mode against rewrite mode, as `detour compare`; `stop` ends the runs early."""
        from detour.compare import compare

        program = Path(os.path.abspath(file))
        sandbox = self.sandbox(backend, (str(program),))
        return compare(self.state, self.stack, sandbox, template, command_for(program, sandbox.runtime), program,
                       stop=stop)

    def replay(self, env: str | None = None, records: str | os.PathLike | None = None,
               template: str | None = None, stop: threading.Event | None = None,
               clock: Instant | Clock | None = None, seed: str | None = None) -> Replay:
        """A run's recorded requests sent again into a fresh environment: `env`'s own records
        (and its template, clock and seed), or a file of them (`detour logs --json`) with a template.
        `clock` (a time, frozen there, or a Clock) and `seed` replace the original's (a file of
        records has none). `stop` (set): no more requests are sent."""
        from detour.replay import read_records, replay

        original = self.environments.get(env) if env else None
        if records is not None:
            found = read_records(Path(records))
        elif env is not None:
            found = AuditLog(self.state.audit_dir).read(env, (0, 0))[0]
        else:
            raise DetourError("replay needs an environment or a file of records")
        if not (template or original):
            raise DetourError("replay of a file of records needs --template")
        frozen = clock if isinstance(clock, Clock) or clock is None else Clock().set(clock)
        return replay(self.state, self.stack, found, template or original.template, original, stop=stop,
                      clock=frozen, seed=seed)

    def check(self, env: str, assertions: str | os.PathLike | dict | list,
              test: str | None = None) -> list[AssertionResult]:
        """AgentDiff assertions (a file, or the spec itself) against an environment's diff."""
        from mock_services.assertions import evaluate_environment, load_spec, parse_spec

        spec = parse_spec(assertions) if isinstance(assertions, dict | list) else load_spec(Path(assertions), test)
        return evaluate_environment(spec, self.environments.store, env)

    def run_suite(self, suite: str | os.PathLike, agent: list[str], backend: Backend | None = None,
                  mode: Mode = "proxy", test: str | None = None, limits: Limits | None = None,
                  progress: Callable[[object], None] | None = None, workers: int = 1, keep: bool = False,
                  stop: threading.Event | None = None) -> SuiteReport:
        """Every test once, `workers` at once, reported in the suite's order; the tests' environments
        are deleted once scored, unless `keep`. `stop` (set): no more tests start, running agents stop."""
        from detour.suite import run_suite
        from detour_client.rollouts import agent_argv

        argv = agent_argv(agent)
        return run_suite(self.state, self.stack, self.sandbox(backend, tuple(argv)), Path(suite), argv,
                         mode=mode, only=test, limits=limits, progress=progress or (lambda _: None), workers=workers,
                         keep=keep, stop=stop)

    def rollouts(self, suite: str | os.PathLike, agent: list[str], n: int = 1, workers: int = 4,
                 backend: Backend | None = None, mode: Mode = "proxy", test: str | None = None,
                 limits: Limits | None = None, keep: bool = False) -> Iterator[TestOutcome]:
        """Each test of the suite `n` times, `workers` at once, each outcome yielded as it
        finishes (its `score` is the reward). Each rollout gets its own environment, sandbox and
        credentials; its environment is deleted once scored, unless `keep`."""
        from detour.suite import stream_suite
        from detour_client.rollouts import agent_argv

        argv = agent_argv(agent)
        return stream_suite(self.state, self.stack, self.sandbox(backend, tuple(argv)), Path(suite), argv, n=n,
                            workers=workers, mode=mode, only=test, limits=limits, keep=keep)

    def executor(self, language: Language = "python", env: str | None = None, template: str = DEFAULT_TEMPLATE,
                 workspace: str | os.PathLike | None = None, backend: Backend | None = None,
                 limits: Limits | None = None) -> Executor:
        return Executor(self, language, self._environment(env, template), workspace, backend, limits)

    def close(self) -> None:
        if self._stack:
            self._stack.stop()
        self._stack = self._info = None

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def _program(code_or_file: str | os.PathLike, language: str, filename: str | None = None):
    if isinstance(code_or_file, os.PathLike):
        program = Path(os.path.abspath(code_or_file))
        if not program.is_file():
            raise DetourError(f"no such file: {code_or_file}")
        yield program
        return
    name = Path(filename).name if filename else f"main{suffix_of(language)}"
    if not name or name.startswith("."):
        raise DetourError(f"filename {filename!r} is not a file name")
    with tempfile.TemporaryDirectory(prefix=temp_folders.prefix("code")) as folder:
        program = Path(folder, name)
        program.write_text(code_or_file)
        yield program


class ExecutionReport(BaseModel):
    """AgentDiff's executor result (status, stdout, stderr, exit_code), and `error` when a limit ended the run."""

    status: Literal["success", "error"]
    stdout: str
    stderr: str
    exit_code: int | None
    error: str | None = None

    @classmethod
    def of(cls, result: RunResult) -> ExecutionReport:
        error = f"killed: {result.killed_reason} limit" if result.killed_reason else None
        return cls(status="success" if result.exit_code == 0 else "error", stdout=result.stdout,
                   stderr=result.stderr, exit_code=result.exit_code, error=error)


class Executor:
    """`execute(code) -> dict`, as AgentDiff's executors, but each call runs in a sandbox in
    proxy mode: unmodified code reaches the environment's replicas and nothing else. Files
    stay in the workspace from one call to the next."""

    def __init__(self, client: Client, language: Language, env_id: str, workspace: str | os.PathLike | None,
                 backend: Backend | None, limits: Limits | None) -> None:
        self.client = client
        self.language = language
        self.env_id = env_id
        self.limits = limits
        # A sandbox of its own: what it holds between runs is this executor's alone.
        self.sandbox = open_backend(backend or client.backend, client.state, client.runtime)
        self.argv = stdin_command(language, self.sandbox.runtime)
        self._owns_workspace = workspace is None
        self.workspace = Path(os.path.abspath(workspace)) if workspace else \
            Path(tempfile.mkdtemp(prefix=temp_folders.prefix("workspace")))
        self._held = contextlib.ExitStack()
        self._holding = False
        self.last: RunResult | None = None

    def execute(self, code: str) -> dict[str, Any]:
        """The run's requests and the environment's diff are in `self.last`."""
        if not self._holding:
            self._holding = True
            self._held.enter_context(self.sandbox.hold(self.client.stack.access(
                self.env_id, secret_for(self.client.state, self.env_id))))
        self.last = run_in_environment(self.client.state, self.client.stack, self.env_id, self.sandbox, self.argv,
                                       limits=self.limits, stdin=code.encode(), workspace=self.workspace)
        return ExecutionReport.of(self.last).model_dump(exclude_none=True)

    def close(self) -> None:
        """A workspace the executor made goes with it; one the caller named stays."""
        self._held.close()
        self._holding = False
        if self._owns_workspace:
            shutil.rmtree(self.workspace, ignore_errors=True)

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
