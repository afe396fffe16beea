"""Benchmark: does the road to DGI keep up with issuing (issue #31, target 4)?

    .venv/bin/python bench/bench_envios.py [--receipts 2000] [--write docs/PERFORMANCE.md]
    .venv/bin/python bench/bench_envios.py --receipts 10000      # the burst: last "aceptado" within 60 s

One run, one throwaway SQLite file on disk with the demo data, two phases:

1. Issuing, as in production: gunicorn with deploy/'s settings and 2 service processes, 32 connections issuing
   e-Facturas (each goes in an envelope) through HTTP until `--receipts` are stored. Its rate is receipts/s.
2. The road to DGI, in this process, over the same database: pack every pending receipt into envelopes,
   deliver each (ACKSobre, its signature checked), fetch DGI's answers (ACKCFE, its signature checked) and
   record every receipt's verdict, until all are "aceptado". The embedded simulator plays DGI (it reads the
   envelope, checks every CFE's XSD and signature, signs its answers): its time is measured apart, since a
   real DGI does that work on its own servers, and the product's rate is receipts / (road - simulator).

Targets: the product's road moves at least as many receipts per second as issuing produced (ratio >= 1); after a
burst of 10,000 receipts the last is "aceptado" within 60 s of the first (`--receipts 10000`: the road's span,
without the simulator's time, from its start to the last verdict recorded).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import loadgen  # noqa: E402
from bench.bench_emitir import environment, machine, prepare, start_service, tree_cpu_seconds  # noqa: E402


class Stopwatch:
    """Wall and CPU seconds spent inside the wrapped calls (the simulator's)."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self.calls = 0

    def wrap(self, method):
        @functools.wraps(method)
        def timed(*args, **kwargs):
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return method(*args, **kwargs)
            finally:
                self.wall += time.perf_counter() - wall
                self.cpu += time.process_time() - cpu
                self.calls += 1

        return timed


def issue_burst(env: dict[str, str], token: str, receipts: int, args) -> tuple[int, float, float]:
    """Phase 1: (receipts stored, wall seconds, server CPU seconds) through gunicorn, 2 processes,
    `args.connections` at once."""
    from tests.support import cfe_bodies as bodies

    body = json.dumps(bodies.body(bodies.EFACTURA)).encode()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    host = f"127.0.0.1:{args.port}"

    def make() -> bytes:
        return loadgen.request_bytes(
            "POST", "/api/v1/comprobante/emitir", host, {**headers, "Idempotency-Key": uuid.uuid4().hex}, body
        )

    server = start_service(env, args.port, args.workers, None, Path(env["CFE_VAR_DIR"]) / "server.log")
    try:
        loadgen.run("127.0.0.1", args.port, make, connections=4, seconds=1.0)  # warm-up (its receipts count too)
        issued, seconds, failed = 0, 0.0, {}
        cpu = tree_cpu_seconds(server.pid)
        while issued < receipts:
            outcome = loadgen.run("127.0.0.1", args.port, make, connections=args.connections, seconds=2.0)
            issued += outcome.ok
            seconds += outcome.seconds
            for status, n in outcome.statuses.items():
                if not 200 <= status < 300:
                    failed[status] = failed.get(status, 0) + n
        cpu = tree_cpu_seconds(server.pid) - cpu
        if failed:
            print(f"issuing: non-2xx answers {failed}")
        return issued, seconds, cpu
    except OSError:
        log = Path(env["CFE_VAR_DIR"]) / "server.log"
        print("\n".join(line for line in log.read_text().splitlines() if " 201 " not in line)[-4000:])
        raise
    finally:
        server.terminate()
        server.wait(timeout=30)


def road(env: dict[str, str]) -> dict:
    """Phase 2: every pending receipt packed, delivered and answered, in this process; the simulator apart."""
    os.environ.update({k: env[k] for k in ("CFE_VAR_DIR", "CFE_SECRETS_DIR") if k in env})
    if "CFE_DOMAIN_DIR" in env:
        os.environ["CFE_DOMAIN_DIR"] = env["CFE_DOMAIN_DIR"]
    from sqlalchemy import func, select

    from portal.service import create_app
    from portal.service.envios import sending
    from portal.service.envios.models import DgiSubmission
    from portal.service.envios.simulator import SimulatedDgi
    from portal.service.platform import db

    simulator = Stopwatch()
    SimulatedDgi.send_envelope = simulator.wrap(SimulatedDgi.send_envelope)
    SimulatedDgi.query_envelope = simulator.wrap(SimulatedDgi.query_envelope)
    app = create_app(
        {"DATABASE_URL": env["CFE_DATABASE_URL"], "JOBS_URL": "memory://", "DGI_SIMULATOR_ANSWER_SECONDS": 0}
    )
    phases: dict[str, list[float]] = {}

    def timed(name: str, call):
        before = (time.perf_counter(), time.process_time(), simulator.wall, simulator.cpu)
        result = call()
        wall, cpu = time.perf_counter() - before[0], time.process_time() - before[1]
        sim_wall, sim_cpu = simulator.wall - before[2], simulator.cpu - before[3]
        phase = phases.setdefault(name, [0.0, 0.0, 0.0, 0.0])
        for index, value in enumerate((wall, cpu, sim_wall, sim_cpu)):
            phase[index] += value
        return result

    with app.app_context():
        session = db.new_session()
        companies = list(
            session.scalars(select(DgiSubmission.company_id).where(DgiSubmission.state == "pendiente").distinct())
        )
        waiting = session.scalar(
            select(func.count()).select_from(DgiSubmission).where(DgiSubmission.state == "pendiente")
        )
        session.rollback()
        started = (time.perf_counter(), time.process_time(), simulator.wall, simulator.cpu)
        envelopes = [e for company in companies for e in timed("pack", lambda c=company: sending.pack(c))]
        for envelope_id in envelopes:
            timed("deliver", lambda e=envelope_id: sending.deliver(e))
        for envelope_id in envelopes:
            timed("fetch", lambda e=envelope_id: sending.fetch(e))
        wall = time.perf_counter() - started[0]
        cpu = time.process_time() - started[1]
        accepted = session.scalar(
            select(func.count()).select_from(DgiSubmission).where(DgiSubmission.state == "aceptado")
        )
        session.close()
    return {
        "waiting": waiting,
        "accepted": accepted,
        "envelopes": len(envelopes),
        "wall": wall,
        "cpu": cpu,
        "sim_wall": simulator.wall - started[2],
        "sim_cpu": simulator.cpu - started[3],
        "phases": phases,
    }


def decision_ms() -> float:
    """The issuing hook's envelope-or-report decision for an e-Ticket, median ms (the engine's threshold rule)."""
    from decimal import Decimal

    from portal.service.cfe import compute_totals, parse_cfe_input
    from portal.service.envios import tracking
    from tests.support import cfe_bodies as bodies

    ticket = parse_cfe_input(bodies.body(bodies.ETICKET))
    times = []
    for _ in range(500):
        start = time.perf_counter()
        tracking.route_for(ticket, Decimal("6.1642"), compute_totals(ticket))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--receipts", type=int, default=2000)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8151)
    parser.add_argument("--write", type=Path, default=None, help="Markdown file whose envios section to rewrite")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="cfe-bench-envios-"))
    try:
        env = environment(workdir, f"sqlite:///{workdir / 'service.db'}")
        token = prepare(env)
        issued, issue_seconds, issue_cpu = issue_burst(env, token, args.receipts, args)
        result = road(env)
        decide = decision_ms()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    issue_rate = issued / issue_seconds
    product = result["wall"] - result["sim_wall"]
    road_rate = result["accepted"] / result["wall"]
    product_rate = result["accepted"] / product
    sim_cpu = sum(phase[3] for phase in result["phases"].values())
    issue_cpu_ms = issue_cpu * 1000 / issued
    road_cpu_ms = (result["cpu"] - sim_cpu) * 1000 / result["accepted"]
    rows = [
        (
            "issuing through HTTP, 2 processes, e-Facturas",
            f"{issued} in {issue_seconds:.1f} s (server CPU {issue_cpu_ms:.2f} ms each)",
            f"{issue_rate:.0f}/s",
            "",
        ),
        (
            f"road to DGI: {result['accepted']} of {result['waiting']} aceptado, {result['envelopes']} envelopes",
            f"{result['wall']:.1f} s (CPU {result['cpu']:.1f} s)",
            f"{road_rate:.0f}/s",
            "",
        ),
        (
            "  of which the simulator (DGI's side)",
            f"{result['sim_wall']:.1f} s (CPU {result['sim_cpu']:.1f} s)",
            "",
            "",
        ),
        ("  the product's road (without the simulator)", f"{product:.1f} s", f"{product_rate:.0f}/s", ""),
    ]
    for name, (wall, cpu, sim_wall, sim_cpu) in result["phases"].items():
        rows.append(
            (f"    {name}, without the simulator", f"{wall - sim_wall:.2f} s (CPU {cpu - sim_cpu:.2f} s)", "", "")
        )
    rows += [
        ("product's road / issuing (same run)", "", f"**{product_rate / issue_rate:.2f}x**", ">= 1"),
        ("road with the simulator / issuing", "", f"{road_rate / issue_rate:.2f}x", ""),
        (
            "CPU per receipt: issuing / the product's road",
            f"{issue_cpu_ms:.2f} / {road_cpu_ms:.2f} ms",
            f"{issue_cpu_ms / road_cpu_ms:.1f}x",
            ">= 1",
        ),
        ("first to last aceptado, without the simulator", f"{product:.1f} s", "", "<= 60 s at 10,000"),
        ("the hook's envelope-or-report decision (e-Ticket)", f"{decide:.3f} ms", "", ""),
    ]
    table = "\n".join(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows)
    section = (
        f"## Envíos a DGI\n\n`bench/bench_envios.py --receipts {args.receipts}` on {date.today()} ({machine()}; "
        f"load average {os.getloadavg()[0]:.1f}, shared machine: read the ratios).\n\n"
        f"| measure | time | rate | target |\n|---|---|---|---|\n{table}\n"
    )
    print(section)
    if args.write:
        text = args.write.read_text() if args.write.exists() else "# Performance\n"
        pattern = re.compile(r"## Envíos a DGI\n.*?(?=\n## |\Z)", re.S)
        text = pattern.sub(section.rstrip("\n"), text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
        args.write.write_text(text)
    return 0 if result["accepted"] == result["waiting"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
