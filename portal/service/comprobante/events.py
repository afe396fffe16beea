"""A receipt's events (the webhooks' outbox, eventos.publishing): what they carry of it. Here and not in eventos,
which stands below the areas that publish and knows none of their tables."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from portal.service.comprobante.models import IssuedCfe
from portal.service.eventos.publishing import publish


def receipt(record: IssuedCfe, **extra: Any) -> dict[str, Any]:
    """A receipt as events carry it: who it is and its DGI state, nothing more."""
    return {
        "idCfe": record.id,
        "tipoCfe": record.tipo_cfe,
        "serie": record.serie,
        "nro": record.nro,
        "fchEmis": record.fch_emis.isoformat(),
        "estadoDgi": record.dgi_status,
        **extra,
    }


def receipt_verdict(session: Session, record: IssuedCfe, motives: list[dict]) -> None:
    """DGI's verdict on a receipt, if it is one integrators hear of (aceptado, rechazado, observado)."""
    if record.dgi_status in ("aceptado", "rechazado", "observado"):
        codes = [m.get("codigo") for m in motives]
        publish(session, record.company_id, f"comprobante.{record.dgi_status}", receipt(record, motivos=codes))
