"""Benchmark: a DGI outage. Does issuing slow down while DGI does not answer, and how long does the backlog of a
10-minute outage take to drain once DGI answers again?

    .venv/bin/python bench/bench_outage.py [--receipts 300]

Throwaway SQLite database with the demo data, the embedded DGI simulator, the queue in memory (tasks run in this
process, as the worker would). Faster than real time: the outage lasts as long as issuing `--receipts` takes,
not ten minutes, and the probe's wait is not slept but counted at its cap (CFE_DGI_OUTAGE_PROBE_MAX_SECONDS, the
worst case between DGI coming back and the probe seeing it). Measured in the same run:
  - POST emitir in-process (e-Factura), p50, with DGI answering and then with DGI unreachable (`caido`);
  - the issuing rate during the outage, R receipts/s; a 10-minute outage at R leaves 600 R receipts waiting;
  - the drain: from DGI answering again to every receipt "aceptado", oldest envelope first, split into this
    service's time and the simulator's (which plays DGI's side in the same process and CPU).
The 10-minute backlog's drain is extrapolated from the measured one (its envelopes are alike, each sent and
answered once: the time is linear in their number) plus the probe's cap. Target: under 2 minutes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import samples  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--receipts", type=int, default=300)
    parser.add_argument("--normal", type=int, default=60, help="receipts issued first with DGI answering")
    args = parser.parse_args()
    workdir = samples.demo_environment("cfe-bench-outage-")
    from sqlalchemy import func, select

    from portal.service.envios import outage, sending, tasks
    from portal.service.envios.models import DgiEnvelope, DgiStatus, DgiSubmission
    from portal.service.envios.simulator import SimulatedDgi
    from portal.service.platform import db, jobs
    from tests.support import cfe_bodies as bodies

    app, token = samples.demo_service(
        workdir, {"JOBS_URL": "memory://", "DGI_SIMULATOR_ANSWER_SECONDS": 0, "ENVIOS_DEBOUNCE_SECONDS": 0}
    )
    jobs.use_app(app)
    headers = {"Authorization": f"Bearer {token}"}
    client = app.test_client()
    simulator_seconds = [0.0]
    debounce = 1.0  # CFE_ENVIOS_DEBOUNCE_SECONDS's default: the packer runs once a second of issuing

    class TimedDgi(SimulatedDgi):
        """The simulator, its own time counted apart (it is DGI's side of the wire)."""

        def send_envelope(self, *a, **k):
            start = time.perf_counter()
            try:
                return super().send_envelope(*a, **k)
            finally:
                simulator_seconds[0] += time.perf_counter() - start

        def query_envelope(self, *a, **k):
            start = time.perf_counter()
            try:
                return super().query_envelope(*a, **k)
            finally:
                simulator_seconds[0] += time.perf_counter() - start

    app.extensions["dgi_reception"] = TimedDgi(app.config)

    def worker_round() -> None:
        jobs.run_pending()
        for task in jobs.huey.read_schedule(jobs.huey._get_timestamp().replace(year=9999)):
            if task.name.endswith("probe_dgi"):
                continue  # the probe waits for its time (not slept here)
            task.eta = None
            jobs.huey.execute(task)

    def issue(count: int) -> tuple[list[float], float]:
        times = []
        began = time.perf_counter()
        last = [began]
        for _ in range(count):
            start = time.perf_counter()
            answer = client.post(
                "/api/v1/comprobante/emitir",
                json=bodies.body(bodies.EFACTURA),
                headers={**headers, "Idempotency-Key": uuid.uuid4().hex},
            )
            times.append((time.perf_counter() - start) * 1000)
            assert answer.status_code == 201, answer.json
            if time.perf_counter() - last[0] >= debounce:
                last[0] = time.perf_counter()
                worker_round()  # the worker packs once a debounce (and, while DGI is down, only the probe calls it)
        worker_round()
        return times, time.perf_counter() - began

    def accepted() -> int:
        with db.new_session() as session:
            return session.scalar(
                select(func.count()).select_from(DgiSubmission).where(DgiSubmission.state == "aceptado")
            )

    with app.app_context():
        outage.set_simulator_mode("normal")
        normal_ms, _ = issue(args.normal)
        while accepted() < args.normal:
            worker_round()
        outage.set_simulator_mode("caido")
        down_ms, down_seconds = issue(args.receipts)
        rate = args.receipts / down_seconds
        with db.new_session() as session:
            waiting = outage.backlog(session)
            envelopes = session.scalar(
                select(func.count()).select_from(DgiEnvelope).where(DgiEnvelope.state == "armado")
            )
            down = outage.is_down(session)
        assert down and waiting.receipts == args.receipts, (down, waiting)

        outage.set_simulator_mode("normal")
        simulator_seconds[0] = 0.0
        drain_start = time.perf_counter()
        with db.write_transaction() as session:  # the probe's time has come (its wait is counted, not slept)
            session.get(DgiStatus, 1).next_probe_at = sending._now()
        tasks.probe_dgi()
        while accepted() < args.normal + args.receipts:
            worker_round()
        drain_seconds = time.perf_counter() - drain_start
        probe_cap = float(app.config["DGI_OUTAGE_PROBE_MAX_SECONDS"])

    backlog_10min = rate * 600
    per_receipt = drain_seconds / args.receipts
    ours_per_receipt = (drain_seconds - simulator_seconds[0]) / args.receipts
    projected = probe_cap + backlog_10min * per_receipt
    projected_ours = probe_cap + backlog_10min * ours_per_receipt
    rows = [
        ("POST emitir p50, DGI answering", f"{statistics.median(normal_ms):.1f} ms", ""),
        (
            "POST emitir p50, DGI unreachable (same run)",
            f"{statistics.median(down_ms):.1f} ms",
            f"{statistics.median(down_ms) / statistics.median(normal_ms):.2f}x of answering; 0 failures",
        ),
        ("issuing rate during the outage (R)", f"{rate:.1f} receipts/s", ""),
        ("waiting when DGI answered again", f"{waiting.receipts} receipts, {envelopes} envelopes", ""),
        (
            "drain, DGI back to all accepted",
            f"{drain_seconds:.1f} s",
            f"{args.receipts / drain_seconds:.0f} receipts/s; "
            f"simulator (DGI's side) {simulator_seconds[0]:.1f} s of it",
        ),
        (
            "10-minute outage at R: backlog",
            f"{backlog_10min:.0f} receipts",
            f"{backlog_10min / 250:.0f} envelopes of 250",
        ),
        (
            "its drain, projected (probe cap + linear drain)",
            f"{projected:.0f} s",
            ("met" if projected < 120 else "NOT met") + " (target < 120 s)",
        ),
        (
            "its drain without the simulator's own time",
            f"{projected_ours:.0f} s",
            ("met" if projected_ours < 120 else "NOT met") + " (target < 120 s)",
        ),
    ]
    print(
        f"bench_outage.py: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, "
        f"{args.receipts} receipts during the outage\n"
    )
    print("| measure | value | |\n|---|---|---|")
    for a, b, c in rows:
        print(f"| {a} | {b} | {c} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
