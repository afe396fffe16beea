"""The customers of a company: read from its receipts (each new receiver becomes a customer, never overwriting
what a person edited), found by the start of their name or document, and each one's receipts and balance.

Customers are read from the receipts after the fact (at most a minute behind, and at once whenever the list or
a customer is asked for), not written by issuing: the issuing path stays one INSERT of the receipt."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy import and_, false, func, or_, select, tuple_
from sqlalchemy.orm import Session

from portal.domain.cfe_types import BOLETA_TYPES, CREDIT_NOTES, SALE_TYPES, with_cfc
from portal.domain.identifiers import digits_only
from portal.service.clientes.models import Customer, CustomerWatermark
from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.search import folded, name_words
from portal.service.platform import db, paging
from portal.service.platform.db import utcnow

EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_WRITTEN_NUMBER = re.compile(r"^[\d.\- ]+$")
# Receipts read per pass: a company with a long history is caught up over a few passes, each one short.
SYNC_BATCH = 2000
CREDIT_SALE = 2  # FmaPago 2: on credit
# A receipt's creation moment is taken before its transaction commits, so on PostgreSQL a receipt of another type
# (another counter) made a moment later can commit, and be read, first. The mark stays this far behind the clock
# and what came since is read again (a known receiver is matched, never added twice): a late commit is not passed.
SETTLE = timedelta(seconds=60)


def _locked_mark(session: Session, company_id: int) -> CustomerWatermark:
    """The company's mark, locked until the caller commits: two reads at once (a person opening Clientes while
    the minute's task runs, on PostgreSQL) take turns, and the second finds the customers the first added instead
    of adding them again (a unique-index error). SQLite's write transaction is one at a time already."""
    locked = (
        select(CustomerWatermark)
        .where(CustomerWatermark.company_id == company_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    mark = session.scalars(locked).one_or_none()
    if mark is None:
        db.insert_if_absent(session, CustomerWatermark, {"company_id": company_id, "read_until": EPOCH})
        mark = session.scalars(locked).one()
    return mark


def sync_from_receipts(session: Session, company_id: int) -> int:
    """Creates a customer for each receiver of the company's receipts made since the last pass, and notes when
    each known customer last received one. The caller commits. Returns how many customers were added."""
    mark = _locked_mark(session, company_id)
    since = mark.read_until
    rows = session.execute(
        select(IssuedCfe.created_at, IssuedCfe.receptor_doc, IssuedCfe.input_json["receptor"], IssuedCfe.tipo_cfe)
        .where(IssuedCfe.company_id == company_id, IssuedCfe.created_at > since)
        .order_by(IssuedCfe.created_at)
        .limit(SYNC_BATCH)
    ).all()
    if not rows:
        return 0
    known = {
        (c.doc_type, c.country, c.document): c
        for c in session.scalars(
            select(Customer).where(
                Customer.company_id == company_id,
                Customer.document.in_({doc for _, doc, _, _ in rows if doc}),
            )
        )
    }
    added = 0
    for created_at, document, receiver, tipo in rows:
        # An e-Boleta de entrada's "receiver" is the seller the company bought from: a supplier, not a customer.
        if not document or not isinstance(receiver, dict) or tipo in with_cfc(BOLETA_TYPES):
            continue
        key = (int(receiver.get("tipoDocRecep") or 0), receiver.get("codPaisRecep") or "UY", document)
        customer = known.get(key)
        if customer is None:
            name = (receiver.get("rznSocRecep") or document)[:150]
            customer = Customer(
                company_id=company_id,
                doc_type=key[0],
                country=key[1],
                document=document,
                name=name,
                search_name=folded(name) or "",
                address=receiver.get("dirRecep"),
                city=receiver.get("ciudadRecep"),
                department=receiver.get("deptoRecep"),
                currency="UYU",
                payment_terms=1,
                source="comprobante",
            )
            session.add(customer)
            known[key] = customer
            added += 1
        if customer.last_receipt_at is None or created_at > customer.last_receipt_at:
            customer.last_receipt_at = created_at
    mark.read_until = max(since, min(rows[-1][0], utcnow() - SETTLE))
    return added


def search(
    session: Session, company_id: int, typed: str | None, cursor: str | None, limit: int
) -> tuple[Sequence[Customer], str | None]:
    """A page of the company's customers in the order of their names, those whose name has every typed word at
    the start of one of its words ("smith" finds "John Smith", as the receipt list finds receivers) or whose
    document starts with `typed`, and the cursor of the next page (None on the last)."""
    query = select(Customer).where(Customer.company_id == company_id)
    if typed:
        # A RUT or a cédula typed with dots and dashes is its digits; a foreign document is kept as typed.
        document = digits_only(typed) if _WRITTEN_NUMBER.match(typed) else typed.strip()
        # A company's customers are few enough (thousands) for a scan of their names within the company.
        words = name_words(folded(typed))
        by_name = and_(*(_starts_a_word(Customer.search_name, word) for word in words)) if words else false()
        query = query.where(by_name | Customer.document.startswith(document, autoescape=True))
    if cursor:
        query = query.where(tuple_(Customer.search_name, Customer.id) > paging.decode_cursor(cursor, 2))
    found = session.scalars(query.order_by(Customer.search_name, Customer.id).limit(limit + 1)).all()
    last = found[limit - 1] if len(found) > limit else None
    following = paging.encode_cursor((last.search_name, last.id)) if last is not None else None
    return found[:limit], following


# What stands before a word inside a folded name: a space, or the punctuation names carry ("Smith (Ñandú)",
# "Pérez-Ríos", "Ruta 5/Km 20", "D'Elía").
_BEFORE_A_WORD = (" ", "(", "-", "/", "'", '"', "&", ",")


def _starts_a_word(name, word: str):
    """`word` starts the folded name or one of its words."""
    return or_(
        name.startswith(word, autoescape=True),
        *(name.contains(mark + word, autoescape=True) for mark in _BEFORE_A_WORD),
    )


@dataclass(frozen=True)
class Balance:
    """What the customer owes on credit, in one currency: credit sales and debit notes less credit notes."""

    currency: str
    amount: Decimal
    receipts: int


def credit_balance(session: Session, customer: Customer) -> list[Balance]:
    """The customer's balance of credit sales per currency (receipts DGI rejected left out)."""
    # Every sale counts (an export invoice on credit is owed too), a credit note takes its amount back.
    sign = {code: -1 if code in CREDIT_NOTES else 1 for code in SALE_TYPES}
    rows = session.execute(
        select(IssuedCfe.tpo_moneda, IssuedCfe.tipo_cfe, func.sum(IssuedCfe.mnt_pagar), func.count())
        .where(
            IssuedCfe.company_id == customer.company_id,
            IssuedCfe.receptor_doc == customer.document,
            IssuedCfe.tipo_cfe.in_(sorted(sign)),
            IssuedCfe.input_json["fmaPago"].as_integer() == CREDIT_SALE,
            IssuedCfe.dgi_status != "rechazado",
        )
        .group_by(IssuedCfe.tpo_moneda, IssuedCfe.tipo_cfe)
    ).all()
    totals: dict[str, tuple[Decimal, int]] = {}
    for currency, tipo, amount, count in rows:
        before, n = totals.get(currency, (Decimal(0), 0))
        totals[currency] = (before + sign[tipo] * Decimal(str(amount or 0)), n + count)
    return [Balance(c, amount.quantize(Decimal("0.01")), n) for c, (amount, n) in sorted(totals.items())]


def recent_receipts(session: Session, customer: Customer, limit: int = 20) -> Sequence[IssuedCfe]:
    return session.scalars(
        select(IssuedCfe)
        .where(IssuedCfe.company_id == customer.company_id, IssuedCfe.receptor_doc == customer.document)
        .order_by(IssuedCfe.fch_emis.desc(), IssuedCfe.nro.desc())
        .limit(limit)
    ).all()
