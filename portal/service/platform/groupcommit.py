"""Group commit: writes that arrive together share one write transaction and one durable commit.

A request's failure (a 422, an exhausted CAE) rolls back only its own changes, its receipt number included,
and is raised in its own thread, while the others commit: a batch runs its requests' work one after the other
in the shared transaction, and when one fails the transaction is rolled back and the others run again, each in
a SAVEPOINT of its own (a savepoint per request in every batch cost two statements and the ORM's nested
transaction per receipt, for failures that are rare under the lock: the rules are checked before it).
Work must therefore be safe to run again after a rollback (it only writes through the session it is given).
No request is answered before the commit that makes its write durable.
The work runs in the submitting request's context (a copy of its contextvars), so `g`, `current_app` and
`url_for` are the submitter's even though another thread executes it.

Several processes on one PostgreSQL: a batch holds the row locks its requests' work takes (a company's CAE
range, for numbering) until its commit, so two processes' batches that share a company used to wait for each
other, and, locking in the order their requests came, deadlock (PostgreSQL breaks one after
`deadlock_timeout`, a second, while both processes' writes stand still). A job may therefore name the rows it
will lock (`Claim`): before any work runs, the batch claims them all, jobs deferred once before in one ordered
statement that waits (every process takes them in the same order: no deadlock), the others without waiting
(`SKIP LOCKED`); a job whose rows another process holds goes back to the head of the queue for the next batch
(deferred once, it then waits its turn), and the batch goes on with the rest. So 50 companies issuing through
two processes do not contend, and one company issuing through both takes turns, as one series must.

Leader and followers, no extra thread: a request that finds no batch running leads one batch (everything
queued at that moment, up to MAX_BATCH), then hands the lead to the oldest request still queued. While a
batch holds the lock, the next one gathers; under load one fsync serves many receipts, idle it costs nothing.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

# The key under which a batch's session keeps its connection (portal/service/platform/db.py's connection_of reads it).
CONNECTION = "db.connection"

MAX_BATCH = 64

# take(session, keys, wait): lock the rows of `keys` (sorted) in the batch's transaction and return the keys whose
# rows are all locked now; with wait=False rows another transaction holds are skipped, never waited for.
Take = Callable[[Session, list[Any], bool], set[Any]]


@dataclass(frozen=True)
class Claim:
    """The rows a job's work will lock, named before it runs: `key` (sortable against the other keys `take`
    claims, the order every process locks them in) and `take`, which locks the rows of several keys at once."""

    key: Any
    take: Take


class _Job:
    __slots__ = ("claim", "context", "deferred", "done", "error", "lead", "result", "wake", "work")

    def __init__(self, work: Callable[[Session], Any], claim: Claim | None):
        self.work = work
        self.claim = claim
        self.deferred = False  # sent back once because another process held its rows: waits for them next time
        self.context = contextvars.copy_context()
        self.wake = threading.Event()
        self.done = self.lead = False
        self.result: Any = None
        self.error: BaseException | None = None


class GroupCommit:
    """Runs `work(session)` callables in shared write transactions (one per process and database)."""

    def __init__(
        self,
        write_sessions: sessionmaker,
        writer_turn: Callable[[], AbstractContextManager],
        on_failure: Callable[[BaseException], BaseException],
    ):
        self._write_sessions = write_sessions
        self._writer_turn = writer_turn  # held around each batch's transaction (other processes' writers wait)
        self._on_failure = on_failure  # what every request of a batch whose BEGIN or COMMIT failed gets
        self._mutex = threading.Lock()
        self._queue: list[_Job] = []
        self._leading = False

    def run(self, work: Callable[[Session], Any], claim: Claim | None = None) -> Any:
        """`work(session)`'s result once it is committed; its own exception if it raised (nothing of it kept).
        `claim`: the rows `work` will lock, claimed before any work of the batch runs (see the module's text)."""
        job = _Job(work, claim)
        with self._mutex:
            self._queue.append(job)
            if not self._leading:
                self._leading = job.lead = True
        while not job.done:
            if job.lead:
                job.lead = False
                self._lead_one_batch()
                continue
            job.wake.wait()
            job.wake.clear()
        if job.error is not None:
            raise job.error
        return job.result

    def _lead_one_batch(self) -> None:
        with self._mutex:
            batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
        deferred: list[_Job] = []
        try:
            deferred = self._commit(batch)
        finally:
            with self._mutex:
                self._queue[:0] = deferred  # first in the next batch, which waits for their rows
                successor = self._queue[0] if self._queue else None
                if successor is None:
                    self._leading = False
                else:
                    successor.lead = True
            sent_back = {id(job) for job in deferred}
            for job in batch:
                if id(job) not in sent_back:
                    job.done = True
                    job.wake.set()
            if successor is not None:
                successor.wake.set()

    def _commit(self, batch: list[_Job]) -> list[_Job]:
        """Run and commit `batch`; the jobs sent back to the queue (their rows held by another process)."""
        session = self._write_sessions()
        deferred: list[_Job] = []
        try:
            with self._writer_turn():  # ends after the COMMIT or ROLLBACK, when the lock is free for others
                try:
                    # BEGIN (IMMEDIATE on SQLite): the one wait for the lock, bounded. Kept for the hot path's
                    # statements (db.connection_of): the ORM looks it up again for every session.connection().
                    session.info[CONNECTION] = session.connection()
                    batch, deferred = _claimed(session, batch)
                    if not batch:
                        return deferred
                    if len(batch) == 1:
                        self._commit_alone(session, batch[0])
                        return deferred
                    failed = self._run_plainly(session, batch)
                    if failed is not None:
                        # One request failed: its error is its own, and the transaction (the others' work with it)
                        # is undone; the others run again from the start, each in a savepoint now, so a second
                        # failure, if any, stays its own too. Failures under the lock are rare (a validation
                        # failed before it), so the common batch pays no savepoint.
                        session.rollback()
                        session.info[CONNECTION] = session.connection()  # BEGIN again, within the same turn
                        again = [job for job in batch if job is not failed]
                        _claim_again(session, again)  # the rollback let the claimed rows go
                        self._run_in_savepoints(session, again)
                    session.commit()
                except BaseException:
                    session.rollback()
                    raise
        except BaseException as exc:
            failure = self._on_failure(exc)
            for job in batch:
                if job.error is None:
                    job.error, job.result = failure, None
        finally:
            session.close()
        return deferred

    @staticmethod
    def _run_plainly(session: Session, batch: list[_Job]) -> _Job | None:
        """Run the batch's work one after the other without savepoints; the first job that fails (its error
        kept), or None. The jobs after it are not run."""
        for job in batch:
            try:
                job.result = job.context.run(job.work, session)
            except Exception as exc:
                job.error = exc
                return job
        return None

    @staticmethod
    def _run_in_savepoints(session: Session, jobs: list[_Job]) -> None:
        """Run each job's work in a SAVEPOINT of its own: a failure undoes that job's part only."""
        for job in jobs:
            job.result = None
            savepoint = session.begin_nested()
            # The SAVEPOINT itself, now: the ORM would emit it only at its own next use of the connection, and
            # the hot path's statements use the kept connection (db.connection_of), which a rollback to a
            # savepoint never emitted would not undo (a number lost).
            session.connection()
            try:
                job.result = job.context.run(job.work, session)
                savepoint.commit()
            except Exception as exc:  # the request's own failure: undo its part only
                savepoint.rollback()
                job.error = exc

    @staticmethod
    def _commit_alone(session: Session, job: _Job) -> None:
        """A batch of one needs no savepoint: its failure rolls the whole transaction back (two statements and
        the ORM's nested transaction less, the idle case)."""
        try:
            job.result = job.context.run(job.work, session)
        except Exception as exc:
            session.rollback()
            job.error = exc
            return
        session.commit()


def _claimed(session: Session, batch: list[_Job]) -> tuple[list[_Job], list[_Job]]:
    """Claim the rows the batch's jobs name (`Claim`), in its transaction: (the jobs to run now, the jobs whose
    rows another transaction holds, marked deferred). Jobs deferred once before wait for theirs, first and in
    key order; the others' are taken without waiting. When nothing could be taken without waiting, the batch
    waits for them (in key order) rather than commit an empty transaction."""
    if all(job.claim is None for job in batch):
        return batch, []
    got: set[Claim] = set()

    def take(jobs: list[_Job], wait: bool) -> None:
        keys: dict[Take, set[Any]] = {}
        for job in jobs:
            if job.claim is not None and job.claim not in got:
                keys.setdefault(job.claim.take, set()).add(job.claim.key)
        for taker, wanted in keys.items():
            got.update(Claim(key, taker) for key in taker(session, sorted(wanted), wait))

    def waiting() -> list[_Job]:
        return [job for job in batch if job.claim is not None and job.claim not in got]

    take([job for job in batch if job.deferred], wait=True)
    take(batch, wait=False)
    if len(waiting()) == len(batch):
        take(batch, wait=True)
    deferred = waiting()
    for job in deferred:
        job.deferred = True
    return [job for job in batch if job.claim is None or job.claim in got], deferred


def _claim_again(session: Session, jobs: list[_Job]) -> None:
    """After a rollback, claim `jobs`' rows again, waiting for them in key order (the transaction holds none, so
    no deadlock): they were this batch's a moment ago."""
    keys: dict[Take, set[Any]] = {}
    for job in jobs:
        if job.claim is not None:
            keys.setdefault(job.claim.take, set()).add(job.claim.key)
    for taker, wanted in keys.items():
        taker(session, sorted(wanted), True)
