"""Writers of several processes on one SQLite file take turns in the kernel's queue (db.WriterTurns).

The other process is a real one: a Python child holding the same `flock` a service process would. Without
the turns, a second service process waited in SQLite's busy handler, whose sleeps (up to 100 ms) seldom met
the lock free between the first process's commits (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from portal.service.platform.db import DatabaseBusy, WriteGate, WriterTurns

# Bounds on waits of tenths of a second: run alone, after the parallel suite (Makefile).
pytestmark = pytest.mark.serial

# Holds the turn for argv[2] seconds, then notes (in argv[3], if given) the moment it lets go: CLOCK_MONOTONIC is
# one clock for every process of the machine, so the waiter's lag is measured from the release itself, not from
# when the holder was meant to end (its interpreter's exit takes longer on a slower machine).
HOLDER = """
import fcntl, os, sys, time
descriptor = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(descriptor, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as note:
        note.write(repr(time.monotonic()))
fcntl.flock(descriptor, fcntl.LOCK_UN)
"""


def other_process_holding(database: str, seconds: float, release_note: str | None = None) -> subprocess.Popen:
    """A process that holds the writers' turn for `seconds` (returns once it holds it)."""
    note = [release_note] if release_note else []
    holder = subprocess.Popen(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", HOLDER, f"{database}-writer.lock", str(seconds), *note],
        stdout=subprocess.PIPE,
        text=True,
    )
    held = holder.stdout.readline().strip()
    holder.stdout.close()  # it prints nothing more
    assert held == "held"
    return holder


def turn_is_free_for_another_process(database: str) -> bool:
    probe = "import fcntl, os, sys; fcntl.flock(os.open(sys.argv[1], os.O_RDWR), fcntl.LOCK_EX | fcntl.LOCK_NB)"
    return subprocess.run([sys.executable, "-c", probe, f"{database}-writer.lock"], check=False).returncode == 0  # noqa: S603


@pytest.fixture
def database(tmp_path) -> str:
    return str(tmp_path / "cfe.db")


def test_a_writer_gets_its_turn_the_moment_the_other_process_lets_go(database, tmp_path):
    turns = WriterTurns(database, lock_timeout=5, gate=WriteGate())
    release_note = tmp_path / "released"
    holder = other_process_holding(database, 0.6, str(release_note))
    with turns.turn():
        granted = time.monotonic()
        assert not turn_is_free_for_another_process(database)  # this process holds it now
    holder.wait()
    released = float(release_note.read_text())
    # It waited for the holder and took the turn as the kernel handed it over: SQLite's busy handler, which sleeps
    # up to 100 ms between tries, is what the turns replaced. Measured from the release itself, so the bound is
    # that back-off (behaviour), not how fast this machine starts or ends a process.
    assert released <= granted < released + 0.1, (released, granted)
    assert turn_is_free_for_another_process(database)  # and let go when its turn ended


def test_a_turn_not_granted_within_the_bounded_wait_is_busy_and_leaves_nothing_held(database):
    gate = WriteGate()
    turns = WriterTurns(database, lock_timeout=0.3, gate=gate)
    holder = other_process_holding(database, 1.0)
    started = time.monotonic()
    with pytest.raises(DatabaseBusy) as busy, turns.turn():
        pass
    assert time.monotonic() - started > 0.25  # it waited its bounded wait ...
    assert holder.poll() is None  # ... and gave up while the other process still held the turn
    assert busy.value.headers["Retry-After"] == "1"
    assert gate.held_since is not None  # later writers of this process wait only briefly
    holder.wait()
    # The helper still waiting for the abandoned turn got it when the holder ended, and let it go at once.
    deadline = time.monotonic() + 2
    while not turn_is_free_for_another_process(database) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert turn_is_free_for_another_process(database)
    with turns.turn():  # the next writer's turn comes at once
        pass


def test_a_holder_killed_with_sigkill_lets_the_next_writer_in_at_once(database):
    bounded_wait = 5
    turns = WriterTurns(database, lock_timeout=bounded_wait, gate=WriteGate())
    holder = other_process_holding(database, 60)
    os.kill(holder.pid, signal.SIGKILL)
    started = time.monotonic()
    with turns.turn():  # granted, not DatabaseBusy: it did not wait out the bounded wait ...
        assert time.monotonic() - started < bounded_wait / 2  # ... nor most of it
    holder.wait()


def test_writers_of_one_process_take_turns_one_at_a_time(database):
    turns = WriterTurns(database, lock_timeout=5, gate=WriteGate())
    inside, most_inside, lock = [0], [0], threading.Lock()

    def write():
        with turns.turn():
            with lock:
                inside[0] += 1
                most_inside[0] = max(most_inside[0], inside[0])
            time.sleep(0.01)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=write) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most_inside[0] == 1
