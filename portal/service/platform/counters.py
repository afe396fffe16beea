"""A company's own numbers (1, 2, 3...) that an area gives what it sends or answers, from a counter row per company.

A counter table has the company's id as its primary key (`company_id`) and one integer column per kind of number,
the last one given (0 before the first). A number is taken with one `UPDATE ... RETURNING` in the transaction that
stores what carries it, as a receipt's number is taken from its CAE range's `next_nro`: the row's lock makes it
atomic on PostgreSQL (a second transaction for the same company waits for the first to commit), and the write
transaction's lock serialises it on SQLite. A rollback gives the number back, so the numbers are gapless, and a
unique index on (company, number) in the numbered table guards the rest. Never `max() + 1` (two transactions at once
read the same maximum), never a database id (shared by every company the service hosts: it would tell each
receiver how much the whole service sends) and never a SEQUENCE (it leaves gaps)."""

from __future__ import annotations

from sqlalchemy import Table, update
from sqlalchemy.orm import InstrumentedAttribute, Session

from portal.service.platform import db


def take(session: Session, counter: InstrumentedAttribute[int], company_id: int) -> int:
    """The company's next number of `counter` (a counter table's column, `ExchangeNumbering.last_id_receptor`), in
    `session`'s (write) transaction."""
    model = counter.class_
    table: Table = model.metadata.tables[model.__tablename__]  # the Table: __table__ is typed as a FromClause
    column = table.c[counter.key]
    bump = update(table).where(table.c.company_id == company_id).values({column: column + 1}).returning(column)
    number = session.execute(bump).scalar_one_or_none()
    if number is None:
        # The company's first: two at once (PostgreSQL) create the row once, and the second then waits for it.
        first = {c.name: 0 for c in table.c if c.name != "company_id"}
        db.insert_if_absent(session, table, {"company_id": company_id, **first})
        number = session.execute(bump).scalar_one()
    return number
