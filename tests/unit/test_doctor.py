"""`detour doctor` on a machine without a Docker engine: one line that says so and what to do,
not the client library's exception."""

from detour.cli.doctor import docker_leftovers


def test_a_missing_docker_engine_is_one_line_with_a_remedy(monkeypatch, capsys):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    assert docker_leftovers(fix=False) == []
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith("docker backend: unavailable: no Docker engine answers at unix:///nonexistent/docker.sock")
    assert "start dockerd" in line and "DOCKER_HOST" in line
    assert "Error" not in line and "FileNotFoundError" not in line
