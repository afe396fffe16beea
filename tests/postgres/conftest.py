"""A throwaway PostgreSQL server for the tests that prove the service's PostgreSQL path.

One cluster per run (initdb + pg_ctl from Debian's `postgresql` package, in a temp dir, on a free port of
127.0.0.1, trust auth, fsync off), one migrated and seeded template database, and for each test a fresh
database copied from it (`CREATE DATABASE ... TEMPLATE`, a file copy inside the server: about as fast as the
SQLite template copy). PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user
the package creates.

Inside tests/postgres, `service_config` points at that database, so every shared fixture of tests/conftest.py
built on it (`service_app`, `api_client`, `auth_headers`, `token_for`, `live_service`, `live_token_for`)
talks to PostgreSQL.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

MISSING = (
    "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: run make test (it installs "
    "postgresql) or `sudo apt-get install postgresql`."
)
TEMPLATE_DB = "cfe_template"
SUPERUSER = "postgres"


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/postgres/" in str(item.fspath):
            item.add_marker(pytest.mark.postgres)


def _server_bin_dir() -> Path:
    """The newest installed server's bin dir (/usr/lib/postgresql/<version>/bin)."""
    found = [
        Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb") if Path(p).with_name("pg_ctl").exists()
    ]
    if not found:
        pytest.fail(MISSING)
    return max(found, key=lambda bin_dir: int(bin_dir.parent.name) if bin_dir.parent.name.isdigit() else 0)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass(frozen=True)
class PostgresServer:
    port: int
    bin_dir: Path
    data_dir: Path

    def url(self, database: str) -> str:
        """The SQLAlchemy URL the service is configured with."""
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def admin(self) -> psycopg.Connection:
        """An autocommit connection to the maintenance database (CREATE/DROP DATABASE)."""
        return psycopg.connect(host="127.0.0.1", port=self.port, user=SUPERUSER, dbname="postgres", autocommit=True)

    def connect(self, database: str, **kwargs) -> psycopg.Connection:
        return psycopg.connect(host="127.0.0.1", port=self.port, user=SUPERUSER, dbname=database, **kwargs)


def _run_as_owner(command: list[str], owner: str | None) -> subprocess.CompletedProcess:
    if owner is not None:
        command = ["runuser", "-u", owner, "--", *command]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def _start(bin_dir: Path, data_dir: Path, base: Path, log: Path, owner: str | None) -> int:
    """Start the server on a free port (tried again if another process took the port first); the port."""
    for attempt in range(3):
        port = _free_port()
        options = (
            f"-c port={port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={base} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        try:
            _run_as_owner(
                [
                    str(bin_dir / "pg_ctl"),
                    "-D",
                    str(data_dir),
                    "-l",
                    str(log),
                    "-o",
                    options,
                    "-w",
                    "-t",
                    "60",
                    "start",
                ],
                owner,
            )
            return port
        except RuntimeError as exc:
            if attempt == 2:
                raise RuntimeError(f"{exc}\n{log.read_text(errors='replace') if log.exists() else ''}") from exc
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster of its own, started for the run and removed after it."""
    bin_dir = _server_bin_dir()
    owner = None
    if os.geteuid() == 0:
        try:
            account = pwd.getpwnam("postgres")
        except KeyError:
            pytest.fail("Running as root, and there is no `postgres` user to run the server as: " + MISSING)
        owner = "postgres"
    # Not under pytest's basetemp (its parents are private to root, and the server must reach its files), and in
    # memory where there is /dev/shm: on disk each CREATE DATABASE costs about 0.7 s even with fsync off.
    shm = Path("/dev/shm")
    base = Path(tempfile.mkdtemp(prefix="cfe-pg-", dir=shm if shm.is_dir() and os.access(shm, os.W_OK) else None))
    if owner is not None:
        os.chown(base, account.pw_uid, account.pw_gid)
    data_dir, log = base / "data", base / "server.log"
    try:
        _run_as_owner(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(data_dir),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ],
            owner,
        )
        port = _start(bin_dir, data_dir, base, log, owner)
    except BaseException:
        shutil.rmtree(base, ignore_errors=True)
        raise
    server = PostgresServer(port, bin_dir, data_dir)
    try:
        yield server
    finally:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            _run_as_owner([str(bin_dir / "pg_ctl"), "-D", str(data_dir), "-m", "immediate", "-w", "stop"], owner)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_template(postgres_server: PostgresServer, _isolated_environment) -> str:
    """The name of a database migrated to `heads` and seeded with the demo data, copied for each test."""
    from portal.service import create_app
    from portal.service.migrations import upgrade
    from portal.service.seed import seed_demo

    with postgres_server.admin() as admin:
        admin.execute(f"CREATE DATABASE {TEMPLATE_DB}")
    url = postgres_server.url(TEMPLATE_DB)
    upgrade(url)
    app = create_app({"DATABASE_URL": url})
    with app.app_context():
        list(seed_demo())
    # CREATE DATABASE ... TEMPLATE needs the template to have no open connections.
    app.extensions["db_engine"].dispose()
    return TEMPLATE_DB


_database_numbers = itertools.count(1)


def create_database(server: PostgresServer, template: str | None = None) -> str:
    name = f"test_{next(_database_numbers)}"
    with server.admin() as admin:
        admin.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
    return name


def drop_database(server: PostgresServer, name: str) -> None:
    with server.admin() as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def pg_database(postgres_server: PostgresServer, pg_template: str) -> Iterator[str]:
    """A fresh migrated, seeded database for this test (its name); dropped afterwards."""
    name = create_database(postgres_server, pg_template)
    yield name
    drop_database(postgres_server, name)


@pytest.fixture
def empty_pg_database(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh database with no tables at all (for the migration tests)."""
    name = create_database(postgres_server)
    yield name
    drop_database(postgres_server, name)


@pytest.fixture
def pg_url(postgres_server: PostgresServer, pg_database: str) -> str:
    return postgres_server.url(pg_database)


@pytest.fixture
def service_config(pg_url: str) -> dict:
    """Overrides tests/conftest.py's: the service fixtures built on it use this test's PostgreSQL database."""
    return {"DATABASE_URL": pg_url, "TESTING": True}


@pytest.fixture
def pg_service_app(service_app):
    """`create_app({"DATABASE_URL": <this test's PostgreSQL database>, "TESTING": True})`: the same app as
    `service_app` (and so as `api_client`, `auth_headers`, `token_for`) inside tests/postgres."""
    assert service_app.extensions["db_engine"].dialect.name == "postgresql"
    return service_app
