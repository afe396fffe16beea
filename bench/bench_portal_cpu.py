"""Benchmark: CPU time per page of the portal's receipt page, the portal and the service apart, in-process.

    .venv/bin/python bench/bench_portal_cpu.py [--pages 300] [--profile receipt|service] [--html FILE]

The wall-clock bench (bench_portal.py) swings with whatever else the shared machine runs; CPU time per page
does much less. The service runs under gunicorn with deploy/'s settings (its CPU read from /proc); the portal
runs in this process (its CPU from `time.process_time`), signed in through the real identity provider, and
renders each page through Flask's test client. `--profile receipt` prints cProfile's view of the portal's
receipt page, `--profile service` the service's getByIdCfeEmitido (in-process, its own test client);
`--html FILE` saves one receipt page (to diff before and after a change). CPU time on this shared
machine still swings with the load (the landing page, the same code in every run, varied by half), so each
page is timed in batches and the least batch is the figure to compare.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402

from bench.bench_emitir import portal_environment, prepare, start_service, tree_cpu_seconds  # noqa: E402


def _timed(client, path: str, pages: int, service_pid: int, batches: int) -> list[tuple[float, float]]:
    """CPU ms per page, (this process, the service), for each of `batches` batches of `pages` pages."""
    for _ in range(20):
        assert client.get(path).status_code == 200
    results = []
    for _ in range(batches):
        portal_start, service_start = time.process_time(), tree_cpu_seconds(service_pid)
        for _ in range(pages):
            client.get(path)
        portal, service = time.process_time() - portal_start, tree_cpu_seconds(service_pid) - service_start
        results.append((portal * 1000 / pages, service * 1000 / pages))
    return results


def _profile(call, pages: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(pages):
        call()
    profiler.disable()
    if os.environ.get("BENCH_PROFILE_FILE"):
        profiler.dump_stats(os.environ["BENCH_PROFILE_FILE"])
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(60)
    stats.sort_stats("tottime").print_stats(40)
    return out.getvalue()


@dataclass
class Setup:
    """A service under gunicorn and a portal app in this process, signed in, with one issued receipt."""

    service: subprocess.Popen
    service_url: str
    token: str
    receipt_id: str
    portal: Flask
    signed_in: FlaskClient

    @property
    def page(self) -> str:
        return f"/comprobantes/{self.receipt_id}"


@contextmanager
def running(service_port: int = 8118, portal_host: str = "127.0.0.1:8119") -> Iterator[Setup]:
    import requests

    from tests.support.cfe_bodies import EFACTURA
    from tests.support.oidc import sign_in_portal_client

    workdir = Path(tempfile.mkdtemp(prefix="cfe-bench-", dir=ROOT / "var" if (ROOT / "var").is_dir() else None))
    service_url = f"http://127.0.0.1:{service_port}"
    env = portal_environment(workdir, service_url, f"http://{portal_host}")
    token = prepare(env)
    os.environ.update(env)
    from portal.web import activity
    from portal.web import create_app as create_portal

    activity.upgrade(env["PORTAL_DATABASE_URL"])
    service = start_service(env, service_port, None, None, workdir / "service.log")
    try:
        receipt = requests.post(
            f"{service_url}/api/v1/comprobante/emitir",
            timeout=30,
            headers={"Authorization": f"Bearer {token}"},
            json=EFACTURA,
        ).json()
        assert "idCfeEmitido" in receipt, receipt
        portal = create_portal({"SERVER_NAME": portal_host})
        client = portal.test_client()
        sign_in_portal_client(client, service_url, "usuario@demo.uy")
        yield Setup(service, service_url, token, receipt["idCfeEmitido"], portal, client)
    finally:
        service.terminate()
        service.wait(timeout=30)
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100, help="pages per batch")
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--service-port", type=int, default=8118)
    parser.add_argument("--profile", choices=("receipt", "service"))
    parser.add_argument("--html", type=Path, help="save one receipt page here")
    args = parser.parse_args()

    load_before = os.getloadavg()
    with running(args.service_port) as setup:
        client, page = setup.signed_in, setup.page
        if args.html:
            args.html.write_bytes(client.get(page).data)
        if args.profile == "service":
            from portal.service import create_app as create_service

            api = create_service().test_client()
            headers = {"Authorization": f"Bearer {setup.token}"}
            path = f"/api/v1/comprobante/getByIdCfeEmitido?idCfeEmitido={setup.receipt_id}"
            for _ in range(20):
                assert api.get(path, headers=headers).status_code == 200
            print(_profile(lambda: api.get(path, headers=headers), args.pages))
            return 0
        if args.profile == "receipt":
            for _ in range(20):
                client.get(page)
            print(_profile(lambda: client.get(page), args.pages))
            return 0
        results = {
            "landing page (anonymous)": _timed(
                setup.portal.test_client(), "/", args.pages, setup.service.pid, args.batches
            ),
            "receipt page": _timed(client, page, args.pages, setup.service.pid, args.batches),
        }

    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average before the run: {' '.join(f'{x:.2f}' for x in load_before)}, after: {load_after}")
    print(f"{args.batches} batches of {args.pages} pages each; CPU ms per page, least and median of the batches\n")
    print("| page | portal, least | service, least | total, least | total, median |")
    print("|---|---|---|---|---|")
    for name, batches in results.items():
        totals = sorted(portal + service for portal, service in batches)
        portal, service = min(p for p, _s in batches), min(s for _p, s in batches)
        print(f"| {name} | {portal:.2f} | {service:.2f} | {totals[0]:.2f} | {statistics.median(totals):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
