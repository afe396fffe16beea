"""The company's own numbers in its answers to suppliers: IDReceptor (an envelope) and IDRespuesta (an answer).

Each is taken from the company's counter row (`ExchangeNumbering`) in the transaction that stores the envelope
or the answer, as a receipt's number is taken from its CAE range: one `UPDATE ... RETURNING` that the row's lock
makes atomic on PostgreSQL (a second intake for the same company waits for the first to commit), and that the
write transaction's lock serialises on SQLite. A rollback gives the number back, so the numbers are gapless; the
unique indexes on (company, number) guard the rest. Never a database id: those are shared by every company the
service hosts and would tell each supplier how many envelopes the whole service receives."""

from __future__ import annotations

from typing import Literal

from sqlalchemy import update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from portal.service.recibidos.models import ExchangeNumbering

_TABLE = ExchangeNumbering.metadata.tables[ExchangeNumbering.__tablename__]  # the Table: __table__ is a FromClause
_COUNTERS = _TABLE.c
Counter = Literal["last_id_receptor", "last_id_respuesta"]


def take(session: Session, company_id: int, counter: Counter) -> int:
    """The company's next number of `counter`, in `session`'s (write) transaction."""
    column = _COUNTERS[counter]
    bump = update(_TABLE).where(_COUNTERS.company_id == company_id).values({counter: column + 1}).returning(column)
    number = session.execute(bump).scalar_one_or_none()
    if number is None:
        # The company's first: two at once (PostgreSQL) create the row once, and the second then waits for it.
        insert = postgresql_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
        session.execute(
            insert(ExchangeNumbering)
            .values(company_id=company_id, last_id_receptor=0, last_id_respuesta=0)
            .on_conflict_do_nothing()
        )
        number = session.execute(bump).scalar_one()
    return number
