"""Benchmark: scale-out (issue 31, target 3): 1 against 2 service processes, PostgreSQL and Redis, same run.

    .venv/bin/python bench/bench_scaleout.py --database-url postgresql+psycopg://postgres@127.0.0.1:PORT/DB \
        --redis-url redis://127.0.0.1:PORT/0 [--postgres-pid PID] [--rounds 3] [--seconds 4]

Two gunicorn servers (deploy/'s settings) on the same empty PostgreSQL database, each warmed up until its
processes have issued for every company (`_warm_up`), with the background jobs and the
rate limits in Redis as production runs several processes: one with 1 process, one with 2. Slices alternate
(1, 2, 1, 2 ...), 32 connections issuing the bench's e-Ticket for the 50 companies of bench_ratios.py's
`companies` mode (so the series' row locks are not what is measured). For each side: receipts/s, and CPU per
receipt of the service processes, of PostgreSQL (every process of the cluster, `--postgres-pid` is its
postmaster) and of the load generator, read from /proc, and the share of the 2 cores each took (CPU seconds per
second of the slices: what the neighbours left shows as the rest); the deadlocks PostgreSQL broke. Each round
also times plain CPU work (JSON + SHA-256, no shared state) in 1 and in 2 processes: on a shared machine that is
the most 2 processes can give over 1 at that moment, the ceiling to read the service's ratio against. The CPU per
receipt is what the N-machines estimate in docs/PERFORMANCE.md is computed from.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import loadgen  # noqa: E402
from bench.bench_emitir import environment, machine, prepare, start_service, tree_cpu_seconds  # noqa: E402
from bench.bench_ratios import COMPANIES, _issue_factory, add_companies  # noqa: E402


def _wal_and_commits(dsn: str) -> tuple[int, int, int]:
    """The cluster's WAL position (bytes), the database's committed transactions and deadlocks so far."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        wal, commits, deadlocks = conn.execute(
            "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, xact_commit, deadlocks FROM pg_stat_database "
            "WHERE datname = current_database()"
        ).fetchone()
    return int(wal), int(commits), int(deadlocks)


def _reference_units(seconds: float) -> int:
    """Pure Python work with no shared state (JSON and SHA-256 of a small document), for `seconds`: units done."""
    document, done, deadline = {"items": list(range(200)), "text": "x" * 500}, 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        for _ in range(100):
            text = json.dumps(document)
            hashlib.sha256(json.loads(text)["text"].encode()).hexdigest()
        done += 100
    return done


def _reference_rate(processes: int, seconds: float) -> float:
    """Units/s of `processes` processes doing `_reference_units` at once: what the machine gives this many
    processes of plain CPU work right now (the ceiling of the service's own 2 / 1 on a shared machine)."""
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        return sum(pool.map(_reference_units, [seconds] * processes)) / seconds


def _warm_up(port: int, make, workers: int, connections: int) -> None:
    """Until every process has issued for every company a few times: each process parses each company's
    signing key once (~30 ms), which a short warm-up left to the measured slices, twice as often with two
    processes (2.5 ms more per receipt over 1,200 receipts)."""
    done, deadline = 0, time.monotonic() + 60
    while done < COMPANIES * workers * 4 and time.monotonic() < deadline:
        done += loadgen.run("127.0.0.1", port, make, connections=connections, seconds=1.0).ok


def _slice(port: int, make, connections: int, seconds: float, server_pid: int, postgres_pid: int | None, dsn: str):
    wal_before = _wal_and_commits(dsn)
    before = (os.times(), tree_cpu_seconds(server_pid), tree_cpu_seconds(postgres_pid) if postgres_pid else 0.0)
    outcome = loadgen.run("127.0.0.1", port, make, connections=connections, seconds=seconds)
    after = (os.times(), tree_cpu_seconds(server_pid), tree_cpu_seconds(postgres_pid) if postgres_pid else 0.0)
    wal_after = _wal_and_commits(dsn)
    generator = (after[0].user - before[0].user) + (after[0].system - before[0].system)
    errors = {s: n for s, n in outcome.statuses.items() if not 200 <= s < 300}
    wal = tuple(after_ - before_ for after_, before_ in zip(wal_after, wal_before, strict=True))
    return outcome.ok, outcome.seconds, after[1] - before[1], after[2] - before[2], generator, errors, wal


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True, help="an empty PostgreSQL database")
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--postgres-pid", type=int, default=None, help="the postmaster's pid, to count its CPU")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--port", type=int, default=8151)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="cfe-bench-scaleout-"))
    env = environment(workdir, args.database_url)
    env.update(CFE_JOBS_URL=args.redis_url, CFE_RATELIMIT_STORAGE_URL=args.redis_url)
    prepare(env)
    tokens = add_companies(env)
    dsn = args.database_url.replace("postgresql+psycopg://", "postgresql://")
    sides = {}
    figures: dict[int, dict] = {}
    try:
        for index, workers in enumerate((1, 2)):
            port = args.port + index
            server = start_service(env, port, workers, None, workdir / f"service-{workers}.log")
            sides[workers] = (server, port, _issue_factory(port, tokens))
            figures[workers] = {
                "ok": 0,
                "wall": 0.0,
                "service": 0.0,
                "postgres": 0.0,
                "generator": 0.0,
                "rates": [],
                "wal": 0,
                "commits": 0,
                "deadlocks": 0,
            }
            _warm_up(port, sides[workers][2], workers, args.connections)
        for workers, (server, _port, _make) in sides.items():  # what each server burns doing nothing
            before = tree_cpu_seconds(server.pid)
            time.sleep(args.seconds)
            figures[workers]["idle"] = (tree_cpu_seconds(server.pid) - before) / args.seconds
        errors: dict[int, int] = {}
        reference: dict[int, list[float]] = {1: [], 2: []}
        for _round in range(args.rounds):
            for processes in (1, 2):
                reference[processes].append(_reference_rate(processes, 1.5))
            for workers, (server, port, make) in sides.items():
                ok, wall, service, postgres, generator, failed, (wal, commits, deadlocks) = _slice(
                    port, make, args.connections, args.seconds, server.pid, args.postgres_pid, dsn
                )
                side = figures[workers]
                side["wal"] += wal
                side["commits"] += commits
                side["deadlocks"] += deadlocks
                side["ok"] += ok
                side["wall"] += wall
                side["service"] += service
                side["postgres"] += postgres
                side["generator"] += generator
                side["rates"].append(ok / wall)
                for status, n in failed.items():
                    errors[status] = errors.get(status, 0) + n
    finally:
        for server, _port, _make in sides.values():
            server.terminate()
            server.wait(timeout=30)
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nmachine: {machine()}; load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"PostgreSQL + Redis (jobs, rate limits), {args.connections} connections, {COMPANIES} companies, "
        f"{args.rounds} rounds of {args.seconds:.0f} s slices alternating; non-2xx: {errors or 0}\n"
    )
    print(
        "| service processes | receipts/s per slice | mean | CPU ms per receipt: service | PostgreSQL | "
        "load generator | cores taken: service | PostgreSQL | load generator | idle, cores | WAL per receipt | "
        "commits per receipt | deadlocks |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for workers, side in figures.items():
        per = max(side["ok"], 1)
        print(
            f"| {workers} | {', '.join(f'{r:.0f}' for r in side['rates'])} | {statistics.mean(side['rates']):.0f} | "
            f"{side['service'] * 1000 / per:.2f} | {side['postgres'] * 1000 / per:.2f} | "
            f"{side['generator'] * 1000 / per:.2f} | {side['service'] / side['wall']:.2f} | "
            f"{side['postgres'] / side['wall']:.2f} | {side['generator'] / side['wall']:.2f} | {side['idle']:.3f} | "
            f"{side['wal'] / per / 1024:.1f} KB | {side['commits'] / per:.2f} | {side['deadlocks']} |"
        )
    ratio = statistics.mean(figures[2]["rates"]) / statistics.mean(figures[1]["rates"])
    ceiling = statistics.mean(reference[2]) / statistics.mean(reference[1])
    print(f"\n2 processes / 1 process: **{ratio:.2f}** x the receipts/s (linear on 2 free cores: 2.0)")
    print(
        f"plain CPU work (no database, no shared state), 2 processes / 1, same rounds: {ceiling:.2f} x "
        f"({', '.join(f'{b / a:.2f}' for a, b in zip(reference[1], reference[2], strict=True))}): "
        f"the service's ratio over this one is {ratio / ceiling:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
