"""What the namespace backend asks bubblewrap for, without running it."""


from sandbox.base import SandboxSpec, TrustFiles
from sandbox.namespace import bwrap_argv
from sandbox.netns import SandboxNetwork


def binds(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, word in enumerate(argv) if word == "--ro-bind"]


def test_named_folders_are_revealed_but_never_detours_state(tmp_path):
    state_home = tmp_path / "home"
    agent_dir, secret_dir = tmp_path / "agents", state_home / "ca"
    trust = TrustFiles(cert=tmp_path / "c.pem", bundle=tmp_path / "b.pem", wgetrc=tmp_path / "w")
    spec = SandboxSpec(argv=["python3", str(agent_dir / "a.py")], proxy=None, trust=trust,
                       files=[agent_dir, secret_dir, state_home])
    argv = bwrap_argv(spec, SandboxNetwork("abcd1234", 7), {}, state_home)
    assert str(agent_dir) in binds(argv)                       # under /tmp, so revealed
    assert not any(b.startswith(str(state_home)) for b in binds(argv))
    assert "/" not in binds(argv) and "/run" not in binds(argv)  # never the whole root, never /run
