"""Any language, unmodified: the same small agent (post a message, read it back, try a host that
is not allowed) in Java, Go, Ruby and PHP with their standard HTTP clients, and git itself,
through the proxy. On the namespace and docker backends they trust detour's CA because the
sandbox's own system store holds it (tests/corpus_languages/); on the process backend, only
where a variable can say so (README: Java and PHP are not covered there). The host's store is
the same after every run."""

import hashlib
import os
import tempfile
from pathlib import Path

import pytest

from sandbox.base import SYSTEM_CERTS, Sandbox
from sandbox.host_packages import LANGUAGES as DEBIAN_LANGUAGES
from tests.conftest import BACKENDS

CORPUS = Path(__file__).parents[1] / "corpus_languages"
AGENTS = {"Agent.java": "java", "agent.go": "go", "agent.rb": "ruby", "agent.php": "php"}
PROCESS_COVERS = ("agent.go", "agent.rb")  # Java ignores proxy variables; PHP's curl reads no trust variable
# On docker, Go reads the system store's bundle as Ruby, PHP and git do there (its own `go run`
# compiles net/http from cold in the container, minutes on a busy machine): Java, whose trust
# store docker shows in a place of its own, Ruby and PHP cover the backend.
DOCKER_COVERS = ("Agent.java", "agent.rb", "agent.php")
# The languages image holds what the docker cases run: no Go, and git is in detour/sandbox already.
DEBIAN_PACKAGES = sorted({need.package for need in DEBIAN_LANGUAGES if need.probe not in ("go", "git")})
LANGUAGES_REPOSITORY = "detour-test/languages"


def host_store() -> str:
    """Every entry of the host's store, links by target and files by content."""
    digest = hashlib.sha256()
    for folder, _, names in sorted(os.walk(SYSTEM_CERTS)):
        for name in sorted(names):
            path = Path(folder, name)
            digest.update(str(path).encode() + (os.readlink(path).encode() if path.is_symlink() else path.read_bytes()))
    return digest.hexdigest()


def cases():
    for name in AGENTS:
        for backend in BACKENDS:
            label = backend if isinstance(backend, str) else backend.values[0]
            if name in {"process": PROCESS_COVERS, "docker": DOCKER_COVERS}.get(label, AGENTS):
                yield pytest.param(name, label, id=f"{name}-{label}", marks=getattr(backend, "marks", ()))


@pytest.fixture(scope="module")
def languages_image() -> str:
    """detour/sandbox with Debian's JDK, Ruby and PHP, as a user would add them. Tagged by its
    Dockerfile and the id of the sandbox image under it, and kept by the engine as detour's own
    images are: built once per sandbox image (the apt layer is most of this module's time), not
    once per run; a stale one (another base or Dockerfile) is removed when its successor is built."""
    import docker.errors

    from sandbox.docker import connect_engine
    from sandbox.images.build import IMAGES
    client = connect_engine()
    dockerfile = (f"FROM {IMAGES['sandbox']}\nUSER root\nRUN apt-get update && DEBIAN_FRONTEND=noninteractive "
                  f"apt-get install -y -qq --no-install-recommends {' '.join(DEBIAN_PACKAGES)} "
                  "&& rm -rf /var/lib/apt/lists/*\nUSER agent\n")
    made_of = dockerfile + client.images.get(IMAGES["sandbox"]).id
    tag = f"{LANGUAGES_REPOSITORY}:{hashlib.sha256(made_of.encode()).hexdigest()[:12]}"
    try:
        client.images.get(tag)
        return tag
    except docker.errors.ImageNotFound:
        pass
    with tempfile.TemporaryDirectory() as context:
        Path(context, "Dockerfile").write_text(dockerfile)
        client.images.build(path=context, tag=tag, rm=True)
    for stale in client.images.list(name=LANGUAGES_REPOSITORY):
        if tag not in stale.tags:
            client.images.remove(stale.id, force=True)
    return tag


def sandbox_for(backend: str, request: pytest.FixtureRequest) -> Sandbox | None:
    """The docker backend's in the languages image; the others' as every test has them."""
    if backend != "docker":
        return None
    from sandbox.docker import DockerSandbox
    return DockerSandbox(request.getfixturevalue("live_stack").state, image=request.getfixturevalue("languages_image"))


@pytest.mark.parametrize(("name", "backend"), cases())
def test_each_language_posts_reads_back_and_is_denied_elsewhere(live_stack, request, name, backend):
    before = host_store()
    env = live_stack.env()
    result = live_stack.run(env, (CORPUS / name).read_text(), Path(name).suffix, backend=backend,
                            sandbox=sandbox_for(backend, request))
    assert result.exit_code == 0 and result.stdout.strip() == "posted=true read=true denied=403", result.stderr
    language = AGENTS[name]
    assert [row["message_text"] for row in result.diff.inserts if "message_text" in row] == [f"hello from {language}"]
    assert host_store() == before


@pytest.mark.parametrize("backend", BACKENDS)
def test_git_trusts_the_proxy_through_the_system_store(live_stack, request, backend):
    env = live_stack.env()
    result = live_stack.run(env, (CORPUS / "git_ls_remote.sh").read_text(), ".sh", backend=backend,
                            sandbox=sandbox_for(backend, request))
    assert result.stdout.strip() == "git: tls-ok", result.stdout + result.stderr
    assert [(r.host, r.decision) for r in result.requests][-1] == ("slack.com", "routed")


PINNED = """
import certifi, requests
try:
    requests.get("https://slack.com/api/api.test", verify=certifi.where(), timeout=10)
except requests.exceptions.SSLError:
    print("refused")
"""


def test_a_client_that_does_not_trust_the_ca_is_named_in_the_runs_warnings(live_stack):
    result = live_stack.run(live_stack.env(), PINNED, ".py")
    assert result.stdout == "refused\n", result.stderr
    assert [w for w in result.warnings if "did not trust detour's CA for slack.com" in w], result.warnings
