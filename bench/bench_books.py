"""Benchmark: the IVA sales book (GET /api/v1/informes/ventas) of one month with 10,000 and 100,000 receipts.

    .venv/bin/python bench/bench_books.py [--receipts 100000] [--database-url postgresql+psycopg://...]

One e-Factura is issued for real, then its row is copied in bulk into the current month with varied types
(e-Tickets, e-Facturas, credit notes), currencies and DGI states. The whole book is then asked through the
endpoint in-process and read to its last byte, as CSV, JSON and XLSX, first with a tenth of the receipts and then
with all of them, so the figures compare in the same run:
- time: target under 2 s for 100,000 receipts (CSV and JSON); beside it the floor, the book's own SELECT with
  every row fetched and nothing computed or written, and the ratio of the two (on a shared, loaded machine the
  ratio and this process's CPU seconds say more than the wall clock; on PostgreSQL the server's share of the
  work is in the wall clock only);
- memory: Python's peak allocation while the book streams (tracemalloc), which must stay flat as rows grow
  (the ratio of 100,000 to 10,000 near 1, not 10).
With --database-url (an empty PostgreSQL database) the same runs on PostgreSQL.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import samples  # noqa: E402

TARGET_S = 2.0


def _service(database_url: str | None):
    workdir = samples.demo_environment("cfe-bench-books-")
    if database_url is None:
        return samples.demo_service(workdir)
    from portal.service import create_app
    from portal.service.migrations import upgrade
    from portal.service.seed import seed_demo
    from tests.conftest import mint_token

    upgrade(database_url)
    app = create_app({"DATABASE_URL": database_url})
    with app.app_context():
        list(seed_demo())
    return app, mint_token(app, "usuario@demo.uy")


def _fill(app, start: int, count: int) -> None:
    """Copies the company's one e-Factura `count` times into this month (ids from `start`)."""
    from sqlalchemy import insert, select

    from portal.domain.uruguay_time import today_montevideo
    from portal.service.comprobante.models import IssuedCfe
    from portal.service.platform import db

    rng = random.Random(start)
    today = today_montevideo()
    with app.app_context():
        template = db.session().scalar(select(IssuedCfe).order_by(IssuedCfe.created_at))
        columns = {c.name: getattr(template, c.key) for c in IssuedCfe.__table__.columns}
        columns["xml"] = template.xml[:1500]  # the book never reads it
        rows = []
        for i in range(start, start + count):
            tipo = rng.choice((101, 101, 111, 111, 111, 112))
            dollars = rng.random() < 0.1
            rows.append(
                {
                    **columns,
                    "id": f"book{i:028d}",
                    "tipo_cfe": tipo,
                    "nro": 1_000_000 + i,
                    "fch_emis": today.replace(day=1 + i % today.day),
                    "tpo_moneda": "USD" if dollars else "UYU",
                    "input_json": {**columns["input_json"], **({"tpoCambio": "39.875"} if dollars else {})},
                    "dgi_status": "rechazado" if rng.random() < 0.002 else "aceptado",
                    "request_id": None,
                    "idempotency_key": None,
                }
            )
        with db.write_transaction() as session:
            for chunk in range(0, count, 10_000):
                session.execute(insert(IssuedCfe), rows[chunk : chunk + 10_000])


def _period() -> dict[str, str]:
    from portal.domain.uruguay_time import today_montevideo

    today = today_montevideo()
    return {"desde": today.replace(day=1).isoformat(), "hasta": today.isoformat()}


def _read(client, headers, formato: str) -> int:
    answer = client.get("/api/v1/informes/ventas", query_string={**_period(), "formato": formato}, headers=headers)
    assert answer.status_code == 200, answer.status_code
    size = sum(len(chunk) for chunk in answer.response)
    answer.close()
    return size


def _book(client, headers, formato: str) -> tuple[float, float, float, int]:
    """Seconds to the last byte and this process's CPU seconds (best of two each), Python's peak MB while
    streaming (a third read, under tracemalloc, which slows it), and the body's size."""
    times, cpu = [], []
    for _ in range(2):
        start, start_cpu = time.perf_counter(), time.process_time()
        size = _read(client, headers, formato)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    tracemalloc.start()
    _read(client, headers, formato)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return min(times), min(cpu), peak, size


def _floor(app) -> tuple[float, float]:
    """The book's own SELECT for the month (informes.ventas.book_statement), every row fetched, nothing computed
    or written: what reading the rows costs, so the book's time over it is the per-row work of the book."""
    from sqlalchemy import select

    from portal.domain.uruguay_time import today_montevideo
    from portal.service.comprobante.models import IssuedCfe
    from portal.service.informes.ventas import book_statement
    from portal.service.platform import db

    today = today_montevideo()
    with app.app_context():
        session = db.new_session()
        company = session.scalar(select(IssuedCfe.company_id).limit(1))
        start, start_cpu = time.perf_counter(), time.process_time()
        connection = session.connection()
        statement, _texts = book_statement(connection.dialect.name, company, today.replace(day=1), today)
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql("SET LOCAL work_mem = '64MB'")
        for _row in connection.execute(statement):
            pass
        seconds, cpu = time.perf_counter() - start, time.process_time() - start_cpu
        session.close()
    return seconds, cpu


def _floors(app) -> tuple[float, float, float, int]:
    """The floor's best of two, in the shape of _book's answer."""
    first, second = _floor(app), _floor(app)
    return min(first[0], second[0]), min(first[1], second[1]), 0.0, 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--receipts", type=int, default=100_000)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--formats", default="csv,json,xlsx", help="which files to time (xlsx is the slow one)")
    args = parser.parse_args()
    app, token = _service(args.database_url)
    from tests.support import cfe_bodies as bodies

    headers = {"Authorization": f"Bearer {token}"}
    client = app.test_client()
    issued = client.post("/api/v1/comprobante/emitir", json=bodies.body(bodies.EFACTURA), headers=headers)
    assert issued.status_code == 201, issued.json
    small = args.receipts // 10
    results = {}
    _fill(app, 0, small)
    formats = tuple(args.formats.split(","))
    results[small] = {fmt: _book(client, headers, fmt) for fmt in formats}
    results[small]["floor"] = _floors(app)
    _fill(app, small, args.receipts - small)
    results[args.receipts] = {fmt: _book(client, headers, fmt) for fmt in formats}
    results[args.receipts]["floor"] = _floors(app)
    engine = "PostgreSQL" if args.database_url else "SQLite"
    print(
        f"Sales book of one month (bench/bench_books.py, {datetime.now(UTC):%Y-%m-%d}, {platform.machine()}, "
        f"{os.cpu_count()} cores, {engine}). Target: under {TARGET_S:.0f} s for {args.receipts:,}; memory flat."
    )
    print(
        "| receipts | format | seconds | floor s (its SELECT) | ratio | CPU s | floor CPU s | CPU ratio "
        "| peak Python MB | body MB |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for count, by_format in results.items():
        floor, floor_cpu = by_format["floor"][:2]
        for fmt in formats:
            seconds, cpu, peak, size = by_format[fmt]
            print(
                f"| {count:,} | {fmt} | {seconds:.2f} | {floor:.2f} | {seconds / floor:.1f} | {cpu:.2f} "
                f"| {floor_cpu:.2f} | {cpu / floor_cpu:.1f} | {peak:.1f} | {size / 1e6:.1f} |"
            )
    for fmt in formats:
        ratio = results[args.receipts][fmt][2] / results[small][fmt][2]
        print(f"Peak memory {args.receipts:,} / {small:,} receipts, {fmt}: {ratio:.2f}x (rows grew 10x)")
    big = results[args.receipts]
    return 0 if big["csv"][0] < TARGET_S and big["json"][0] < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
