"""Collection (payment) references: applying one to a receipt again, recorded with who, when and why."""

from __future__ import annotations

from flask import g
from sqlalchemy import select

from portal.service.comprobante.models import IssuedCfe, ReferenceChange
from portal.service.comprobante.presenters import referencia_aplicada
from portal.service.comprobante.schemas import ReaplicarReferencia, ReferenciaAplicada
from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.errors import NotFound
from portal.service.platform.i18n import _


def reapply(principal: Principal, body: ReaplicarReferencia) -> ReferenciaAplicada:
    """Link the company's receipt to `body`'s reference; a change is recorded, a replay changes nothing."""
    with db.write_transaction() as session:
        record = session.scalar(
            select(IssuedCfe).where(IssuedCfe.id == body.id_cfe_emitido, IssuedCfe.company_id == principal.company_id)
        )
        if record is None:
            raise NotFound(_("No existe ese comprobante en tu empresa."), code="cfe_no_encontrado")
        changed = record.referencia_cobro != body.referencia_cobro
        if changed:
            session.add(
                ReferenceChange(
                    cfe_id=record.id,
                    company_id=record.company_id,
                    previous=record.referencia_cobro,
                    reference=body.referencia_cobro,
                    note=body.observacion,
                    actor=principal.actor,
                    request_id=g.get("request_id"),
                )
            )
            record.referencia_cobro = body.referencia_cobro
        session.flush()
        return referencia_aplicada(session, record, changed)
