"""Benchmark: the service's CPU time per issued receipt, in-process, one request at a time.

    .venv/bin/python bench/bench_emitir_cpu.py                  # 300 receipts, CPU ms per receipt
    .venv/bin/python bench/bench_emitir_cpu.py --profile 40     # and cProfile's 40 costliest functions
    .venv/bin/python bench/bench_emitir_cpu.py --against /tmp/main   # this tree against another, interleaved

The same request as bench_emitir.py (a two-line e-Ticket with its own Idempotency-Key, a Bearer token)
through the Flask test client, on a throwaway SQLite file on disk with the demo data. `time.process_time`
counts this process's CPU only, so on a machine shared with others it is the steady figure where wall-clock
rates are not: compare two versions by running this for each, one right after the other, several times. Other
processes' load still inflates it (shared caches and cores); the p10 is the least disturbed figure.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import samples  # noqa: E402

BODY = samples.TWO_LINE_ETICKET_BODY


def issuing_client(prefix: str):
    """An app on a fresh SQLite file with the demo data, and issue() posting one receipt."""
    app, token = samples.demo_service(samples.demo_environment(prefix))
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def issue() -> None:
        answer = client.post(
            "/api/v1/comprobante/emitir", data=BODY, headers={**headers, "Idempotency-Key": uuid.uuid4().hex}
        )
        if answer.status_code != 201:
            raise RuntimeError(f"{answer.status_code}: {answer.get_data(as_text=True)}")

    return issue


def cpu_ms_each(issue, count: int, profiler: cProfile.Profile | None = None) -> list[float]:
    result = []
    for _ in range(count):
        started = time.process_time()
        if profiler:
            profiler.enable()
        issue()
        if profiler:
            profiler.disable()
        result.append((time.process_time() - started) * 1000)
    return result


def summary(cpu_ms: list[float]) -> str:
    ordered = sorted(cpu_ms)
    return (
        f"{len(cpu_ms)} receipts, CPU ms per receipt: p10 {ordered[len(ordered) // 10]:.2f}, "
        f"mean {statistics.mean(cpu_ms):.2f}, median {statistics.median(cpu_ms):.2f}, "
        f"p90 {ordered[len(ordered) * 9 // 10]:.2f}"
    )


def serve(issue) -> None:
    """--serve: read a count per line, issue that many, answer with their CPU ms (JSON); for --against."""
    print("ready", flush=True)
    for line in sys.stdin:
        print(json.dumps(cpu_ms_each(issue, int(line))), flush=True)


def paired(other_root: Path, receipts: int, warm_up: int, slice_: int) -> None:
    """This tree and `other_root` in two processes taking turns, `slice_` receipts each: both see the same
    machine, moment by moment, so the difference is the code's and not the other engineers' load."""
    trees = {"other": other_root, "this": ROOT}
    workers = {
        name: subprocess.Popen(  # noqa: S603
            [sys.executable, str(root / "bench/bench_emitir_cpu.py"), "--serve"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(root)},
        )
        for name, root in trees.items()
    }
    for worker in workers.values():
        assert worker.stdout.readline().strip() == "ready"
    results: dict[str, list[float]] = {name: [] for name in workers}

    def turn(name: str, count: int) -> list[float]:
        workers[name].stdin.write(f"{count}\n")
        workers[name].stdin.flush()
        return json.loads(workers[name].stdout.readline())

    for name in workers:
        turn(name, warm_up)
    for index in range(max(1, receipts // slice_)):
        # The trees swap places every turn: with a fixed order, a tree against a copy of itself measured 1.08.
        for name in list(workers) if index % 2 == 0 else list(reversed(workers)):
            results[name] += turn(name, slice_)
    for worker in workers.values():
        worker.stdin.close()
        worker.wait()
    for name, root in trees.items():
        print(f"{name} ({root}): {summary(results[name])}")
    ratio = statistics.mean(results["this"]) / statistics.mean(results["other"])
    print(f"this / other, mean CPU per receipt: {ratio:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--receipts", type=int, default=300)
    parser.add_argument("--warm-up", type=int, default=30)
    parser.add_argument("--profile", type=int, default=0, help="print cProfile's N costliest functions")
    parser.add_argument("--against", type=Path, default=None, help="another checkout to compare, interleaved")
    parser.add_argument("--slice", type=int, default=10, help="receipts per turn with --against")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.serve:
        print("load average: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    if args.against:
        paired(args.against.resolve(), args.receipts, args.warm_up, args.slice)
        return 0

    with contextlib.redirect_stdout(sys.stderr):  # the app's start-up chatter, away from the results
        issue = issuing_client("cfe-bench-cpu-")
    if args.serve:
        serve(issue)
        return 0
    cpu_ms_each(issue, args.warm_up)
    profiler = cProfile.Profile(time.process_time) if args.profile else None  # CPU, not waits
    cpu_ms = cpu_ms_each(issue, args.receipts, profiler)
    print(summary(cpu_ms) + (" (under cProfile: inflated)" if profiler else ""))
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.profile)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
