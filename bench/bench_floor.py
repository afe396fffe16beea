"""Benchmark: the most requests per second the service's stack gives any endpoint, against issuing, same run.

    .venv/bin/python bench/bench_floor.py [--seconds 5] [--connections 32]

Issue #13 asks for 1,000 issued receipts/s on 2 cores, load generator included. Before anything an issue
does (numbering, XML, signature, XSD, storage), a request costs what the server, the web framework and the
service's own request handling cost. This measures that floor with the servers `make serve` runs (gunicorn
with deploy/gunicorn.conf.py) on throwaway SQLite data, one service process and then one per core, each row
through the same load generator (bench/loadgen.py) with N connections:

- `bare Flask`: a Flask app with one route that parses the e-Ticket's JSON body and answers 201 with a small
  JSON. gunicorn and Flask alone; no service code.
- `service, no-op`: the same route added to the service's app, so the service's per-request work runs around
  it (request id, access log, security headers, the JSON error shape), but no authentication and no database.
- `service, /healthz`: the service's health check, one `SELECT 1` through a database session.
- `service, issue`: `POST /api/v1/comprobante/emitir`, as bench_emitir.py sends it.

With raw RSA-2048 signing in the same run, as bench_emitir.py prints it. The CPU columns come from /proc, the
server's and this process's (the load generator's), so they hold on a busy machine where the rates swing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import loadgen, samples  # noqa: E402
from bench.bench_emitir import (  # noqa: E402
    environment,
    issue_request_factory,
    machine,
    prepare,
    raw_rsa_signs_per_second,
    start_service,
    tree_cpu_seconds,
)

NOOP_PATH = "/bench/noop"


def _add_noop_route(app):
    from flask import jsonify, request

    @app.post(NOOP_PATH)
    def noop():
        body = request.get_json()
        return jsonify({"items": len(body["items"])}), 201

    return app


def bare_flask_app():
    """gunicorn's and Flask's own cost: the no-op route and a health check, nothing of the service."""
    from flask import Flask

    app = _add_noop_route(Flask("bench_floor"))
    app.get("/healthz")(lambda: "ok")
    return app


def service_app_with_noop():
    """The service as deployed, plus the no-op route (for the bench only)."""
    from portal.service import create_app

    return _add_noop_route(create_app())


def _measure(port: int, make, connections: int, seconds: float, server_pid: int):
    loadgen.run("127.0.0.1", port, make, connections=4, seconds=0.5)  # warm-up
    generator_before, server_before = os.times(), tree_cpu_seconds(server_pid)
    outcome = loadgen.run("127.0.0.1", port, make, connections=connections, seconds=seconds)
    generator_after, server_after = os.times(), tree_cpu_seconds(server_pid)
    generator = (generator_after.user - generator_before.user) + (generator_after.system - generator_before.system)
    return outcome, server_after - server_before, generator


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--port", type=int, default=8118)
    args = parser.parse_args()

    load_before = os.getloadavg()
    workdir = Path(tempfile.mkdtemp(prefix="cfe-bench-", dir=ROOT / "var" if (ROOT / "var").is_dir() else None))
    env = environment(workdir, f"sqlite:///{workdir / 'service.db'}")
    token = prepare(env)
    rsa = raw_rsa_signs_per_second(os.cpu_count() or 1)
    host = f"127.0.0.1:{args.port}"
    json_headers = {"Content-Type": "application/json"}
    noop = loadgen.request_bytes("POST", NOOP_PATH, host, json_headers, samples.TWO_LINE_ETICKET_BODY)
    health = loadgen.request_bytes("GET", "/healthz", host, {})
    cases = (
        ("bare Flask", "bench.bench_floor:bare_flask_app()", lambda: noop),
        ("service, no-op", "bench.bench_floor:service_app_with_noop()", lambda: noop),
        ("service, /healthz", "bench.bench_floor:service_app_with_noop()", lambda: health),
        ("service, issue", "portal.service:create_app()", issue_request_factory(args.port, token)),
    )
    rows = []
    try:
        for workers in sorted({1, os.cpu_count() or 1}):
            for name, app, make in cases:
                log = workdir / f"{name.replace(' ', '_').replace(',', '').replace('/', '')}-{workers}.log"
                server = start_service(env, args.port, workers, None, log, app=app)
                try:
                    outcome, server_cpu, generator_cpu = _measure(
                        args.port, make, args.connections, args.seconds, server.pid
                    )
                finally:
                    server.terminate()
                    server.wait(timeout=30)
                rows.append((name, workers, outcome, server_cpu, generator_cpu))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    cores = os.cpu_count() or 1
    print(f"\nmachine: {machine()}; load average before the run: {' '.join(f'{x:.2f}' for x in load_before)}")
    print(f"load average after the run: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"raw RSA-2048 signing, openssl speed -multi {cores}: {rsa:,.0f} signs/s")
    print(f"{args.connections} connections, {args.seconds:.0f} s each, gunicorn with deploy/'s settings\n")
    print(
        "| endpoint | service processes | requests/s | p50 | p99 | non-2xx | CPU ms per request: server + load "
        f"generator | requests/s {cores} idle cores could give |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, workers, outcome, server_cpu, generator_cpu in rows:
        done = max(outcome.ok, 1)
        errors = {s: n for s, n in outcome.statuses.items() if not 200 <= s < 300}
        per_request = (server_cpu + generator_cpu) * 1000 / done
        print(
            f"| {name} | {workers} | {outcome.ok / outcome.seconds:,.0f} | {outcome.percentile(0.5):.1f} ms | "
            f"{outcome.percentile(0.99):.1f} ms | {errors or 0} | {server_cpu * 1000 / done:.2f} + "
            f"{generator_cpu * 1000 / done:.2f} | {cores * 1000 / per_request:,.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
