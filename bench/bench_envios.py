"""Benchmark: does the road to DGI keep up with issuing, and what does it cost the issuing request?

    .venv/bin/python bench/bench_envios.py [--receipts 500] [--write docs/PERFORMANCE.md]

Throwaway SQLite database with the demo data, the embedded DGI simulator, the queue in memory (tasks run in
this process, as the worker would run them). Measured in the same run:
  - POST emitir, e-Facturas, in-process (the hook records the receipt for DGI and wakes the packer);
  - the hook's own decision for an e-Ticket (envelope or daily report: the engine's threshold rule);
  - wake-up tasks enqueued for the whole burst (debounced per company: 1 s by default);
  - the time the packer, the simulator and the answer fetches take to bring every receipt to "aceptado".
Targets: the road to DGI moves receipts at least as fast as one process issues them (ratio >= 1); the
decision costs < 5% of an issue; a burst enqueues at most one wake-up per second of burst (+1).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
import uuid
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import samples  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--receipts", type=int, default=500)
    parser.add_argument("--write", type=Path, default=None, help="Markdown file whose envios section to rewrite")
    args = parser.parse_args()
    workdir = samples.demo_environment("cfe-bench-envios-")
    from sqlalchemy import func, select

    from portal.service.cfe import compute_totals, parse_cfe_input
    from portal.service.envios import tracking
    from portal.service.envios.models import DgiEnvelope, DgiSubmission
    from portal.service.platform import db, jobs
    from tests.support import cfe_bodies as bodies

    app, token = samples.demo_service(workdir, {"JOBS_URL": "memory://", "DGI_SIMULATOR_ANSWER_SECONDS": 0})
    jobs.use_app(app)
    headers = {"Authorization": f"Bearer {token}"}
    client = app.test_client()

    emitir_ms = []
    burst_start = time.perf_counter()
    for _ in range(args.receipts):
        start = time.perf_counter()
        answer = client.post(
            "/api/v1/comprobante/emitir",
            json=bodies.body(bodies.EFACTURA),
            headers={**headers, "Idempotency-Key": uuid.uuid4().hex},
        )
        emitir_ms.append((time.perf_counter() - start) * 1000)
        assert answer.status_code == 201, answer.json
    burst_seconds = time.perf_counter() - burst_start
    wakeups = jobs.huey.pending_count() + len(jobs.huey.scheduled())

    ticket = parse_cfe_input(bodies.body(bodies.ETICKET))
    with app.app_context():
        decide_ms = []
        for _ in range(500):
            start = time.perf_counter()
            tracking.route_for(ticket, app.config["UI_VALUE_UYU"], compute_totals(ticket))
            decide_ms.append((time.perf_counter() - start) * 1000)

    road_start = time.perf_counter()
    with app.app_context():
        session = db.new_session()
        while True:
            jobs.run_pending()
            for task in jobs.huey.read_schedule(jobs.huey._get_timestamp().replace(year=9999)):
                task.eta = None
                jobs.huey.execute(task)
            accepted = session.scalar(
                select(func.count()).select_from(DgiSubmission).where(DgiSubmission.state == "aceptado")
            )
            session.rollback()
            if accepted == args.receipts:
                break
            if time.perf_counter() - road_start > 600:
                raise SystemExit("the road to DGI did not finish in 10 minutes")
        envelopes = session.scalar(select(func.count()).select_from(DgiEnvelope))
    road_seconds = time.perf_counter() - road_start

    issue_rate = args.receipts / burst_seconds
    road_rate = args.receipts / road_seconds
    decide_share = statistics.median(decide_ms) / statistics.median(emitir_ms)
    rows = [
        (
            "POST emitir in-process, e-Factura, with the DGI hook",
            f"{statistics.median(emitir_ms):.1f} ms",
            f"{issue_rate:.0f} receipts/s",
            "",
            "",
        ),
        (
            "the hook's envelope-or-report decision (e-Ticket)",
            f"{statistics.median(decide_ms):.2f} ms",
            f"{decide_share:.1%} of an issue",
            "< 5%",
            "met" if decide_share < 0.05 else "NOT met",
        ),
        (
            f"wake-up tasks enqueued for {args.receipts} receipts in {burst_seconds:.1f} s",
            "",
            str(wakeups),
            f"<= {int(burst_seconds) + 1}",
            "met" if wakeups <= int(burst_seconds) + 1 else "NOT met",
        ),
        (
            f"pack, send, DGI answers: {args.receipts} receipts in {envelopes} envelopes",
            f"{road_seconds:.1f} s",
            f"{road_rate:.0f} receipts/s",
            "",
            "",
        ),
        (
            "road to DGI / issuing (same run)",
            "",
            f"{road_rate / issue_rate:.1f}x",
            ">= 1x",
            "met" if road_rate >= issue_rate else "NOT met",
        ),
    ]
    table = "\n".join(f"| {a} | {b} | {c} | {d} | {e} |" for a, b, c, d, e in rows)
    section = (
        f"## Envíos a DGI\n\nMeasured by `bench/bench_envios.py` on {date.today()} (embedded DGI simulator, "
        f"SQLite, tasks run in the benchmark's process; load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores, shared with other work, so absolute times are noisy: read the ratios)."
        "\n\n| measure | p50 | value | target | |\n"
        f"|---|---|---|---|---|\n{table}\n\nIn `make run` the worker polls its queue (huey), so a single "
        'e-Factura takes a few seconds from issue to "aceptado" (measured 3.4-7.3 s with `make run` '
        "on this loaded machine); the target is 30 s.\n"
    )
    print(section)
    if args.write:
        text = args.write.read_text() if args.write.exists() else "# Performance\n"
        pattern = re.compile(r"## Envíos a DGI\n.*?(?=\n## |\Z)", re.S)
        text = pattern.sub(section.rstrip("\n"), text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
        args.write.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
