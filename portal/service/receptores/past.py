"""The company's past receivers: one per document, from its newest receipt to that document.

Matching is the receipt list's receiver filter (comprobante.search.conditions: name prefix folded, or
document prefix), so both find the same people and use the same (company_id, receptor_*) indexes.
"""

from __future__ import annotations

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.search import Filters, conditions

_FIELDS = ("tipoDocRecep", "codPaisRecep", "docRecep", "rznSocRecep", "dirRecep", "ciudadRecep", "deptoRecep")


def recent_receivers(session: Session, company_id: int, typed: str, limit: int) -> list[dict]:
    """Up to `limit` receivers whose name or document starts with `typed`, the most recently used first."""
    latest = (
        select(IssuedCfe.receptor_doc, func.max(IssuedCfe.created_at).label("ultimo"))
        .where(*conditions(company_id, Filters(receptor=typed)), IssuedCfe.receptor_doc.is_not(None))
        .group_by(IssuedCfe.receptor_doc)
        .order_by(func.max(IssuedCfe.created_at).desc(), IssuedCfe.receptor_doc)
        .limit(limit)
        .subquery()
    )
    rows = session.execute(
        select(IssuedCfe.receptor_doc, IssuedCfe.input_json, latest.c.ultimo)
        .join(latest, and_(IssuedCfe.receptor_doc == latest.c.receptor_doc, IssuedCfe.created_at == latest.c.ultimo))
        .where(IssuedCfe.company_id == company_id)
        .order_by(latest.c.ultimo.desc(), IssuedCfe.receptor_doc)
    ).all()
    found: dict[str, dict] = {}
    for doc, body, last in rows:
        receiver = (body or {}).get("receptor") or {}
        found.setdefault(doc, {**{k: receiver.get(k) for k in _FIELDS}, "docRecep": doc, "ultimoUso": last})
    return list(found.values())
