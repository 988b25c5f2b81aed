"""Fixtures for the run history: small scorecards, run folders, and a history on each backend.

``history_url`` is parametrised: every store test runs on SQLite in ``tmp_path`` and on a real
PostgreSQL server this file starts for the session (``initdb`` + ``pg_ctl`` into a temporary
folder, on 127.0.0.1 and a free port), one fresh database per test. The PostgreSQL runs skip,
saying why, only when the server's binaries are not installed (see README.md here).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from glob import glob
from pathlib import Path
from typing import Any

import pytest
from history_support import MakeScorecard, WriteRun, scorecard


@pytest.fixture
def make_scorecard() -> MakeScorecard:
    return scorecard


@pytest.fixture
def write_run(tmp_path: Path) -> WriteRun:
    """Write a run folder (scorecard.json, results.jsonl, run.json) under ``tmp_path``."""

    def write(name: str, **fields: Any) -> Path:
        out = tmp_path / "runs" / name
        out.mkdir(parents=True)
        (out / "scorecard.json").write_text(json.dumps(scorecard(**fields), indent=2))
        (out / "results.jsonl").write_text('{"item": "Q1", "attempt": 1}\n')
        (out / "run.json").write_text("{}\n")
        return out

    return write


PG_USER = "ragcard"


# -- a throwaway PostgreSQL server -------------------------------------------------------------


def _pg_bindir() -> Path | None:
    for candidate in sorted(glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "initdb").is_file():
            return Path(candidate)
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class PostgresServer:
    """A running server; :meth:`new_database` gives each test an empty database."""

    port: int
    socket_dir: Path

    def new_database(self) -> str:
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        admin = f"host=127.0.0.1 port={self.port} user={PG_USER} dbname=postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://{PG_USER}@127.0.0.1:{self.port}/{name}"


def _temp_root(as_user: list[str]) -> str:
    """A temporary folder the server's user can write in. As root, the server runs as
    ``postgres``, which cannot enter a private ``TMPDIR`` (``mktemp -d`` makes it 0700): then
    ``/tmp``, then the ``postgres`` user's home."""
    candidates = [tempfile.gettempdir(), "/tmp"]
    if as_user:
        candidates.append(pwd.getpwnam(as_user[2]).pw_dir)
    for candidate in candidates:
        probe = subprocess.run([*as_user, "test", "-w", candidate, "-a", "-x", candidate])
        if probe.returncode == 0:
            return candidate
    pytest.fail(f"no temporary folder the PostgreSQL user can write in: tried {candidates}")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """Start PostgreSQL for the session (as the ``postgres`` user when tests run as root)."""
    bindir = _pg_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    as_user: list[str] = []
    owner = None
    if os.geteuid() == 0:  # initdb refuses to run as root
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run initdb as")
        as_user = ["runuser", "-u", "postgres", "--"]
    base = Path(tempfile.mkdtemp(prefix="ragcard-pg-", dir=_temp_root(as_user)))
    data, sockets = base / "data", base / "sockets"
    sockets.mkdir()
    if owner is not None:
        for path in (base, sockets):
            os.chown(path, owner.pw_uid, owner.pw_gid)

    def run(*args: str) -> None:
        subprocess.run([*as_user, *args], check=True, capture_output=True, timeout=60)

    port = _free_port()
    try:
        run(str(bindir / "initdb"), "-D", str(data), "-U", PG_USER, "-A", "trust",
            "-E", "UTF8", "--no-sync", "--no-instructions")  # fmt: skip
        options = f"-p {port} -k {sockets} -h 127.0.0.1 -F -c max_connections=50"
        run(str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "log"),
            "-w", "-t", "30", "start")  # fmt: skip
    except subprocess.CalledProcessError as error:  # installed but broken: fail, never skip
        log = base / "log"
        detail = (error.stderr or b"").decode(errors="replace")
        detail += log.read_text(errors="replace") if log.is_file() else ""
        shutil.rmtree(base, ignore_errors=True)
        raise RuntimeError(f"could not start PostgreSQL: {detail}") from error
    try:
        yield PostgresServer(port, sockets)
    finally:
        try:
            run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def history_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty history on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ragcard-history.sqlite'}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.new_database()
