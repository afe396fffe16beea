"""Benchmark: /healthz latency while 8 hostile XML documents at a time are sent to firmarXml, against idle.

    .venv/bin/python bench/bench_hostile_xml.py [--rounds 3] [--threads 16]

The service runs as `make serve` runs it (gunicorn, deploy/gunicorn.conf.py) on throwaway demo data. A probe
in a process of its own asks /healthz every 20 ms, first with the service idle, then while 8 threads send the
hostile corpus of tests/integration/test_hostile_xml.py (`--rounds` times over). Prints p50, p95 and max of
each phase in ms and p95 under load over p95 idle: the test asserts that ratio, this prints the milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_emitir import environment, machine, prepare, start_service  # noqa: E402
from tests.integration.test_hostile_xml import CORPUS, PROBE, UNSIGNED_ETICKET  # noqa: E402
from tests.support.processes import free_port  # noqa: E402


def probe(url: str, work) -> list[float]:
    """/healthz latencies (s) measured by a separate process while `work()` runs."""
    prober = subprocess.Popen(  # noqa: S603
        [sys.executable, "-c", PROBE, url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert prober.stdout.readline().strip() == "ready"
    try:
        work()
    finally:
        output, _ = prober.communicate(timeout=10)
    return [float(latency) for status, latency in (line.split() for line in output.splitlines()) if status == "200"]


def summary(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "n": len(ordered),
        "p50": statistics.median(ordered) * 1000,
        "p95": ordered[int(0.95 * (len(ordered) - 1))] * 1000,
        "max": ordered[-1] * 1000,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    env = environment(workdir, f"sqlite:///{workdir / 'service.db'}")
    token = prepare(env)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env["CFE_ISSUER_URL"] = url
    service = start_service(env, port, 1, args.threads, workdir / "service.log")
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/xml"}

    def send(body: bytes) -> int:
        return requests.post(url + "/api/v1/comprobante/firmarXml", data=body, headers=headers, timeout=60).status_code

    try:
        send(UNSIGNED_ETICKET)  # loads the key and the XSDs
        idle = probe(url, lambda: time.sleep(3))

        def hostile() -> None:
            with ThreadPoolExecutor(max_workers=8) as pool:
                list(pool.map(lambda name: send(CORPUS[name][0]), list(CORPUS) * args.rounds))

        loaded = probe(url, hostile)
    finally:
        service.terminate()
        service.wait(timeout=30)
    print(machine())
    quiet, busy = summary(idle), summary(loaded)
    for name, row in (("idle", quiet), ("8 hostile at a time", busy)):
        print(f"{name:22} n={row['n']:4}  p50 {row['p50']:6.1f} ms  p95 {row['p95']:6.1f} ms  max {row['max']:6.1f} ms")
    print(f"p95 under load / p95 idle: {busy['p95'] / quiet['p95']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
