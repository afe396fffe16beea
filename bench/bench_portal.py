"""Benchmark: the portal's receipt page against its anonymous landing page (a plain Jinja page), same servers.

    .venv/bin/python bench/bench_portal.py [--seconds 5] [--connections 32]

Starts the service and the portal as `make serve` does (gunicorn with deploy/'s settings) on throwaway SQLite
databases with the demo data, issues one receipt, signs in through the real identity provider, then keeps N
connections busy on each page in turn: `/` without a session (the landing page: base.html's layout, a few
translated strings; it stores no session), `/comprobantes/<id>` signed in (session, token, a call to the service,
the page), and a truly trivial Jinja page (a one-line template, `/bench/trivial`, added to the same portal app
by `bench_portal_app` below, for the bench only), and that trivial page after one call to the service's health
check through the backend client (`/bench/one-call`: the most any page that asks the service once can reach).
All through the same servers in the same run, so the ratios hold whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import loadgen  # noqa: E402
from bench.bench_emitir import PYTHON, machine, portal_environment, prepare, start_service, tree_cpu_seconds  # noqa: E402


def bench_portal_app():
    """The portal as deployed, plus one route that renders a trivial Jinja template (the issue's "trivial
    Jinja page"), so it runs in the same app, server and settings as the pages it is compared with."""
    from flask import render_template_string

    from portal.web import create_app

    app = create_app()

    @app.get("/bench/trivial")
    def trivial():
        return render_template_string("<!doctype html><title>{{ title }}</title><p>{{ text }}</p>", title="T", text="x")

    @app.get("/bench/one-call")
    def trivial_after_one_call():
        # The least a page that asks the service anything costs: one call through the backend client's pooled
        # transport (its headers, request id, log line, error mapping) to the service's health check.
        from portal.web.backend import service_client

        status = service_client().as_user()._json("GET", "/healthz")["status"]
        return render_template_string(
            "<!doctype html><title>{{ title }}</title><p>{{ text }}</p>", title="T", text=status
        )

    return app


def ticket(price: str = "122") -> dict:
    """The benches' e-Ticket: one line, prices with IVA."""
    return {
        "tipoCFE": 101,
        "fmaPago": 1,
        "mntBruto": True,
        "items": [{"indFact": 3, "nomItem": "Café", "cantidad": "2", "precioUnitario": price}],
    }


@dataclass
class Servers:
    """A service and a portal under gunicorn (deploy/'s settings) on throwaway SQLite databases, demo data."""

    workdir: Path
    service_url: str
    portal_url: str
    token: str  # usuario@demo.uy's, for the API
    service: subprocess.Popen
    portal: subprocess.Popen

    def issue(self, session, price: str = "122") -> str:
        """A new e-Ticket's id."""
        answer = session.post(
            f"{self.service_url}/api/v1/comprobante/emitir",
            timeout=30,
            headers={"Authorization": f"Bearer {self.token}"},
            json=ticket(price),
        )
        assert answer.status_code == 201, answer.text[:300]
        return answer.json()["idCfeEmitido"]

    def signed_in(self, email: str):
        """A browser (requests session) signed in to the portal through the real identity provider."""
        import requests

        from tests.support.oidc import provider_sign_in

        browser = requests.Session()
        start = browser.get(f"{self.portal_url}/auth/login", allow_redirects=False, timeout=10)
        answer = provider_sign_in(start.headers["Location"], email)
        callback = urlsplit(answer.headers["Location"])
        browser.get(f"{self.portal_url}{callback.path}?{callback.query}", allow_redirects=False, timeout=10)
        return browser

    def stop(self) -> None:
        for process in (self.portal, self.service):
            process.terminate()
            process.wait(timeout=30)
        shutil.rmtree(self.workdir, ignore_errors=True)


def start_servers(service_port: int, portal_port: int, portal_app: str) -> Servers:
    workdir = Path(tempfile.mkdtemp(prefix="cfe-bench-", dir=ROOT / "var" if (ROOT / "var").is_dir() else None))
    service_url, portal_url = f"http://127.0.0.1:{service_port}", f"http://127.0.0.1:{portal_port}"
    env = portal_environment(workdir, service_url, portal_url)
    token = prepare(env)
    subprocess.run(  # noqa: S603
        [
            PYTHON,
            "-c",
            "from portal.web.activity import upgrade; from portal.web.config import "
            "load_config; upgrade(load_config()['PORTAL_DATABASE_URL'])",
        ],
        env=env,
        check=True,
    )
    service = start_service(env, service_port, None, None, workdir / "service.log")
    portal = start_portal(env, portal_port, workdir / "portal.log", portal_app)
    return Servers(workdir, service_url, portal_url, token, service, portal)


def start_portal(env: dict[str, str], port: int, log: Path, app: str = "bench.bench_portal:bench_portal_app()"):
    import time

    command = [
        PYTHON,
        "-m",
        "gunicorn",
        "-c",
        str(ROOT / "deploy/gunicorn-portal.conf.py"),
        "-b",
        f"127.0.0.1:{port}",
        app,
    ]
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT)  # noqa: S603
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if loadgen.run(
                "127.0.0.1", port, lambda: loadgen.request_bytes("GET", "/", "b", {}), connections=1, seconds=0.01
            ).statuses.get(200):
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"the portal did not start; see {log}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--service-port", type=int, default=8116)
    parser.add_argument("--portal-port", type=int, default=8117)
    parser.add_argument(
        "--receipts",
        type=int,
        default=600,
        help="distinct receipts for the 'receipt, each one new' row: more than the portal keeps per process (256 "
        "per worker) so that every page is rendered, none served from the kept pages",
    )
    args = parser.parse_args()

    import requests

    load_before = os.getloadavg()
    servers = start_servers(args.service_port, args.portal_port, "bench.bench_portal:bench_portal_app()")
    portal, service, portal_url = servers.portal, servers.service, servers.portal_url
    try:
        issuer = requests.Session()
        receipt = {"idCfeEmitido": servers.issue(issuer)}
        others = [servers.issue(issuer) for _ in range(args.receipts)]
        browser = servers.signed_in("usuario@demo.uy")
        cookie = "; ".join(f"{c.name}={c.value}" for c in browser.cookies)
        page = f"/comprobantes/{receipt['idCfeEmitido']}"
        assert browser.get(portal_url + page, allow_redirects=False, timeout=10).status_code == 200

        host = f"127.0.0.1:{args.portal_port}"
        landing = loadgen.request_bytes("GET", "/", host, {})
        receipt_page = loadgen.request_bytes("GET", page, host, {"Cookie": cookie})
        trivial = loadgen.request_bytes("GET", "/bench/trivial", host, {})
        one_call = loadgen.request_bytes("GET", "/bench/one-call", host, {})
        new_pages = itertools.cycle(
            [loadgen.request_bytes("GET", f"/comprobantes/{rid}", host, {"Cookie": cookie}) for rid in others]
        )
        for path in ("/bench/trivial", "/bench/one-call"):
            assert browser.get(portal_url + path, timeout=10).status_code == 200
        results, cpu = {}, {}
        pages = (
            ("landing", landing),
            ("trivial", trivial),
            ("trivial + one service call", one_call),
            ("receipt", receipt_page),
            ("receipt, each one new", None),
            ("landing again", landing),
        )
        for name, request in pages:
            make = (lambda r=request: r) if request is not None else (lambda: next(new_pages))
            if request is not None:  # warm; the new receipts' row must not see its pages before it is measured
                loadgen.run("127.0.0.1", args.portal_port, make, connections=4, seconds=0.5)
            before = tree_cpu_seconds(portal.pid), tree_cpu_seconds(service.pid)
            results[name] = loadgen.run(
                "127.0.0.1", args.portal_port, make, connections=args.connections, seconds=args.seconds
            )
            # CPU seconds of each server over the run: which one is the bottleneck (the service is one process).
            cpu[name] = tree_cpu_seconds(portal.pid) - before[0], tree_cpu_seconds(service.pid) - before[1]
    finally:
        servers.stop()

    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nmachine: {machine()}; load average before the run: {' '.join(f'{x:.2f}' for x in load_before)}")
    print(f"load average after the run: {load_after}")
    print(
        f"{args.connections} connections, {args.seconds:.0f} s each; portal and service under gunicorn with "
        "deploy/'s settings\n"
    )
    print("| page | pages/s | p50 | p99 | non-200 | CPU ms per page: portal + service | cores busy: portal, service |")
    print("|---|---|---|---|---|---|---|")
    for name, outcome in results.items():
        other = {s: n for s, n in outcome.statuses.items() if s != 200}
        done = max(outcome.statuses.get(200, 0), 1)
        portal_cpu, service_cpu = cpu[name]
        print(
            f"| {name} | {outcome.statuses.get(200, 0) / outcome.seconds:,.0f} | {outcome.percentile(0.5):.1f} ms"
            f" | {outcome.percentile(0.99):.1f} ms | {other or 0} | {portal_cpu * 1000 / done:.2f} + "
            f"{service_cpu * 1000 / done:.2f} | {portal_cpu / outcome.seconds:.2f}, "
            f"{service_cpu / outcome.seconds:.2f} |"
        )
    landing_rate = (
        results["landing"].statuses.get(200, 0) / results["landing"].seconds
        + results["landing again"].statuses.get(200, 0) / results["landing again"].seconds
    ) / 2
    receipt_rate = results["receipt"].statuses.get(200, 0) / results["receipt"].seconds
    trivial_rate = results["trivial"].statuses.get(200, 0) / results["trivial"].seconds
    one_call = results["trivial + one service call"]
    one_call_rate = one_call.statuses.get(200, 0) / one_call.seconds
    floor_cpu = sum(cpu["trivial + one service call"]) / max(one_call.statuses.get(200, 0), 1)
    for name in ("receipt", "receipt, each one new"):
        outcome = results[name]
        rate = outcome.statuses.get(200, 0) / outcome.seconds
        page_cpu = sum(cpu[name]) / max(outcome.statuses.get(200, 0), 1)
        print(
            f"{name} / trivial page after one service call (target: at least 60%): {rate / one_call_rate:.0%} by "
            f"rate, {floor_cpu / page_cpu:.0%} by CPU (portal + service)"
        )
    print(f"\nreceipt page / landing page: {receipt_rate / landing_rate:.0%}")
    print(f"receipt page / trivial Jinja page: {receipt_rate / trivial_rate:.0%} (target: at least 30%)")
    print(
        f"trivial page after one service call / trivial Jinja page: {one_call_rate / trivial_rate:.0%} (the most a "
        "page that asks the service once can reach)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
