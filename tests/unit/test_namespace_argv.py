"""What the namespace backend asks bubblewrap for, without running it."""

from pathlib import Path

from sandbox.base import SandboxSpec, TrustFiles
from sandbox.namespace import HOME, bwrap_argv, stage_copies
from sandbox.netns import SandboxNetwork
from sandbox.runtimes import Runtime


def binds(argv: list[str]) -> dict[str, str]:
    """inside -> host, for every read-only bind."""
    return {argv[i + 2]: argv[i + 1] for i, word in enumerate(argv) if word == "--ro-bind"}


def argv_for(tmp_path: Path, files: list[Path], program: Path | None = None) -> list[str]:
    trust = TrustFiles(cert=tmp_path / "c.pem", bundle=tmp_path / "b.pem", wgetrc=tmp_path / "w")
    spec = SandboxSpec(argv=["python3", *map(str, files)], proxy=None, trust=trust, files=files, program=program)
    runtime = Runtime(python=Path("/usr/bin/python3"), node=Path("/usr/bin/node"), preludes=tmp_path / "p")
    staging = tmp_path / "staging"
    staging.mkdir(exist_ok=True)
    return bwrap_argv(spec, runtime, SandboxNetwork("abcd1234", 7), {}, stage_copies(spec, staging), tmp_path / "home")


def test_open_folders_are_shown_where_they_are(tmp_path):
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "a.py").write_text("print(1)")
    tmp_path.chmod(0o755)
    shown = binds(argv_for(tmp_path, [agents / "a.py"]))
    assert shown[str(agents)] == str(agents)                   # under /tmp (masked), so revealed
    assert "/" not in shown and "/run" not in shown               # never the whole root, never /run


def test_a_file_in_a_0700_folder_is_shown_alone_as_a_readable_copy(tmp_path):
    private = tmp_path / "x"
    private.mkdir(mode=0o700)
    (private / "agent.py").write_text("print(1)")
    (private / "agent.py").chmod(0o600)
    (private / "secret.txt").write_text("no")
    argv = argv_for(tmp_path, [private / "agent.py"])
    shown = binds(argv)
    copy = Path(shown[str(private / "agent.py")])
    assert copy != private / "agent.py" and copy.read_text() == "print(1)" and copy.stat().st_mode & 0o004
    assert str(private) not in shown and str(private / "secret.txt") not in shown


def test_the_program_always_arrives_as_a_copy_in_the_work_directory(tmp_path):
    program = tmp_path / "agent.sh"
    program.write_text("echo hi")
    program.chmod(0o700)
    shown = binds(argv_for(tmp_path, [], program=program))
    copy = Path(shown[str(HOME / "agent.sh")])
    assert copy.read_text() == "echo hi" and copy.stat().st_mode & 0o005 == 0o005
