"""Turning stored receipts into the API's answers."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import url_for
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.service.cfe.model import MONTEVIDEO
from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe, ReferenceChange
from portal.service.comprobante.schemas import (
    Advertencia,
    CaeData,
    CambioReferencia,
    CfeEmitido,
    ReferenciaAplicada,
)
from portal.service.envios.tracking import dgi_state


def signed_at(moment: datetime) -> datetime:
    """TmstFirma as the XML carries it, in Uruguay's time, whatever the database gave back: PostgreSQL
    returns timestamptz in UTC, SQLite the wall-clock time it was given without its offset."""
    return moment.replace(tzinfo=MONTEVIDEO) if moment.tzinfo is None else moment.astimezone(MONTEVIDEO)


def utc(moment: datetime) -> datetime:
    """A stored UTC moment, with its offset (SQLite gives it back naive)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def cfe_emitido(record: IssuedCfe, warnings: list[dict], session: Session) -> CfeEmitido:
    cae = session.get(CaeRangeRecord, record.cae_range_id)
    link = url_for("comprobante.get_by_id", idCfeEmitido=record.id, _external=True)
    return CfeEmitido(
        id_cfe_emitido=record.id, tipo_cfe=record.tipo_cfe, serie=record.serie, nro=record.nro,
        fch_emis=record.fch_emis, tmst_firma=signed_at(record.tmst_firma), tpo_moneda=record.tpo_moneda,
        receptor=record.input_json.get("receptor"), totales=record.totals_json,
        codigo_seguridad=record.security_code, url_qr=record.qr_url,
        cae=CaeData(cae_id=f"{cae.cae_id:011d}", dnro=cae.dnro, hnro=cae.hnro, vencimiento=cae.vencimiento),
        estado_dgi=record.dgi_status, referencia_cobro=record.referencia_cobro, creado_por=record.created_by,
        creado_en=utc(record.created_at), advertencias=[Advertencia(**w) for w in warnings],
        historial_referencias=_history(session, record), enlaces={"self": link, "xml": link, "pdf": link},
        dgi=dgi_state(session, record))


def _history(session: Session, record: IssuedCfe) -> list[CambioReferencia]:
    history = session.scalars(select(ReferenceChange).where(ReferenceChange.cfe_id == record.id)
                              .order_by(ReferenceChange.at.desc(), ReferenceChange.id.desc()))
    return [CambioReferencia(referencia_anterior=h.previous, referencia_cobro=h.reference, observacion=h.note,
                             por=h.actor, en=utc(h.at)) for h in history]


def referencia_aplicada(session: Session, record: IssuedCfe, changed: bool) -> ReferenciaAplicada:
    return ReferenciaAplicada(id_cfe_emitido=record.id, referencia_cobro=record.referencia_cobro, cambio=changed,
                              historial=_history(session, record))
