"""Benchmark: how fast the service signs, renders and issues receipts, and how much memory it holds.

    .venv/bin/python bench/bench_issue.py [--receipts 300] [--write FILE]

Runs on a throwaway SQLite database with the demo data; nothing touches var/. Targets (2-core machine):
  - build_signed_cfe (rules, totals, XML, XMLDSig, XSD check), 10 lines: p95 < 10 ms
  - PDF of a signed 10-line receipt: p95 < 50 ms
  - POST emitir in-process (auth, numbering, signing, storing, idempotency): p95 < 100 ms
  - 8 concurrent clients over HTTP: >= 40 receipts/s, numbers gapless
  - peak RSS after all of the above: < 400 MB
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import samples  # noqa: E402

TARGETS = {"sign_p95_ms": 10, "pdf_p95_ms": 50, "emitir_p95_ms": 100, "concurrent_per_s": 40, "rss_mb": 400}


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def _timed(fn, count: int) -> list[float]:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--receipts", type=int, default=300)
    parser.add_argument("--write", type=Path, default=None, help="Markdown file to write the results to")
    args = parser.parse_args()
    workdir = samples.demo_environment("cfe-bench-")

    from werkzeug.serving import make_server

    from portal.client import CfeClient
    from portal.service.cfe import build_signed_cfe, render_signed_pdf
    from portal.service.cfe.signing import CfeSigner
    from portal.service.platform.certificates import generate_self_signed
    from tests.support import cfe_bodies as bodies

    cfe, issuer, numbering = samples.ten_line_eticket(), samples.demo_issuer(), samples.numbering()
    signer = CfeSigner(*generate_self_signed("219999830019", "bench"))
    from decimal import Decimal

    signed = build_signed_cfe(cfe, issuer, numbering, signer, ui_value=Decimal("6.1642"))
    sign_ms = _timed(lambda: build_signed_cfe(cfe, issuer, numbering, signer, ui_value=Decimal("6.1642")), 300)
    pdf_ms = _timed(lambda: render_signed_pdf(cfe, issuer, numbering, signed), 100)

    app, token = samples.demo_service(workdir)
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}

    def emitir():
        answer = client.post(
            "/api/v1/comprobante/emitir",
            json=bodies.body(bodies.ETICKET),
            headers={**headers, "Idempotency-Key": uuid.uuid4().hex},
        )
        assert answer.status_code == 201, answer.json

    emitir_ms = _timed(emitir, args.receipts)

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    remote = CfeClient(f"http://127.0.0.1:{server.server_port}", read_timeout=60)
    before = args.receipts

    def remote_issue(_):
        return remote.as_user(token).issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex).nro

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=8) as pool:
        numbers = list(pool.map(remote_issue, range(args.receipts)))
    elapsed = time.perf_counter() - start
    server.shutdown()
    gapless = sorted(numbers) == list(range(before + 1, before + args.receipts + 1))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    results = {
        "sign_p50_ms": statistics.median(sign_ms),
        "sign_p95_ms": _percentile(sign_ms, 0.95),
        "pdf_p50_ms": statistics.median(pdf_ms),
        "pdf_p95_ms": _percentile(pdf_ms, 0.95),
        "emitir_p50_ms": statistics.median(emitir_ms),
        "emitir_p95_ms": _percentile(emitir_ms, 0.95),
        "concurrent_per_s": args.receipts / elapsed,
        "rss_mb": rss_mb,
    }
    passed = {
        "sign_p95_ms": results["sign_p95_ms"] < TARGETS["sign_p95_ms"],
        "pdf_p95_ms": results["pdf_p95_ms"] < TARGETS["pdf_p95_ms"],
        "emitir_p95_ms": results["emitir_p95_ms"] < TARGETS["emitir_p95_ms"],
        "concurrent_per_s": results["concurrent_per_s"] >= TARGETS["concurrent_per_s"] and gapless,
        "rss_mb": results["rss_mb"] < TARGETS["rss_mb"],
    }
    report = _report(args.receipts, results, passed, gapless)
    print(report)
    if args.write:
        args.write.write_text(report)
    return 0 if all(passed.values()) else 1


def _report(receipts: int, r: dict, passed: dict, gapless: bool) -> str:
    mark = {True: "met", False: "**missed**"}
    rows = [
        (
            "build_signed_cfe, 10 lines (rules, totals, XML, XMLDSig RSA-SHA256, XSD check)",
            f"{r['sign_p50_ms']:.2f} ms",
            f"{r['sign_p95_ms']:.2f} ms",
            f"p95 < {TARGETS['sign_p95_ms']} ms",
            passed["sign_p95_ms"],
        ),
        (
            "PDF of a signed 10-line receipt (fpdf2, QR)",
            f"{r['pdf_p50_ms']:.1f} ms",
            f"{r['pdf_p95_ms']:.1f} ms",
            f"p95 < {TARGETS['pdf_p95_ms']} ms",
            passed["pdf_p95_ms"],
        ),
        (
            f"POST /api/v1/comprobante/emitir in-process, {receipts} receipts",
            f"{r['emitir_p50_ms']:.1f} ms",
            f"{r['emitir_p95_ms']:.1f} ms",
            f"p95 < {TARGETS['emitir_p95_ms']} ms",
            passed["emitir_p95_ms"],
        ),
        (
            f"8 concurrent HTTP clients, {receipts} receipts (gapless: {gapless})",
            "",
            f"{r['concurrent_per_s']:.0f} receipts/s",
            f">= {TARGETS['concurrent_per_s']}/s",
            passed["concurrent_per_s"],
        ),
        (
            "peak RSS of the process after all of the above",
            "",
            f"{r['rss_mb']:.0f} MB",
            f"< {TARGETS['rss_mb']} MB",
            passed["rss_mb"],
        ),
    ]
    table = "\n".join(f"| {name} | {p50} | {value} | {target} | {mark[ok]} |" for name, p50, value, target, ok in rows)
    return f"""# Performance

Measured by `bench/bench_issue.py` on {datetime.now(UTC):%Y-%m-%d} ({platform.machine()}, {os.cpu_count()} cores,
Python {platform.python_version()}, SQLite). The other benchmarks and their results: docs/PERFORMANCE.md.

| measure | p50 | p95 / value | target | |
|---|---|---|---|---|
{table}

Notes:
- Issuing holds SQLite's write lock (BEGIN IMMEDIATE) while it numbers, signs and stores, so concurrent
  issuers queue; that is what keeps numbering gapless. On PostgreSQL the counter row is locked instead.
- The PDF is rendered on demand from the stored snapshots, not at issue time, so it does not slow issuing.
"""


if __name__ == "__main__":
    sys.exit(main())
