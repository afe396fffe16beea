"""Database access: one engine per app, a session per request, and write transactions that lock early.

SQLite is the default (WAL, foreign keys on, `BEGIN IMMEDIATE` for writes so two writers queue instead of
failing with "database is locked" halfway through). PostgreSQL works by URL
(`postgresql+psycopg://...`); there a plain transaction is enough and counters use row locks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime

from flask import Flask, current_app, g
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.pool import NullPool


class Base(DeclarativeBase):
    """The declarative base of every service table."""


def utcnow() -> datetime:
    return datetime.now(UTC)


def make_engine(url: str) -> Engine:
    """An engine configured for the backend the URL names."""
    if url.startswith("sqlite"):
        # No pool: a SQLite connection costs ~0.1 ms to open, and a pool would make a request that holds its
        # read session while it waits for a write session compete for a fixed number of connections.
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, poolclass=NullPool)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):  # pragma: no cover - exercised by every test
            # pysqlite's own transaction handling would BEGIN lazily (deferred); we issue BEGIN ourselves.
            dbapi_conn.isolation_level = None
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn):  # pragma: no cover - exercised by every test
            mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
            conn.exec_driver_sql(f"BEGIN {mode}")

        return engine
    # No cap on connections beyond the pool's 10 kept open: a request holds its read session while it opens a
    # write transaction, so with a capped pool every connection can end up held by a reader waiting for a
    # writer (64 concurrent issuers did: "QueuePool limit ... timed out" after 30 s, then 500s). The server's
    # threads bound the connections instead, two per request at most; size max_connections for that.
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=-1)


def init_app(app: Flask) -> None:
    engine = make_engine(app.config["DATABASE_URL"])
    app.extensions["db_engine"] = engine
    app.extensions["db_sessionmaker"] = sessionmaker(bind=engine, expire_on_commit=False)
    # Writers that read first (counters, idempotency keys) take SQLite's write lock at BEGIN.
    write_engine = engine.execution_options(sqlite_begin="IMMEDIATE")
    app.extensions["db_write_sessionmaker"] = sessionmaker(bind=write_engine, expire_on_commit=False)

    @app.teardown_appcontext
    def _close_session(_exc):
        session = g.pop("db_session", None)
        if session is not None:
            session.close()


@contextlib.contextmanager
def command_context(app: Flask) -> Iterator[None]:
    """The app context of an operator command; its database connections are closed when it ends (a pooled
    PostgreSQL connection would otherwise outlive it, unclosed, in whoever ran the command in-process)."""
    try:
        with app.app_context():
            yield
    finally:
        app.extensions["db_engine"].dispose()


def session() -> Session:
    """The request's session (created on first use, closed at teardown)."""
    if "db_session" not in g:
        g.db_session = current_app.extensions["db_sessionmaker"]()
    return g.db_session


def new_session() -> Session:
    """A session outside the request's, for work that must commit on its own."""
    return current_app.extensions["db_sessionmaker"]()


@contextlib.contextmanager
def write_transaction() -> Iterator[Session]:
    """A session whose transaction holds the write lock from its first statement; commit on success.

    Use it for anything that reads and then writes (numbering, idempotency keys): with a deferred BEGIN two
    SQLite writers would read the same counter and one would fail late with "database is locked". On
    PostgreSQL the option is ignored and row locks (`SELECT ... FOR UPDATE`) do the same job.
    """
    db = current_app.extensions["db_write_sessionmaker"]()
    try:
        yield db
        db.commit()
        # The request's own session may hold an older read snapshot (WAL): end it so the request sees its write.
        if "db_session" in g and g.db_session.in_transaction():
            g.db_session.rollback()
    except BaseException:
        db.rollback()
        raise
    finally:
        db.close()
