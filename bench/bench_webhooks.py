"""Benchmark: does webhook fan-out keep up with issuing? Both run at once, in the same run, on this machine.

    .venv/bin/python bench/bench_webhooks.py [--seconds 20] [--clients 8] [--write FILE]

The service (werkzeug, threaded, in this process) issues e-Tickets for `--seconds` from `--clients` threads
over HTTP; each receipt publishes `comprobante.emitido` into the outbox in its issuing transaction. A worker
process (what `python -m portal.service worker` runs: fan_out + deliver_due) delivers them to one endpoint,
a receiver process on 127.0.0.1 that answers 200 to every POST (HTTP/1.1 keep-alive).

Figures: receipts issued per second; events delivered per second of the worker's busy time (its capacity:
what it delivers while it has work); their ratio (target >= 1: fan-out keeps up with issuing); and how long
after the last receipt the last event was delivered (the lag). Runs on a throwaway SQLite database.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import samples  # noqa: E402

DEBOUNCE = 0.5  # WEBHOOKS_DEBOUNCE_SECONDS' default
RECEIVER = """
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK wait
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"ok")
    def log_message(self, *a): pass
s = ThreadingHTTPServer(("127.0.0.1", 0), H); s.daemon_threads = True
print(s.server_address[1], flush=True); s.serve_forever()
"""


def worker(database_url: str, stop_file: str) -> None:
    """The delivering side: loop as the huey task does until `stop_file` exists and nothing is left."""
    from portal.service import create_app
    from portal.service.webhooks import delivery

    app = create_app({"DATABASE_URL": database_url, "JOBS_URL": "memory://", "WEBHOOKS_ALLOW_PRIVATE": True})
    delivered, busy, last = 0, 0.0, None
    with app.app_context():
        while True:
            started = time.perf_counter()
            created = delivery.fan_out()
            sent = delivery.deliver_due()
            if created or sent:
                busy += time.perf_counter() - started
                delivered += sent
                last = time.time() if sent else last
                continue
            if os.path.exists(stop_file) and not delivery.pending_events() and not delivery.due_deliveries():
                break
            time.sleep(DEBOUNCE)  # as in production: a run starts at most every WEBHOOKS_DEBOUNCE_SECONDS
    print(json.dumps({"delivered": delivered, "busy": busy, "last": last}), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--write", type=Path, default=None)
    parser.add_argument("--worker", nargs=2, metavar=("DATABASE_URL", "STOP_FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return 0

    workdir = samples.demo_environment("cfe-bench-webhooks-")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    logging.getLogger("portal.service.access").setLevel(logging.WARNING)
    from werkzeug.serving import make_server

    from portal.client import CfeClient
    from tests.conftest import mint_token
    from tests.support import cfe_bodies as bodies

    database_url = f"sqlite:///{workdir}/service.db"
    # The service's own wake-ups would only enqueue into memory://: the worker process polls instead.
    app, token = samples.demo_service(workdir, {"JOBS_URL": "memory://", "WEBHOOKS_ALLOW_PRIVATE": True})
    receiver = subprocess.Popen([sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, text=True)  # noqa: S603
    port = int(receiver.stdout.readline())
    admin = {"Authorization": f"Bearer {mint_token(app, 'admin@demo.uy')}", "X-Empresa-Id": "1"}
    created = app.test_client().post(
        "/api/v1/webhooks",
        json={"url": f"http://127.0.0.1:{port}/hook", "eventos": ["comprobante.emitido"]},
        headers=admin,
    )
    assert created.status_code == 201, created.json

    stop_file = os.path.join(workdir, "stop")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    worker_process = subprocess.Popen(  # noqa: S603 - this very script
        [sys.executable, __file__, "--worker", database_url, stop_file], stdout=subprocess.PIPE, text=True, env=env
    )
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    remote = CfeClient(f"http://127.0.0.1:{server.server_port}", read_timeout=60)
    time.sleep(1.0)  # the worker's app is built

    deadline = time.perf_counter() + args.seconds
    issued = [0] * args.clients

    def issue(slot: int) -> None:
        user = remote.as_user(token)
        while time.perf_counter() < deadline:
            user.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)
            issued[slot] += 1

    start = time.perf_counter()
    with ThreadPoolExecutor(args.clients) as pool:
        list(pool.map(issue, range(args.clients)))
    issuing_seconds = time.perf_counter() - start
    issuing_done = time.time()
    Path(stop_file).touch()
    outcome = json.loads(worker_process.communicate(timeout=600)[0].strip().splitlines()[-1])
    server.shutdown()
    receiver.terminate()

    receipts = sum(issued)
    issued_per_s = receipts / issuing_seconds
    delivered_per_s = outcome["delivered"] / outcome["busy"] if outcome["busy"] else 0.0
    lag = max(outcome["last"] - issuing_done, 0.0) if outcome["last"] else float("nan")
    ratio = delivered_per_s / issued_per_s if issued_per_s else 0.0
    report = "\n".join(
        [
            f"bench_webhooks.py --seconds {args.seconds:g} --clients {args.clients}",
            "",
            "| figure | value |",
            "|---|---|",
            f"| receipts issued (HTTP, {args.clients} connections) | {receipts} in {issuing_seconds:.1f} s: "
            f"**{issued_per_s:.0f}/s** |",
            f"| events delivered (one endpoint, signed, recorded) | {outcome['delivered']} in "
            f"{outcome['busy']:.1f} s of the worker's busy time: **{delivered_per_s:.0f}/s** |",
            f"| ratio delivered/s ÷ issued/s (target >= 1) | **{ratio:.2f}** "
            f"({'met' if ratio >= 1 and outcome['delivered'] == receipts else 'missed'}) |",
            f"| last event delivered after the last receipt | {lag:.2f} s |",
            f"| every receipt's event delivered | {outcome['delivered'] == receipts} |",
        ]
    )
    print(report)
    if args.write:
        args.write.write_text(report + "\n")
    return 0 if ratio >= 1 and outcome["delivered"] == receipts else 1


if __name__ == "__main__":
    sys.exit(main())
