"""A database of 1,000,000 receipts for the "data grows, cost does not" benches (issue 31, target 6).

    .venv/bin/python bench/bigdata.py generate [--database-url URL] [--receipts 1000000] [--only-report-day]

Generated once into var/bigdata/ (git-ignored) and reused by bench/bench_bigdata.py: the default URL is a SQLite
file there; a PostgreSQL URL must name an empty database (a throwaway cluster, see docs/PERFORMANCE.md). The
demo data is seeded and one e-Factura issued through the API; its row is the template every generated receipt
copies (nothing is signed a million times). Then, straight into the tables (indexes dropped during the load and
built again after it, as a restore would; SQLite by executemany, PostgreSQL by COPY):

- 50 companies: the demo company is the big one (60% of the receipts), 48 others share 30%; a 50th, "the busy
  day" company, issued 100,000 e-Tickets below the UI threshold on one day (10%), waiting for the daily report;
- dates over two years, more recent months busier; e-Tickets 60%, e-Facturas 32%, credit notes 7%, debit notes
  1%; numbers gapless per company and type in date order; 8% in dollars; 0.2% rejected by DGI, the last two
  days' receipts still on their way, the rest accepted;
- receivers: 4,000 per company, names made of a word list's words, RUTs of 12 digits, a third of e-Tickets
  without one.

`--only-report-day` generates the busy day alone (the 50 companies, the 50th's 100,000 e-Tickets and their
DGI records: about a minute) for `bench_bigdata.py report`, rather than the whole million (7-9 minutes).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


VAR = ROOT / "var" / "bigdata"
DEFAULT_URL = f"sqlite:///{VAR}/service.db"
COMPANIES = 50
BIG_SHARE, BUSY_DAY_SHARE = 0.6, 0.1
DAYS = 730
WORDS = (
    "Ferretería Almacén Farmacia Panadería Estudio Distribuidora Transportes Ñandú Librería Constructora Óptica "
    "Carnicería Barraca Taller Vivero Bazar Mueblería Imprenta Lavadero Tienda Agencia Clínica Hotel Bodega "
    "Consultora Inmobiliaria Cooperativa Frigorífico Textil Metalúrgica Papelera Molino Laboratorio Droguería "
    "Pocitos Prado Cordón Malvín Teja Unión Centro Norte Oriental Carrasco Buceo Aguada Cerro Goes Sayago "
    "Arapey Yaguarón Tacuarembó Durazno Colonia Maldonado Rocha Minas Salto Paysandú Rivera Artigas Florida "
    "Rodríguez González Fernández Pérez Martínez Silva Sosa Olivera Cabrera Suárez Núñez Acosta Méndez"
).split()
SUFFIXES = ("S.A.", "S.R.L.", "Ltda.", "", "", "")
TYPES = ((101, 0.60), (111, 0.32), (102, 0.04), (112, 0.03), (113, 0.01))


def environment() -> str:
    """var/bigdata's own var dir and secrets (kept, so the signing keys stay the ones the data was made with)."""
    VAR.mkdir(parents=True, exist_ok=True)
    os.environ["CFE_VAR_DIR"] = str(VAR)
    os.environ["CFE_SECRETS_DIR"] = str(VAR / "secrets")
    if not (ROOT.parent / "shared/domain/dgi-xsd").is_dir():  # a worktree sits one level deeper
        os.environ.setdefault("CFE_DOMAIN_DIR", str(ROOT.parent.parent / "shared/domain"))
    from portal.devsecrets import ensure_secrets

    ensure_secrets()
    return str(VAR)


def service(url: str):
    """The service app on `url` (already generated) and usuario@demo.uy's token."""
    environment()
    from portal.service import create_app
    from tests.conftest import mint_token

    app = create_app({"DATABASE_URL": url})
    return app, mint_token(app, "usuario@demo.uy")


def _receivers(rng: random.Random, company: int) -> list[tuple[str, str]]:
    people = []
    for i in range(4000):
        words = rng.sample(WORDS, rng.choice((1, 2, 2, 3)))
        name = " ".join([*words, rng.choice(SUFFIXES)]).strip()
        people.append((f"21{rng.randrange(10**9, 10**10)}", f"{name} {company}-{i}"))
    return people


def _day(rng: random.Random, today: date) -> date:
    # More recent days are busier: the density grows linearly over the two years.
    return today - timedelta(days=int(DAYS * (1 - (rng.random() ** 0.5))))


def _rows(
    template: dict, company_ids: list[int], busy: int, count: int, today: date, only_report_day: bool = False
) -> Iterator[list[dict]]:
    """Chunks of generated rows: the big company, then the others, then the busy day (alone when
    `only_report_day`, with `count` * 10% e-Tickets, as in the whole data)."""
    rng = random.Random(31)
    big, others = company_ids[0], company_ids[1:]
    plan = [(big, int(count * BIG_SHARE))]
    rest = count - plan[0][1] - int(count * BUSY_DAY_SHARE)
    plan += [(company, rest // len(others)) for company in others]
    if only_report_day:
        plan = []
    serial = 0
    for company, how_many in plan:
        receivers = _receivers(rng, company)
        days = sorted(_day(rng, today) for _ in range(how_many))
        numbers = {tipo: 1 for tipo, _w in TYPES}  # the template e-Factura is A-1
        chunk = []
        for day in days:
            tipo = rng.choices([t for t, _ in TYPES], [w for _, w in TYPES])[0]
            numbers[tipo] = numbers.get(tipo, 0) + 1
            doc, name = rng.choice(receivers) if tipo != 101 or rng.random() > 0.33 else (None, None)
            recent = (today - day).days < 2
            state = "rechazado" if rng.random() < 0.002 else ("pendiente" if recent else "aceptado")
            chunk.append(_row(template, serial, company, tipo, numbers[tipo], day, rng, doc, name, state))
            serial += 1
            chunk = yield from _full(chunk)
        if chunk:
            yield chunk
    busy_count = int(count * BUSY_DAY_SHARE) if only_report_day else count - serial
    chunk = []
    for nro in range(2, busy_count + 2):
        chunk.append(
            _row(template, serial, busy, 101, nro, today - timedelta(days=1), rng, None, None, "pendiente_reporte")
        )
        serial += 1
        chunk = yield from _full(chunk)
    if chunk:
        yield chunk


def _full(chunk: list[dict]) -> Iterator[list[dict]]:
    """Yields `chunk` when it holds 20,000 rows; returns the chunk to go on filling (a new one after a yield)."""
    if len(chunk) < 20_000:
        return chunk
    yield chunk
    return []


def _row(template, serial, company, tipo, nro, day, rng, doc, name, state) -> dict:
    from portal.service.comprobante.search import folded

    amount = round(rng.lognormvariate(7.5, 1.4), 2) if tipo != 101 else round(rng.lognormvariate(6.5, 1.0), 2)
    moment = datetime(day.year, day.month, day.day, 13, tzinfo=UTC) + timedelta(seconds=serial % 36_000)
    return {
        **template,
        "id": f"big{serial:030d}",
        "company_id": company,
        "tipo_cfe": tipo,
        "nro": nro,
        "fch_emis": day,
        "tmst_firma": moment,
        "created_at": moment,
        "tpo_moneda": "USD" if tipo != 101 and rng.random() < 0.08 else "UYU",
        "mnt_total": amount,
        "mnt_pagar": amount,
        "totals_json": {**template["totals_json"], "mntTotal": str(amount), "mntNetoIVATasaBasica": str(amount)},
        "mnt_neto_iva_tasa_basica": amount,  # the book's column of the same amount (migration 0240)
        "receptor_doc": doc,
        "receptor_nombre": name,
        "receptor_busqueda": folded(name),
        "dgi_status": state,
        "request_id": f"req-{serial:024d}",
        "idempotency_key": f"key-{serial}",
    }


def generate(url: str, count: int, only_report_day: bool = False) -> None:
    from sqlalchemy import create_engine, insert, select, text

    from portal.service import create_app
    from portal.service.comprobante.models import IssuedCfe
    from portal.service.comprobante.search import remember_receiver
    from portal.service.envios.models import DgiSubmission
    from portal.service.migrations import upgrade
    from portal.service.platform import db
    from portal.service.platform.models import Company
    from portal.service.seed import seed_demo
    from tests.conftest import mint_token
    from tests.support import cfe_bodies as bodies

    environment()
    upgrade(url)
    app = create_app({"DATABASE_URL": url})
    with app.app_context():
        list(seed_demo())
    headers = {"Authorization": f"Bearer {mint_token(app, 'usuario@demo.uy')}"}
    issued = app.test_client().post("/api/v1/comprobante/emitir", json=bodies.body(bodies.EFACTURA), headers=headers)
    assert issued.status_code == 201, issued.json
    started = time.perf_counter()
    with app.app_context():
        with db.write_transaction() as session:
            demo = session.scalar(select(Company).where(Company.rut == "219999830019"))
            template_row = session.scalar(select(IssuedCfe))
            template = {c.name: getattr(template_row, c.key) for c in IssuedCfe.__table__.columns}
            template["xml"] = template_row.xml[:600]  # never read by the list, the export or the report
            company_row = {c.name: getattr(demo, c.key) for c in Company.__table__.columns}
            ids = [demo.id]
            for n in range(1, COMPANIES):
                row = {**company_row, "id": None, "rut": f"21{n:06d}0018", "razon_social": f"Empresa {n} S.A."}
                row.pop("id")
                ids.append(session.execute(insert(Company).values(**row).returning(Company.id)).scalar_one())
        engine = create_engine(url)  # a plain engine of its own for the load: no write gate, no group commit
        with engine.begin() as conn:  # each index's own DDL as the migrations made it, to build it again after
            if engine.dialect.name == "postgresql":
                found = "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'cfe_emitido'"
            else:
                found = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'cfe_emitido'"
            keys = {c.name for c in IssuedCfe.__table__.constraints if c.name} | {"cfe_emitido_pkey"}
            indexes = [(n, ddl) for n, ddl in conn.execute(text(found)) if ddl and n not in keys]
            indexes = [(n, ddl) for n, ddl in indexes if "UNIQUE" not in ddl.upper()]
            for name, _ddl in indexes:
                conn.execute(text(f"DROP INDEX {name}"))
        today = datetime.now(UTC).date()
        busy_ids = []
        loaded = 0
        for chunk in _rows(template, ids[:-1], ids[-1], count, today, only_report_day):
            _load(engine, IssuedCfe.__table__, chunk)
            busy_ids += [row["id"] for row in chunk if row["company_id"] == ids[-1]]
            loaded += len(chunk)
            if loaded % 100_000 < len(chunk):
                print(f"{loaded:,} receipts, {time.perf_counter() - started:.0f} s", flush=True)
        print()
        created = datetime.now(UTC)
        subs = [
            {
                "cfe_id": cfe_id,
                "company_id": ids[-1],
                "route": "reporte",
                "state": "pendiente_reporte",
                "motives": [],
                "created_at": created,
                "observations": 0,
            }
            for cfe_id in busy_ids
        ]
        for start in range(0, len(subs), 20_000):
            _load(engine, DgiSubmission.__table__, subs[start : start + 20_000])
        with engine.begin() as conn:
            for _name, ddl in indexes:
                conn.execute(text(ddl))
        print(f"indexes built, {time.perf_counter() - started:.0f} s")
        with db.write_transaction() as session:
            names = session.scalars(
                select(IssuedCfe.receptor_busqueda).where(IssuedCfe.company_id == demo.id).distinct()
            ).all()
            for name in names:
                remember_receiver(session, demo.id, name)
        with engine.begin() as conn:
            conn.execute(text("ANALYZE"))
    print(f"{loaded:,} receipts in {time.perf_counter() - started:.0f} s into {url}")


def _load(engine, table, rows: list[dict]) -> None:
    if engine.dialect.name != "postgresql":
        with engine.begin() as conn:
            conn.exec_driver_sql("PRAGMA synchronous = OFF")  # generated data: a crash means generating again
            conn.execute(table.insert(), rows)
        return
    from psycopg.types.json import Json

    columns = [c.name for c in table.columns]
    json_columns = {c.name for c in table.columns if c.type.__class__.__name__ in ("JSON", "JSONB")}
    raw = engine.raw_connection()
    try:
        with raw.cursor() as cursor, cursor.copy(f"COPY {table.name} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row([Json(row.get(c)) if c in json_columns else row.get(c) for c in columns])
        raw.commit()
    finally:
        raw.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("generate",))
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--receipts", type=int, default=1_000_000)
    parser.add_argument("--only-report-day", action="store_true", help="only the busy company's day (10%%)")
    args = parser.parse_args()
    generate(args.database_url, args.receipts, args.only_report_day)
    return 0


if __name__ == "__main__":
    sys.exit(main())
