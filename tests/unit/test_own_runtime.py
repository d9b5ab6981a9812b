"""Where detour's own sandbox runtime lives: a clone's (built by make) when it is there, else
under the user's data directory, never under $DETOUR_HOME (sandboxes hide that)."""

from pathlib import Path

from sandbox import own_runtime


def test_a_named_folder_wins_then_a_clones_runtime_then_the_data_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("DETOUR_RUNTIME_DIR", str(tmp_path / "rt"))
    assert own_runtime.own_runtime().venv == tmp_path / "rt" / "venv"
    monkeypatch.delenv("DETOUR_RUNTIME_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(own_runtime, "HERE", tmp_path / "clone")
    found = own_runtime.own_runtime()
    assert (found.venv, found.node_modules) == (tmp_path / "data" / "detour-runtime" / "venv",
                                                tmp_path / "data" / "detour-runtime" / "node_packages" / "node_modules")
    assert not found.ready()
    made = tmp_path / "clone" / "runtime" / "venv"
    made.mkdir(parents=True)
    (made / own_runtime.STAMP).touch()  # what make writes last
    assert own_runtime.own_runtime().venv == made and own_runtime.own_runtime().ready()


def test_a_failed_step_names_itself(monkeypatch, tmp_path):
    monkeypatch.setattr(own_runtime, "REQUIREMENTS", Path(tmp_path / "missing.txt"))
    runtime = own_runtime.OwnRuntime(tmp_path / "rt" / "venv", tmp_path / "rt" / "node_packages" / "node_modules")
    steps: list[str] = []
    try:
        own_runtime.build(runtime, steps.append)
    except own_runtime.RuntimeBuildError as e:
        assert "pip install failed" in str(e) and "missing.txt" in str(e)
    else:
        raise AssertionError("a build from a missing requirements file succeeded")
    assert steps[0].startswith("making a venv") and not runtime.ready()
