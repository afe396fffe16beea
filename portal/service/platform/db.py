"""Database access: one engine per app, a session per request, and write transactions that lock early.

SQLite is the default (WAL, foreign keys on, `BEGIN IMMEDIATE` for writes so two writers queue instead of
failing with "database is locked" halfway through). PostgreSQL works by URL
(`postgresql+psycopg://...`); there a plain transaction is enough and counters use row locks.

Connections are pooled on both: opening a SQLite connection is cheap, but closing the last one of a WAL
database checkpoints (about 5 ms), which NullPool paid on every request. Commits are durable
(`synchronous=FULL`: a receipt acknowledged survives a power loss).

A write waits a bounded time for the lock (`CFE_WRITE_LOCK_TIMEOUT_SECONDS`, default 2) and then answers 503
`base_de_datos_ocupada` with `Retry-After`. While the lock is known to be held that long, later writes of
this process wait only 0.1 s and answer 503, so waiting writers never take every server
thread and `/healthz` and reads keep answering (WAL readers never wait for writers).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any, TypeVar

from flask import Flask, current_app, g
from sqlalchemy import Table, create_engine, event, insert, inspect
from sqlalchemy.engine import Connection, CursorResult, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Session, make_transient_to_detached, sessionmaker
from sqlalchemy.sql import ClauseElement, Executable

from portal.service.platform.errors import ApiError, error_response
from portal.service.platform.groupcommit import CONNECTION, Claim, GroupCommit
from portal.service.platform.i18n import _

log = logging.getLogger("portal.service")
T = TypeVar("T")

DEFAULT_LOCK_TIMEOUT = 2.0
# Once the lock was seen held past the whole wait, later writers wait only this long (the lock may be free again).
SHORT_WAIT = 0.1
# SQLite's and PostgreSQL's ways of saying "someone else holds the lock" (lock_timeout, deadlock victim).
_BUSY_MARKERS = (
    "database is locked",
    "database is busy",
    "lock timeout",
    "lock_timeout",
    "deadlock detected",
    "could not obtain lock",
    "canceling statement due to lock timeout",
)


class DatabaseBusy(ApiError):
    """503: the write lock was not free within the bounded wait; the caller may retry after a moment."""

    status, code = 503, "base_de_datos_ocupada"

    def __init__(self, retry_after: int = 1):
        super().__init__(
            _("La base de datos está ocupada; reintentá en unos segundos."), headers={"Retry-After": str(retry_after)}
        )


def retry_after_seconds(lock_timeout: float) -> int:
    """The Retry-After of a DatabaseBusy: about as long as a writer waits for the lock, at least a second."""
    return max(1, round(lock_timeout))


def is_busy_error(exc: BaseException) -> bool:
    """Whether `exc` means the lock was held by someone else too long (not a bug, not bad input)."""
    return isinstance(exc, OperationalError) and any(m in str(exc.orig).lower() for m in _BUSY_MARKERS)


class Base(DeclarativeBase):
    """The declarative base of every service table."""


def utcnow() -> datetime:
    return datetime.now(UTC)


class WriteGate:
    """Whether this process last saw the write lock held past the bounded wait (then writers do not queue)."""

    def __init__(self) -> None:
        self.held_since: float | None = None

    def note(self, busy: bool) -> None:
        self.held_since = time.monotonic() if busy else None


class WriterTurns:
    """Writers of every process on one SQLite file take turns in the kernel's queue before `BEGIN IMMEDIATE`.

    SQLite's own wait for its write lock is a busy handler that sleeps and retries (1, 2, 5 ... up to 100 ms): a
    second process seldom finds the lock free between the first one's back-to-back group commits, so with two
    service processes throughput did not rise and writers hit the bounded wait (docs/PERFORMANCE.md). An
    exclusive `flock` on `<database>-writer.lock` is granted by the kernel the moment its holder lets go, and the
    kernel drops it when the holder dies (kill -9 included), so no process can leave it held. SQLite's own lock
    stays the guarantee; this only orders those who wait. Writers that do not take a turn (a `sqlite3` shell)
    are still waited for by `BEGIN IMMEDIATE`'s busy timeout.

    `flock` has no timeout, so a contended wait happens in a helper thread the writer waits for at most the
    bounded time; a helper that gets the lock after its writer gave up lets it go at once.
    """

    def __init__(self, database_path: str, lock_timeout: float, gate: WriteGate):
        self._path = f"{database_path}-writer.lock"
        self._lock_timeout = lock_timeout
        self._gate = gate
        self._in_process = threading.Lock()  # one turn per process at a time: the others queue here, cheaply

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Holds this process's turn to write; DatabaseBusy if it did not come within the bounded wait."""
        wait = self._lock_timeout if self._gate.held_since is None else SHORT_WAIT
        started = time.monotonic()
        if not self._in_process.acquire(timeout=wait):
            self._gate.note(busy=True)
            raise DatabaseBusy(retry_after_seconds(self._lock_timeout))
        try:
            descriptor = self._take(wait - (time.monotonic() - started))
            try:
                yield
            finally:
                os.close(descriptor)  # lets the next process in
        finally:
            self._in_process.release()

    def _take(self, wait: float) -> int:
        # A descriptor of its own per turn: flock belongs to the open file, so a helper still waiting on an
        # abandoned turn's descriptor can never share a later turn's lock.
        descriptor = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return descriptor
        except BlockingIOError:
            pass
        except BaseException:
            os.close(descriptor)
            raise
        granted, given_up, decided = threading.Event(), False, threading.Lock()

        def wait_in_kernel() -> None:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            with decided:
                if given_up:
                    os.close(descriptor)
                else:
                    granted.set()

        threading.Thread(target=wait_in_kernel, name="sqlite-writer-turn", daemon=True).start()
        if not granted.wait(max(wait, 0.0)):
            with decided:
                if not granted.is_set():
                    given_up = True
        if given_up:
            self._gate.note(busy=True)
            raise DatabaseBusy(retry_after_seconds(self._lock_timeout))
        return descriptor


def make_engine(url: str, lock_timeout: float = DEFAULT_LOCK_TIMEOUT, gate: WriteGate | None = None) -> Engine:
    """An engine configured for the backend the URL names; writes wait at most `lock_timeout` for the lock."""
    gate = gate or WriteGate()
    wait_ms = int(lock_timeout * 1000)
    if url.startswith("sqlite"):
        # A pool, unbounded: a request may hold its read session while it waits for a write session, so a cap
        # could leave every connection held by a reader waiting for a writer. Connections stay open, so no
        # request pays the WAL checkpoint that closing the last one costs.
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": lock_timeout}, pool_size=8, max_overflow=-1
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):  # pragma: no cover - exercised by every test
            # pysqlite's own transaction handling would BEGIN lazily (deferred); we issue BEGIN ourselves.
            dbapi_conn.isolation_level = None
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")  # WAL + NORMAL could lose the last commits on power loss
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={wait_ms}")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn):  # pragma: no cover - exercised by every test
            if not conn.get_execution_options().get("writer"):
                conn.exec_driver_sql("BEGIN")
                return
            patient = gate.held_since is None
            try:
                if patient:
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                else:  # the lock was held past the wait a moment ago: barely wait, do not queue every thread
                    conn.exec_driver_sql(f"PRAGMA busy_timeout={int(SHORT_WAIT * 1000)}")
                    try:
                        conn.exec_driver_sql("BEGIN IMMEDIATE")
                    finally:
                        conn.exec_driver_sql(f"PRAGMA busy_timeout={wait_ms}")
            except OperationalError as exc:
                if is_busy_error(exc):
                    gate.note(busy=True)
                raise
            gate.note(busy=False)

        return engine
    # No cap on connections beyond the pool's 10 kept open: a request holds its read session while it opens a
    # write transaction, so with a capped pool every connection can end up held by a reader waiting for a
    # writer (64 concurrent issuers did: "QueuePool limit ... timed out" after 30 s, then 500s). The server's
    # threads bound the connections instead, two per request at most; size max_connections for that.
    engine = create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=-1)

    @event.listens_for(engine, "begin")
    def _postgres_lock_timeout(conn):
        if conn.get_execution_options().get("writer"):
            conn.exec_driver_sql(f"SET LOCAL lock_timeout = {wait_ms}")

    return engine


def writer_turns(
    engine: Engine, lock_timeout: float, gate: WriteGate
) -> Callable[[], contextlib.AbstractContextManager]:
    """What a write transaction holds around itself: a turn among every process's writers on a SQLite file,
    nothing on PostgreSQL (its row locks queue writers already) or on an in-memory database (one process)."""
    database = engine.url.database
    if engine.url.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return contextlib.nullcontext
    return WriterTurns(os.path.abspath(database), lock_timeout, gate).turn


def init_app(app: Flask) -> None:
    lock_timeout = float(app.config.get("WRITE_LOCK_TIMEOUT_SECONDS", DEFAULT_LOCK_TIMEOUT))
    gate = WriteGate()
    engine = make_engine(app.config["DATABASE_URL"], lock_timeout, gate)
    app.extensions["db_engine"] = engine
    app.extensions["db_writer_turn"] = turn = writer_turns(engine, lock_timeout, gate)
    app.extensions["db_sessionmaker"] = sessionmaker(bind=engine, expire_on_commit=False)
    # Writers that read first (counters, idempotency keys) take SQLite's write lock at BEGIN.
    app.extensions["db_write_sessionmaker"] = sessionmaker(
        bind=engine.execution_options(writer=True), expire_on_commit=False
    )
    app.extensions["db_retry_after"] = retry_after = retry_after_seconds(lock_timeout)

    def _batch_failure(exc: BaseException) -> BaseException:
        return DatabaseBusy(retry_after) if is_busy_error(exc) else exc

    app.extensions["db_group_commit"] = GroupCommit(app.extensions["db_write_sessionmaker"], turn, _batch_failure)

    @app.teardown_appcontext
    def _close_session(_exc):
        session = g.pop("db_session", None)
        if session is not None:
            session.close()

    @app.errorhandler(OperationalError)
    def _database_error(exc: OperationalError):
        # A write outside write_transaction() (a plain session commit) that met a held lock: the same 503.
        if is_busy_error(exc):
            busy = DatabaseBusy(app.extensions["db_retry_after"])
            return error_response(busy.code, busy.message, busy.status, headers=busy.headers)
        log.exception("database error request_id=%s", g.get("request_id"))
        return error_response(
            "internal_error", "Error interno del servicio. Pasale a soporte el código de solicitud.", 500
        )


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
        # The turn ends after the COMMIT or ROLLBACK, when SQLite's lock is free for the next process.
        with current_app.extensions["db_writer_turn"]():
            try:
                yield db
                db.commit()
            except BaseException:
                db.rollback()
                raise
    except OperationalError as exc:
        if is_busy_error(exc):
            raise DatabaseBusy(current_app.extensions["db_retry_after"]) from exc
        raise
    finally:
        db.close()
    # The request's own session may hold an older read snapshot (WAL): end it so the request sees its write.
    if "db_session" in g and g.db_session.in_transaction():
        g.db_session.rollback()


def flush_unless_taken(session: Session, taken: Exception) -> None:
    """Flush what `session` added or changed; if a unique index refuses it, raise `taken`, the answer the caller's
    own check gives. On PostgreSQL two requests at once can both find a code free before either writes it (READ
    COMMITTED): the index refuses the second, which must hear "taken" (409), not a server error."""
    try:
        session.flush()
    except IntegrityError:
        raise taken from None


# What insert_loaded needs of a mapped class, worked out once: its table's INSERT and its columns.
_INSERTS: dict[type, tuple] = {}


def connection_of(session: Session) -> Connection:
    """The connection of `session`'s transaction: the one its batch began with (group commit), else
    `session.connection()`. Statements the hot path runs on it skip the ORM's look-up of the connection."""
    connection = session.info.get(CONNECTION)
    return connection if connection is not None else session.connection()


def column_rows(session: Session, statement: Executable, params: dict[str, Any]) -> Any:
    """A SELECT of columns (not of mapped objects) run on `session`'s connection: the same rows, without the
    ORM's per-statement work (about 27 us a statement on SQLite, a third of a receipt answer's reads). Through the
    session when it holds changes not flushed yet, which the ORM would flush before reading."""
    if session.new or session.dirty or session.deleted:
        return session.execute(statement, params)
    return connection_of(session).execute(statement, params)


def _insert_plan(cls: type) -> tuple[Any, ...]:
    mapper: Any = inspect(cls)
    columns = tuple(
        (prop.key, prop.columns[0].key, prop.columns[0].default is not None) for prop in mapper.column_attrs
    )
    return insert(mapper.local_table), columns


def insert_if_absent(session: Session, target: Any, values: dict[str, Any]) -> None:
    """INSERT ... ON CONFLICT DO NOTHING of one row into `target` (a model or a Table), in the session's dialect:
    two transactions that create the same row at once (PostgreSQL) store it once, and the second goes on."""
    from sqlalchemy.dialects.postgresql import insert as postgresql_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    dialect_insert = postgresql_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    session.execute(dialect_insert(target).values(**values).on_conflict_do_nothing())


def insert_loaded(session: Session, *objects: Base) -> None:
    """INSERT new objects with a Core statement each and attach them to `session` as if just loaded: for rows
    written once and read back in the same transaction, cheaper than the unit of work's flush. Every column is
    stored as set on the object (an unset one as NULL); a column with a Python-side default must be set, since
    it is not applied here."""
    connection = connection_of(session)
    for obj in objects:
        plan = _INSERTS.get(type(obj))
        if plan is None:
            plan = _INSERTS[type(obj)] = _insert_plan(type(obj))
        statement, columns = plan
        state, values = obj.__dict__, {}
        for key, column, has_default in columns:
            if key not in state:
                if has_default:
                    raise ValueError(f"{type(obj).__name__}.{key} has a default: set it explicitly")
                setattr(obj, key, None)
            values[column] = state[key]
        connection.execute(statement, values)
        make_transient_to_detached(obj)
        session.add(obj)


def rows_affected(session: Session, statement: Executable) -> int:
    """Run an UPDATE or DELETE in `session` and return how many rows it touched (SQLAlchemy types execute's
    result as a Result, whose cursor subclass alone has rowcount)."""
    result = session.execute(statement)
    assert isinstance(result, CursorResult)  # a DML statement without RETURNING answers with a cursor result
    return result.rowcount


def grouped_write(work: Callable[[Session], T], claim: Claim | None = None) -> T:
    """`work(session)` inside a write transaction shared with the writes arriving at the same time (one
    durable commit for all; see portal/service/platform/groupcommit.py); run again if another request of its batch
    fails, so it must write only through `session`. Returns once committed; raises work's own exception (its
    changes undone) or DatabaseBusy.

    `work` must use only the session it is given (not `session()`, the request's), and finish what it needs
    from the database inside: the objects it returns are detached afterwards. `claim` names the rows `work`
    will lock, so that no two processes' batches wait for each other (groupcommit.Claim).
    """
    result = current_app.extensions["db_group_commit"].run(work, claim)
    # The request's own session may hold an older read snapshot (WAL): end it so the request sees its write.
    if "db_session" in g and g.db_session.in_transaction():
        g.db_session.rollback()
    return result


class Prepared:
    """A Core statement compiled once per dialect and run straight on the DBAPI cursor of a transaction's
    connection: the SQL text, the order of its parameters and the columns' own bind and result processing
    (JSON, dates, UTC datetimes: the values stored and read are exactly the Core statement's), without the
    Connection.execute machinery each statement pays (the issuing path runs eight of them per receipt).

    Runs inside whatever transaction the connection is in (a group commit's, a savepoint of it): nothing here
    begins or ends one."""

    def __init__(self, statement: ClauseElement, column_keys: list[str] | None = None):
        self._statement = statement
        self._column_keys = column_keys  # an INSERT's columns (its bind parameters are named after them)
        self._plans: dict[str, tuple[str, tuple[tuple[str, Any], ...], bool, tuple[Any, ...]]] = {}
        self._lock = threading.Lock()

    def _plan(self, dialect: Any) -> tuple[str, tuple[tuple[str, Any], ...], bool, tuple[Any, ...]]:
        plan = self._plans.get(dialect.name)
        if plan is None:
            compiled: Any = self._statement.compile(dialect=dialect, column_keys=self._column_keys)
            names = compiled.positiontup if dialect.positional else tuple(compiled.binds)
            binds = tuple((name, compiled.binds[name].type._cached_bind_processor(dialect)) for name in names)
            results = tuple(column[3]._cached_result_processor(dialect, None) for column in compiled._result_columns)
            plan = (compiled.string, binds, dialect.positional, results)
            with self._lock:
                self._plans[dialect.name] = plan
        return plan

    def run(self, connection: Connection, values: dict[str, Any]) -> Any:
        """Execute with `values` (by bind name); the DBAPI cursor, for rowcount or `rows`."""
        sql, binds, positional, _results = self._plan(connection.dialect)
        processed = [values[name] if process is None else process(values[name]) for name, process in binds]
        cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        parameters = processed if positional else dict(zip((name for name, _ in binds), processed, strict=True))
        try:
            cursor.execute(sql, parameters)
        except connection.dialect.loaded_dbapi.Error as exc:
            # As SQLAlchemy raises it (IntegrityError, OperationalError ...): callers catch those.
            cursor.close()
            raise DBAPIError.instance(sql, parameters, exc, connection.dialect.loaded_dbapi.Error) from exc
        return cursor

    def rows(self, connection: Connection, values: dict[str, Any]) -> list[tuple]:
        """The SELECT's rows as tuples of the columns' Python values."""
        results = self._plan(connection.dialect)[3]
        cursor = self.run(connection, values)
        fetched = cursor.fetchall()
        cursor.close()
        if not any(results):
            return fetched
        return [
            tuple(value if process is None else process(value) for value, process in zip(row, results, strict=True))
            for row in fetched
        ]


def prepared_insert(table: Table) -> tuple[Prepared, tuple[tuple[str, bool], ...]]:
    """An INSERT of every column of `table` but its autoincrementing key, prepared, with (column, has a
    Python-side default) for each: `insert_values` fills what is not given with NULL (insert_loaded's rule)."""
    columns = [column for column in table.c if column is not table.autoincrement_column]
    return Prepared(insert(table), [column.key for column in columns]), tuple(
        (column.key, column.default is not None) for column in columns
    )


def insert_values(connection: Connection, plan: tuple[Prepared, tuple[tuple[str, bool], ...]], values: dict) -> None:
    """Run a `prepared_insert` with `values`; a column with a Python-side default must be given."""
    prepared, columns = plan
    row: dict[str, Any] = {}
    for column, has_default in columns:
        if column not in values:
            if has_default:
                raise ValueError(f"{column} has a default: set it explicitly")
            row[column] = None
        else:
            row[column] = values[column]
    prepared.run(connection, row).close()
