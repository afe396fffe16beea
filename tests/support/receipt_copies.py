"""Many receipts for the receipt-list tests without issuing each: one real receipt copied with generated
receivers, dates and numbers, and the list's receiver filter written out in plain Python to check against."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from datetime import timedelta

from sqlalchemy import event, insert, select
from sqlalchemy.orm import Session

from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.search import folded, name_words, remember_receiver
from portal.service.platform import db

# Names with accents, a name that starts with digits ("21 de Setiembre": "21" matches its name and the RUTs
# starting 21) and documents that start with 21, with 12 and with letters (a foreign one).
RECEIVERS = (
    ("211003420017", "Ñandú S.A."),
    ("214844360018", "Ferretería del Prado"),
    ("219128194276", "FERRETERIA NORTE"),
    ("120456780011", "21 de Setiembre S.R.L."),
    ("121212120014", "Óptica Unión"),
    ("AR20304050", "Librería Cordón"),
    ("216000000015", "Farmacia Ñu"),
    (None, "Consumidor final"),
    ("217000000013", "Viajes Arapey S.R.L."),
)


def fill(app, count: int, seed: int = 21) -> list[dict]:
    """Copy the company's one receipt `count` times: receivers from RECEIVERS, a few receipts per day (so the
    order's ties on date and on number are exercised), both types numbered on their own. Returns the rows."""
    rng = random.Random(seed)
    with app.app_context():
        template = db.session().scalar(select(IssuedCfe))
        columns = {c.name: getattr(template, c.key) for c in IssuedCfe.__table__.columns}
        numbers = {101: 100, 111: 100}
        rows = []
        for i in range(count):
            tipo = rng.choice((101, 111))
            numbers[tipo] += 1
            doc, name = rng.choice(RECEIVERS)
            rows.append(
                {
                    **columns,
                    "id": f"copy{i:05d}{rng.randrange(10**6):06d}",
                    "tipo_cfe": tipo,
                    "nro": numbers[tipo],
                    "fch_emis": today_montevideo() - timedelta(days=rng.randrange(count // 4 + 1)),
                    "receptor_doc": doc,
                    "receptor_nombre": name,
                    "receptor_busqueda": folded(name),
                    "mnt_total": rng.choice((100, 250.5, 9000)),
                    "request_id": f"copia-{i}",
                    "idempotency_key": f"copia-{i}",
                }
            )
        with db.write_transaction() as session:
            session.execute(insert(IssuedCfe), rows)
            for name in {row["receptor_busqueda"] for row in rows}:
                remember_receiver(session, template.company_id, name)
        return [{**columns, "id": template.id}, *rows]


def receiver_matches(row: dict, typed: str) -> bool:
    """The receiver filter's meaning: every word typed (folded) starts some word of the folded name, anywhere
    in it; or the document starts with what was typed (only its digits when nothing but digits, dots, dashes
    and spaces was typed)."""
    typed = typed.strip()
    digits = "".join(ch for ch in typed if ch.isdigit())
    doc_prefix = digits if digits and all(ch.isdigit() or ch in ".- " for ch in typed) else typed
    name, doc = row["receptor_busqueda"] or "", row["receptor_doc"] or ""
    typed_words, words = name_words(folded(typed)), name_words(name)
    named = bool(typed_words) and all(any(w.startswith(t) for w in words) for t in typed_words)
    return named or doc.startswith(doc_prefix)


def in_list_order(rows: list[dict]) -> list[str]:
    """Ids in the list's order: issue date, number, id, newest first."""
    return [r["id"] for r in sorted(rows, key=lambda r: (r["fch_emis"], r["nro"], r["id"]), reverse=True)]


@contextlib.contextmanager
def statements_run(session: Session) -> Iterator[list[tuple[str, object]]]:
    """The SQL statements (and their parameters) `session` sends inside the block, to EXPLAIN them."""
    run: list[tuple[str, object]] = []
    engine = session.get_bind()

    def record(_conn, _cursor, statement, parameters, _context, _executemany):
        run.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield run
    finally:
        event.remove(engine, "before_cursor_execute", record)
