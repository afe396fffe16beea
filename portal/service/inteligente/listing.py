"""The company's smart-issuance requests, newest first: filters that add up, and keyset pagination on
(created_at, id) so a page never repeats or skips a request while new ones arrive."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import and_, case, func, literal, select

from portal.domain.receipt_numbers import ReceiptNumber
from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.comprobante.models import IssuedCfe
from portal.service.inteligente.models import SmartRequest
from portal.service.inteligente.schemas import (
    ComprobanteResumen,
    ListaSolicitudes,
    SolicitudesQuery,
    SolicitudResumen,
)
from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.paging import keyset


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, MONTEVIDEO).astimezone(UTC)


def list_requests(principal: Principal, query: SolicitudesQuery) -> ListaSolicitudes:
    """A page of the caller's company's requests matching `query` (never another company's)."""
    now = datetime.now(UTC)
    # A preview past its 15 minutes is expired even if nobody consulted it since (consulting records it).
    lapsed = and_(SmartRequest.state == "preview", SmartRequest.expires_at < now)
    state = case((lapsed, literal("expired")), else_=SmartRequest.state)
    statement = (
        select(
            SmartRequest.id,
            SmartRequest.mode,
            state.label("state"),
            SmartRequest.created_at,
            SmartRequest.created_by,
            SmartRequest.error_code,
            IssuedCfe.id.label("cfe_id"),
            IssuedCfe.tipo_cfe,
            IssuedCfe.serie,
            IssuedCfe.nro,
            IssuedCfe.tpo_moneda,
            IssuedCfe.mnt_total,
        )
        .outerjoin(
            IssuedCfe, and_(IssuedCfe.id == SmartRequest.cfe_id, IssuedCfe.company_id == SmartRequest.company_id)
        )
        .where(SmartRequest.company_id == principal.company_id)
    )
    for condition in _filters(query, state):
        statement = statement.where(condition)
    order = (SmartRequest.created_at, SmartRequest.id)
    page, following = keyset(
        db.session(), statement, order, query.cursor, query.limite, lambda row: (row.created_at, row.id)
    )
    return ListaSolicitudes(items=[_summary(row) for row in page], siguiente_cursor=following)


def _filters(query: SolicitudesQuery, state) -> list:
    conditions = []
    if query.estado:
        conditions.append(state == query.estado)
    if query.creado_por:
        conditions.append(func.lower(SmartRequest.created_by).startswith(query.creado_por.lower(), autoescape=True))
    if query.desde:
        conditions.append(SmartRequest.created_at >= _day_start(query.desde))
    if query.hasta and query.hasta < date.max:
        conditions.append(SmartRequest.created_at < _day_start(query.hasta + timedelta(days=1)))
    if query.numero:
        typed = ReceiptNumber.parse(query.numero)
        conditions.append(IssuedCfe.nro == typed.number)
        if typed.serie:
            conditions.append(IssuedCfe.serie == typed.serie)
    return conditions


def _summary(row) -> SolicitudResumen:
    receipt = None
    if row.cfe_id:
        receipt = ComprobanteResumen(
            id_cfe_emitido=row.cfe_id,
            tipo_cfe=row.tipo_cfe,
            serie=row.serie,
            nro=row.nro,
            tpo_moneda=row.tpo_moneda,
            mnt_total=row.mnt_total,
        )
    return SolicitudResumen(
        request_id=row.id,
        estado=row.state,
        modo=row.mode,
        creado_en=row.created_at,
        creado_por=row.created_by,
        comprobante=receipt,
        codigo_error=row.error_code if row.state == "failed" else None,
    )
