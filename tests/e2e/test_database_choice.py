"""A home's database survives bad configuration: `detour serve --database URL` records the URL
only once it answers, its check ends on Ctrl-C with one line, and a home whose recorded
database does not answer says so in one line, naming the way back.

A database that never answers is a Unix socket of the test's own that accepts and stays silent
(the way a firewalled host or a stopped VM behaves); one that went away is a real PostgreSQL
server the test starts and stops."""

import os
import signal
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.test_cli import DETOUR, detour
from tests.postgres import needs_postgres, postgres_server

WAY_BACK = "start that database, or go back to this home's SQLite files with `detour serve --database sqlite`"


@contextmanager
def silent_database() -> Iterator[tuple[str, threading.Event]]:
    """A postgresql:// URL whose server accepts connections and never says a word; the event is
    set once a client has connected."""
    folder = Path(tempfile.mkdtemp(prefix="detour-silent-"))
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(folder / ".s.PGSQL.5432"))
    listener.listen(16)
    connected, held = threading.Event(), []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return  # closed: the test is over
            connected.set()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"postgresql://detour@/detour?host={folder}", connected
    finally:
        listener.close()
        for conn in held:
            conn.close()
        (folder / ".s.PGSQL.5432").unlink()
        folder.rmdir()


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.delenv("DETOUR_DATABASE_URL", raising=False)
    return tmp_path / "home"


def as_at_a_terminal() -> None:
    """Ctrl-C as a shell's foreground job gets it: a test worker may run with SIGINT ignored
    (pytest-xdist's workers leave Ctrl-C to the controller), which a child would inherit."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_serve_records_a_database_only_once_it_answers_and_its_check_ends_on_ctrl_c(home):
    with silent_database() as (url, connected):
        serve = subprocess.Popen([DETOUR, "serve", "--database", url], env=os.environ | {"DETOUR_HOME": str(home)},
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=as_at_a_terminal)
        try:
            assert connected.wait(timeout=60), "detour serve never tried the database"
            assert not (home / "database.url").exists()  # checking: nothing recorded yet
            serve.send_signal(signal.SIGINT)
            _, stderr = serve.communicate(timeout=60)
        finally:
            serve.kill()
            serve.wait()
        assert stderr == "detour: database check interrupted: nothing recorded, this home keeps its SQLite files\n"
        assert serve.returncode == 130
        waited = detour(home, "serve", "--database", url, check=False)
        assert (waited.returncode, waited.stderr) == (2, f"detour: cannot use the database {url}: it did not answer "
                                                         "within 5 s; nothing recorded, this home keeps its SQLite files\n")
        assert not (home / "database.url").exists()
        assert detour(home, "env", "list").returncode == 0


@needs_postgres
def test_a_home_whose_database_is_gone_says_so_in_one_line(home):
    file = home / "database.url"
    with postgres_server() as url:
        home.mkdir()
        file.write_text(url)  # as `detour serve --database` records it
        detour(home, "env", "create")  # the database answers: the home works
        with silent_database() as (silent, _):
            refused = detour(home, "serve", "--database", silent, check=False)
            assert refused.returncode == 2 and refused.stderr.endswith(f"; nothing recorded, this home keeps {url}\n")
            assert file.read_text() == url  # the database that works stays chosen
    gone = detour(home, "env", "list", check=False)
    assert gone.returncode == 2 and gone.stdout == "" and gone.stderr.count("\n") == 1, gone.stderr
    assert gone.stderr.startswith(f"detour: cannot use the database {url}: connection is bad: ")
    assert gone.stderr.endswith(f"This home recorded it in {file}: {WAY_BACK} (or by removing that file)\n")
    with silent_database() as (silent, _):
        file.write_text(silent)
        hung = detour(home, "env", "list", check=False)
    assert (hung.returncode, hung.stderr) == (
        2, f"detour: cannot use the database {silent}: it did not answer within 5 s. This home recorded it in "
           f"{file}: {WAY_BACK} (or by removing that file)\n")
    file.unlink()  # the way back the message names
    assert detour(home, "env", "list").stdout == ""
