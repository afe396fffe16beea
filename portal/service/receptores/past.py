"""The company's past receivers: one per document, from its newest receipt to that document.

Matching is the receipt list's receiver filter (comprobante.search.receiver_options: every typed word starts a
word of the folded name, or the document starts with it), so both find the same people and use the same
indexes.
"""

from __future__ import annotations

from sqlalchemy import func, select, union_all
from sqlalchemy.orm import Session

from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.search import receiver_options

_FIELDS = ("tipoDocRecep", "codPaisRecep", "docRecep", "rznSocRecep", "dirRecep", "ciudadRecep", "deptoRecep")


def recent_receivers(session: Session, company_id: int, typed: str, limit: int) -> list[dict]:
    """Up to `limit` receivers whose name or document starts with `typed`, the most recently used first."""
    # Each way of matching grouped on its own, then combined: SQLite answers their OR by fetching every
    # matching receipt from the table, while a document prefix alone ("21", nearly every receipt) is grouped
    # in the order of the (company_id, receptor_doc, created_at) index, reading only the index.
    per_option = union_all(
        *(
            select(IssuedCfe.receptor_doc, func.max(IssuedCfe.created_at).label("last_used"))
            .where(IssuedCfe.company_id == company_id, option, IssuedCfe.receptor_doc.is_not(None))
            .group_by(IssuedCfe.receptor_doc)
            for option in receiver_options(session, company_id, typed)
        )
    ).subquery()
    last_used = func.max(per_option.c.last_used)
    latest = session.execute(
        select(per_option.c.receptor_doc, last_used)
        .group_by(per_option.c.receptor_doc)
        .order_by(last_used.desc(), per_option.c.receptor_doc)
        .limit(limit)
    ).all()
    if not latest:
        return []
    # Then each one's newest receipt, found through (company_id, receptor_doc): never a scan of the company.
    # (Two plain IN lists: SQLite plans a row-value IN as a scan of the company's receipts.)
    wanted = {(doc, last) for doc, last in latest}
    rows = session.execute(
        select(IssuedCfe.receptor_doc, IssuedCfe.created_at, IssuedCfe.input_json).where(
            IssuedCfe.company_id == company_id,
            IssuedCfe.receptor_doc.in_([doc for doc, _ in latest]),
            IssuedCfe.created_at.in_([last for _, last in latest]),
        )
    ).all()
    bodies = {doc: body for doc, at, body in rows if (doc, at) in wanted}
    found = []
    for doc, last in latest:
        receiver = (bodies.get(doc) or {}).get("receptor") or {}
        found.append({**{k: receiver.get(k) for k in _FIELDS}, "docRecep": doc, "ultimoUso": last})
    return found
