"""Shared fixtures: a fresh detour home per test, and one real stack per session.

The real stack is the same one `detour run` starts: uvicorn serving the replicas and
mitmdump with detour's addons, as child processes, torn down at the end.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import settings

# The fuzz tests explore new inputs on every local run; CI replays one fixed seed, so that a
# red CI always means a change broke something, never that the fuzzer got lucky that day.
settings.register_profile("ci", derandomize=True)
# `make fuzz`: the same properties, each for far more examples (DETOUR_FUZZ_EXAMPLES, 20,000).
settings.register_profile("fuzz", max_examples=int(os.environ.get("DETOUR_FUZZ_EXAMPLES", "20000")), deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
if os.environ.get("DETOUR_FUZZ"):
    settings.load_profile("fuzz")

# Each test starts and stops its own stacks: no command of the suite leaves a background
# stack behind (tests/e2e/test_background_stack.py turns it on, and stops what it starts).
os.environ["DETOUR_BACKGROUND"] = "off"

from detour.runner import RunResult, run_in_environment
from detour.stack import Stack, StackInfo
from detour_core.paths import DATABASE_VARIABLE, HOME_VARIABLE, StatePaths
from mock_services.store import EnvironmentStore
from sandbox.base import Limits, Sandbox
from sandbox.languages import command_for
from sandbox.namespace import NamespaceSandbox, requirements_missing
from sandbox.process import ProcessSandbox

NAMESPACE_MISSING = requirements_missing()
needs_namespaces = pytest.mark.skipif(bool(NAMESPACE_MISSING),
                                      reason=f"namespace backend needs {', '.join(NAMESPACE_MISSING)}")


def _docker_missing() -> str | None:
    """Why the docker backend cannot run here, or None. `.ci/run` sets DETOUR_REQUIRE_DOCKER,
    so there a missing engine fails the run instead of skipping."""
    if NAMESPACE_MISSING:
        return f"the docker backend needs {', '.join(NAMESPACE_MISSING)}"
    from sandbox.docker import DockerUnavailable, connect
    try:
        connect().close()
    except DockerUnavailable as e:
        if os.environ.get("DETOUR_REQUIRE_DOCKER"):
            raise
        return f"{e} (start dockerd and run `detour images build`; .ci/run does both)"
    return None


DOCKER_MISSING = _docker_missing()
needs_docker = pytest.mark.skipif(DOCKER_MISSING is not None, reason=f"docker tests skipped: {DOCKER_MISSING}")
BACKENDS = ["process", pytest.param("namespace", marks=needs_namespaces), pytest.param("docker", marks=needs_docker)]
# The backends whose promise is "the only way out is the proxy".
ISOLATING = [pytest.param("namespace", marks=needs_namespaces), pytest.param("docker", marks=needs_docker)]

# Variables this machine pre-sets; tests must show that nothing depends on them.
HOST_TRUST_VARIABLES = ("CURL_CA_BUNDLE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
                        "SSL_CERT_FILE", "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--record-module-seconds", action="store_true",
                     help="write each test module's time to tests/module_seconds.json (make test-timings)")


# One name per `pytest` run, shared by its xdist workers (they inherit it): what the run makes
# once for all its workers (node_clients_image) is named by it and removed by the process that
# named it, after every worker is done.
RUN_VARIABLE = "DETOUR_TEST_RUN"
OWN_RUN = RUN_VARIABLE not in os.environ
os.environ.setdefault(RUN_VARIABLE, os.urandom(6).hex())


def pytest_configure(config: pytest.Config) -> None:
    from tests.module_order import ModuleOrder
    config.pluginmanager.register(ModuleOrder(config.getoption("--record-module-seconds")), "module_order")


def pytest_sessionfinish(session: pytest.Session) -> None:
    if OWN_RUN and node_clients_lock().exists():  # a worker of this run made or looked for the image
        import docker
        import requests

        from sandbox.docker import DockerUnavailable, connect_engine
        tag = node_clients_tag()
        try:
            client = connect_engine()  # the engine's wait, as detour's own runs wait for it
            try:
                client.images.remove(tag, force=True)
            finally:
                client.close()
        except docker.errors.ImageNotFound:
            pass
        except (DockerUnavailable, docker.errors.DockerException, requests.exceptions.RequestException) as e:
            # One line, after the run's own summary: the tests' results stand, the image is left.
            said = f"tests: the image {tag} is left ({e}): docker rmi -f {tag}"
            session.config.add_cleanup(lambda: print(said))
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        finally:
            node_clients_lock().unlink(missing_ok=True)


# What reaches the test database from a unit test: the home (`state`) or the server itself.
DATABASE_FIXTURES = frozenset({"state", "module_state", "postgres", "postgres_url"})
UNIT = Path(__file__).parent / "unit"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the Makefile's Postgres pass, of the unit tests only those whose stores can be in
    Postgres: the rest would run exactly as in the first pass (SQLite files either way). The
    e2e modules it names start stacks on Postgres themselves (tests.postgres.store_options)."""
    if os.environ.get("DETOUR_TEST_DATABASE") != "postgres":
        return
    reach = [item for item in items if not item.path.is_relative_to(UNIT)
             or DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))]
    kept = set(reach)
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = reach


@pytest.fixture(scope="session")
def postgres() -> Iterator[str]:
    """A PostgreSQL server for the session (its base URL)."""
    from tests.postgres import BINARIES, postgres_server
    if not BINARIES:
        pytest.skip("needs Debian's postgresql (detour doctor --install)")
    with postgres_server() as url:
        yield url


@pytest.fixture
def postgres_url(postgres: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh database, which the test's stores use (DETOUR_DATABASE_URL)."""
    from tests.postgres import fresh_database
    with fresh_database(postgres) as url:
        monkeypatch.setenv(DATABASE_VARIABLE, url)
        yield url


@pytest.fixture(autouse=True)
def no_environment_left_bound() -> Iterator[None]:
    """An environment left bound in the test's thread (store.open's contexts left out of order)
    would answer every id drawn later outside a call in that worker, through a state whose call
    has ended: four unrelated REST tests failed with 500s so in a make test run (#52)."""
    yield
    from mock_services import clock
    assert clock._bound.get() is None, "the test left an environment bound (contexts exited out of order?)"


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> StatePaths:
    """A fresh detour home; with DETOUR_TEST_DATABASE=postgres, its environments live in Postgres."""
    home = tmp_path / "detour-home"
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    if os.environ.get("DETOUR_TEST_DATABASE") == "postgres":
        request.getfixturevalue("postgres_url")
    return StatePaths(home).ensure()


@pytest.fixture(scope="module")
def module_state(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[StatePaths]:
    """`state` for a module's tests to share: for what is costly to make and that each test
    copies for itself (an environment forked per test)."""
    home = tmp_path_factory.mktemp("module-home") / "detour-home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        if os.environ.get("DETOUR_TEST_DATABASE") != "postgres":
            yield StatePaths(home).ensure()
            return
        from tests.postgres import fresh_database
        with fresh_database(request.getfixturevalue("postgres")) as url:
            patch.setenv(DATABASE_VARIABLE, url)
            yield StatePaths(home).ensure()


@dataclass
class LiveStack:
    state: StatePaths
    info: StackInfo
    store: EnvironmentStore
    scripts: Path
    cached: dict[str, Sandbox] = field(default_factory=dict)

    def env(self, template: str = "slack_default") -> str:
        return self.store.create(template).env_id

    def sandbox(self, backend: str) -> Sandbox:
        if backend == "docker":
            if "docker" not in self.cached:
                from sandbox.docker import DockerSandbox
                self.cached["docker"] = DockerSandbox(self.state)
            return self.cached["docker"]
        return NamespaceSandbox(self.state) if backend == "namespace" else ProcessSandbox(self.state.runs_dir, state_home=self.state.home)

    def run(self, env_id: str, code: str, suffix: str, limits: Limits | None = None,
            backend: str = "process", mode: str = "proxy", sandbox: Sandbox | None = None) -> RunResult:
        """Run `code` as a program file of the given kind, the way `detour run FILE` does
        (in `sandbox` where given, else in one of `backend`)."""
        program = self.scripts / f"agent_{os.urandom(4).hex()}{suffix}"
        program.write_text(code)
        sandbox = sandbox or self.sandbox(backend)
        return run_in_environment(self.state, self.info, env_id, sandbox,
                                  command_for(program, sandbox.runtime), program=program, limits=limits, mode=mode)


UNREACHED_UPSTREAM = "up.example.test"


@pytest.fixture(scope="session")
def live_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:
    root = tmp_path_factory.mktemp("stack")
    state = StatePaths(root / "home").ensure()
    scripts = root / "scripts"
    scripts.mkdir()
    # A host tests allow as passed through answers on this machine: the proxy never looks it up,
    # so no DNS query leaves it, and nothing listens on its port (the proxy answers 502).
    with Stack(state, upstream_hosts={UNREACHED_UPSTREAM: "127.0.0.1"}) as info:
        yield LiveStack(state, info, EnvironmentStore(state), scripts)


@pytest.fixture
def make_env(live_stack: LiveStack) -> Callable[..., str]:
    return live_stack.env


@pytest.fixture(scope="module")
def api_client(live_stack: LiveStack):
    """detour's Python API over the session's stack."""
    import detour
    with detour.Client(home=live_stack.state.home, stack=live_stack.info) as client:
        yield client


NODE_CLIENTS = Path(__file__).parent / "node_clients" / "node_modules"


def node_clients_tag() -> str:
    return f"detour-test/node-clients:{os.environ[RUN_VARIABLE]}"


def node_clients_lock() -> Path:
    import tempfile
    return Path(tempfile.gettempdir()) / f"detour-test-node-clients-{os.environ[RUN_VARIABLE]}.lock"


@pytest.fixture(scope="session")
def node_clients_image() -> str:
    """detour/sandbox with the official Node clients of tests/node_clients (googleapis,
    box-node-sdk), derived as a user would (`detour images build --npm`) once per run: the first
    worker to need it derives it while the others wait on the lock; pytest_sessionfinish of the
    run's own process removes it."""
    import fcntl

    import docker

    from sandbox.docker import connect_engine
    from sandbox.images.build import derive_image
    tag, client = node_clients_tag(), connect_engine()
    with open(node_clients_lock(), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            client.images.get(tag)
        except docker.errors.ImageNotFound:
            derive_image(client, None, NODE_CLIENTS.parent / "package.json", tag)
    return tag
