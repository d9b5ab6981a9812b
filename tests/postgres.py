"""A PostgreSQL server of the tests' own: Debian's binaries, a temporary data folder, a Unix
socket only (no TCP port at all), stopped at the end of the session."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.waiting import until

BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
needs_postgres = pytest.mark.skipif(not BINARIES, reason="needs Debian's postgresql (detour doctor --install)")


def _as_postgres(argv: list[str]) -> list[str]:
    """Postgres refuses to run as root."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


class PostgresServer:
    """One server process on a data folder; `restart` ends it as a crash would and starts it again."""

    def __init__(self, data: Path, socket_dir: Path) -> None:
        self.data, self.socket_dir = data, socket_dir
        self.argv = _as_postgres([str(Path(BINARIES[-1]) / "postgres"), "-D", str(data), "-k", str(socket_dir),
                                  "-c", "listen_addresses=", "-c", "fsync=off", "-c", "max_connections=200"])
        self.proc = self._start()

    def _start(self) -> subprocess.Popen:
        proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        until(self._accepts, proc, "postgres did not start")
        return proc

    def _accepts(self) -> bool:
        """Taking connections: its socket appears while it still starts up or recovers its WAL,
        when a connection is refused ("the database system is starting up")."""
        return subprocess.run([str(Path(BINARIES[-1]) / "pg_isready"), "-q", "-h", str(self.socket_dir)]).returncode == 0

    def restart(self) -> None:
        """An immediate shutdown (no checkpoint, clients cut off), recovered from its WAL at start."""
        subprocess.run(_as_postgres([str(Path(BINARIES[-1]) / "pg_ctl"), "stop", "-D", str(self.data), "-m",
                                     "immediate", "-w"]), check=True, capture_output=True)
        self.proc.wait(timeout=60)
        self.proc = self._start()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


@contextmanager
def postgres_server(started: list[PostgresServer] | None = None) -> Iterator[str]:
    """The server's base URL (user postgres, over a socket in a folder of its own, which goes
    with it: not under pytest's folders, which the postgres user could not enter). `started`
    gets the server itself, for a test that restarts it."""
    bin_dir = Path(BINARIES[-1])
    folder = Path(tempfile.mkdtemp(prefix="detour-postgres-"))
    data, socket_dir = folder / "data", folder / "socket"
    socket_dir.mkdir()
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        shutil.chown(socket_dir, "postgres")
    subprocess.run(_as_postgres([str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                                 "--no-sync", "-E", "UTF8"]), check=True, capture_output=True)
    server = None
    try:
        server = PostgresServer(data, socket_dir)
        if started is not None:
            started.append(server)
        yield f"postgresql://postgres@/postgres?host={socket_dir}"
    finally:
        if server:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    """A database of its own for one test, dropped afterwards (with the pools that used it)."""
    import psycopg

    from mock_services.databases.postgres import PostgresDatabase

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = server_url.replace("/postgres?", f"/{name}?")
    try:
        yield url
    finally:
        PostgresDatabase.forget(url)
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


@contextmanager
def store_options(request: pytest.FixtureRequest) -> Iterator[tuple[str, ...]]:
    """`detour serve`'s options for a test's own stack: with DETOUR_TEST_DATABASE=postgres (the
    Makefile's Postgres pass), a fresh database of the session's server, which every detour
    command on the home then uses; else none (SQLite files)."""
    if os.environ.get("DETOUR_TEST_DATABASE") != "postgres":
        yield ()
        return
    with fresh_database(request.getfixturevalue("postgres")) as url:
        yield ("--database", url)
