"""Group commit: writes arriving together share one transaction and one commit, each failure stays its own."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from sqlalchemy import event, text

from portal.domain.uruguay_time import today_montevideo
from portal.service.platform import db
from tests.support import cfe_bodies as bodies

EMITIR = "/api/v1/comprobante/emitir"


def _count_commits(engine) -> list[int]:
    commits = [0]

    @event.listens_for(engine, "commit")
    def _counted(_conn):
        commits[0] += 1

    return commits


class _ProbeBatch:
    """Writes of one row each to a `probe` table through `db.grouped_write`: the first holds its batch open until
    released, so the others queue behind it and commit in one batch; `runs` counts each name's runs."""

    def __init__(self, service_app):
        self.app = service_app
        self.engine = service_app.extensions["db_engine"]
        with self.engine.begin() as conn:
            conn.execute(text("CREATE TABLE probe (name TEXT PRIMARY KEY)"))
        self.first_inside, self.release_first = threading.Event(), threading.Event()
        self.runs: dict[str, int] = {}

    def work(self, name: str, fail: bool = False, hold: bool = False):
        def run(session):
            self.runs[name] = self.runs.get(name, 0) + 1
            session.execute(text("INSERT INTO probe (name) VALUES (:n)"), {"n": name})
            if hold:
                self.first_inside.set()
                assert self.release_first.wait(10)
            if fail:
                raise ValueError(f"{name} failed")
            return name

        return run

    def submit(self, run):
        with self.app.app_context():
            try:
                return db.grouped_write(run)
            except ValueError as exc:
                return exc

    def stored(self) -> list[str]:
        with self.engine.connect() as conn:
            return sorted(conn.scalars(text("SELECT name FROM probe")))


def test_requests_queued_behind_a_batch_commit_together_and_a_failure_undoes_only_its_own_rows(service_app):
    probe = _ProbeBatch(service_app)
    commits = _count_commits(probe.engine)

    with ThreadPoolExecutor(max_workers=6) as pool:
        leader = pool.submit(probe.submit, probe.work("a", hold=True))
        assert probe.first_inside.wait(10)
        followers = [pool.submit(probe.submit, probe.work(name, fail=name == "c")) for name in "bcdef"]
        time.sleep(0.3)  # let every follower queue behind the running batch
        probe.release_first.set()
        results = [leader.result(10)] + [f.result(10) for f in followers]

    assert results[0] == "a" and results[1] == "b" and results[3:] == ["d", "e", "f"]
    assert isinstance(results[2], ValueError) and str(results[2]) == "c failed"
    assert probe.stored() == ["a", "b", "d", "e", "f"]
    assert commits[0] == 2  # the leader's batch, then the five queued behind it in one transaction


@pytest.fixture
def served(live_service, live_token_for):
    return live_service.url, {"Authorization": f"Bearer {live_token_for('usuario@demo.uy')}"}


def test_concurrent_issues_share_commits_stay_gapless_and_a_bad_note_fails_alone(served, live_service):
    url, headers = served
    engine = live_service.app.extensions["db_engine"]
    commits = _count_commits(engine)
    # Each commit as long as a disk's flush (the tests' databases live in memory, where it takes microseconds and
    # an issue could commit before the next one arrives): what arrives meanwhile queues for the next batch, as it
    # does on a server's disk.
    event.listen(engine, "commit", lambda _conn: time.sleep(0.05))
    bad_note = bodies.note(102, 101, "A", 99_999)  # refers to a receipt that does not exist
    start = threading.Barrier(24)

    def post(index: int):
        start.wait()
        body = bad_note if index % 6 == 5 else bodies.body(bodies.ETICKET)
        return requests.post(
            f"{url}{EMITIR}", json=body, headers={**headers, "Idempotency-Key": f"g-{index}"}, timeout=60
        )

    with ThreadPoolExecutor(max_workers=24) as pool:
        answers = list(pool.map(post, range(24)))

    issued = [a.json() for a in answers if a.status_code == 201]
    refused = [a for a in answers if a.status_code != 201]
    assert len(issued) == 20 and len(refused) == 4
    assert all(a.status_code == 422 and a.json()["error"]["code"] == "validation_error" for a in refused)
    assert sorted(r["nro"] for r in issued) == list(range(1, 21))
    assert commits[0] < 20  # concurrent issues shared commits
    # The 422s left no number used: the next receipt takes 21.
    after = requests.post(f"{url}{EMITIR}", json=bodies.body(bodies.ETICKET), headers=headers, timeout=30)
    assert after.status_code == 201 and after.json()["nro"] == 21


def test_a_request_that_fails_after_taking_a_number_gives_it_back_to_the_next_in_its_batch(service_app):

    from portal.service.comprobante.numbering import allocate

    first_inside, release_first = threading.Event(), threading.Event()

    def take(fail: bool = False, hold: bool = False):
        def run(session):
            number = allocate(session, 1, 101, today_montevideo()).numbering.nro
            if hold:
                first_inside.set()
                assert release_first.wait(10)
            if fail:
                raise ValueError(number)
            return number

        return run

    def submit(run):
        with service_app.app_context():
            try:
                return db.grouped_write(run)
            except ValueError as exc:
                return f"failed holding {exc.args[0]}"

    with ThreadPoolExecutor(max_workers=4) as pool:
        leader = pool.submit(submit, take(hold=True))
        assert first_inside.wait(10)
        queued = [pool.submit(submit, take(fail=index == 0)) for index in range(3)]
        time.sleep(0.3)
        release_first.set()
        results = [leader.result(10)] + [f.result(10) for f in queued]

    # The failed one had taken a number inside the shared transaction; its savepoint gave it back, and the
    # others of its batch numbered on without a gap.
    assert results[1] in ("failed holding 2", "failed holding 3")
    assert sorted([results[0], *results[2:]]) == [1, 2, 3]


def test_after_a_failure_the_others_of_the_batch_run_again_and_a_second_failure_stays_its_own(service_app):
    """A batch runs without savepoints; the first failure rolls it back and the others run again, each in a
    savepoint: what ran before the failure is stored once, and a second failure undoes only its own rows."""
    probe = _ProbeBatch(service_app)

    with ThreadPoolExecutor(max_workers=5) as pool:
        leader = pool.submit(probe.submit, probe.work("a", hold=True))
        assert probe.first_inside.wait(10)
        followers = []
        for name in "bcde":  # queued in this order behind the leader's batch
            followers.append(pool.submit(probe.submit, probe.work(name, fail=name in "ce")))
            time.sleep(0.1)
        probe.release_first.set()
        results = [leader.result(10)] + [f.result(10) for f in followers]

    assert [str(r) for r in results] == ["a", "b", "c failed", "d", "e failed"]
    assert probe.stored() == ["a", "b", "d"]
    # b ran before c failed and again after the rollback; c's failure is not run again; d and e ran once.
    assert probe.runs == {"a": 1, "b": 2, "c": 1, "d": 1, "e": 1}


class _Claims:
    """A `take` for groupcommit.Claim that pretends another process holds `held` until its first wait for them:
    records each call as (keys, wait)."""

    def __init__(self, held: set[str]):
        self.held = held
        self.calls: list[tuple[list[str], bool]] = []

    def take(self, _session, keys: list[str], wait: bool) -> set[str]:
        self.calls.append((keys, wait))
        if wait:
            self.held -= set(keys)  # the other process committed: the waiting claim gets them
            return set(keys)
        return set(keys) - self.held


def test_a_job_whose_rows_another_process_holds_goes_to_the_next_batch_and_waits_for_them_there(service_app):
    from portal.service.platform.groupcommit import Claim

    probe = _ProbeBatch(service_app)
    claims = _Claims(held={"k2"})
    commits = _count_commits(probe.engine)

    def submit(name: str, key: str | None, hold: bool = False):
        with service_app.app_context():
            return db.grouped_write(probe.work(name, hold=hold), Claim(key, claims.take) if key else None)

    with ThreadPoolExecutor(max_workers=5) as pool:
        leader = pool.submit(submit, "a", None, True)  # holds its batch so that the others gather behind it
        assert probe.first_inside.wait(10)
        queued = [pool.submit(submit, name, key) for name, key in (("b", "k3"), ("c", "k2"), ("d", "k1"), ("e", None))]
        time.sleep(0.3)
        probe.release_first.set()
        assert [leader.result(10)] + [f.result(10) for f in queued] == ["a", "b", "c", "d", "e"]

    # The second batch claimed k1 and k3 without waiting and left c (k2, held elsewhere) for the next batch,
    # which waited for k2 alone; nothing ran twice.
    assert claims.calls == [(["k1", "k2", "k3"], False), (["k2"], True)]
    assert probe.runs == dict.fromkeys("abcde", 1)
    assert probe.stored() == ["a", "b", "c", "d", "e"] and commits[0] == 3


def test_a_batch_that_could_claim_nothing_without_waiting_waits_for_its_rows_in_order(service_app):
    from portal.service.platform.groupcommit import Claim

    probe = _ProbeBatch(service_app)
    claims = _Claims(held={"k1", "k2"})
    with service_app.app_context():
        assert db.grouped_write(probe.work("a"), Claim("k2", claims.take)) == "a"
    assert claims.calls == [(["k2"], False), (["k2"], True)]  # no empty commit, no deferral: it waits at once


def test_a_batch_run_again_after_one_failure_claims_the_others_rows_again_in_order(service_app):
    from portal.service.platform.groupcommit import Claim

    probe = _ProbeBatch(service_app)
    claims = _Claims(held=set())

    def submit(name: str, key: str | None, hold: bool = False, fail: bool = False):
        with service_app.app_context():
            try:
                return db.grouped_write(
                    probe.work(name, fail=fail, hold=hold), Claim(key, claims.take) if key else None
                )
            except ValueError as exc:
                return str(exc)

    with ThreadPoolExecutor(max_workers=4) as pool:
        leader = pool.submit(submit, "a", None, True)
        assert probe.first_inside.wait(10)
        queued = [
            pool.submit(submit, "b", "k2"),
            pool.submit(submit, "c", "k3", fail=True),
            pool.submit(submit, "d", "k1"),
        ]
        time.sleep(0.3)
        probe.release_first.set()
        assert [leader.result(10)] + [f.result(10) for f in queued] == ["a", "b", "c failed", "d"]

    # The rollback after c's failure let k1..k3 go: b and d claim theirs again, waiting, in key order.
    assert claims.calls == [(["k1", "k2", "k3"], False), (["k1", "k2"], True)]
    assert probe.stored() == ["a", "b", "d"]
