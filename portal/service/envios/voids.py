"""Voiding numbers of a CAE that will never be used (an operator's decision, with a reason).

The voided numbers are the next unused ones of the range (the next `cantidad`, or all that are left), so
numbering stays gapless: the range's counter moves past them in the same transaction. The daily report of
the day carries them."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante.models import CaeRangeRecord, VoidedRange
from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.errors import ApiError
from portal.service.platform.i18n import _, cfe_type


def void_next(
    principal: Principal, tipo_cfe: int, serie: str | None, count: int | None, reason: str, *, on_stored=None
) -> VoidedRange:
    """Void the next `count` unused numbers (all that are left when None) of the company's range of this type
    (and serie), the range issuing would take numbers from. `on_stored(session, voided)` runs inside the
    transaction (the Idempotency-Key's outcome is saved there)."""
    with db.write_transaction() as session:
        query = select(CaeRangeRecord).where(
            CaeRangeRecord.company_id == principal.company_id,
            CaeRangeRecord.tipo_cfe == tipo_cfe,
            CaeRangeRecord.next_nro <= CaeRangeRecord.hnro,
            # The ranges the next receipt could be numbered from (numbering.allocate): an expired CAE's leftover
            # numbers are not "the next ones" (its whole rest goes with the range's retirement).
            CaeRangeRecord.vencimiento >= today_montevideo(),
            CaeRangeRecord.fecha_autorizacion <= today_montevideo(),
        )
        if serie:
            query = query.where(CaeRangeRecord.serie == serie)
        cae = session.scalar(query.order_by(CaeRangeRecord.vencimiento, CaeRangeRecord.id).limit(1).with_for_update())
        if cae is None:
            raise ApiError(
                _(
                    "La empresa no tiene números sin usar de CAE del tipo {tipo}, serie {serie}.",
                    tipo=cfe_type(tipo_cfe),
                    serie=serie,
                )
                if serie
                else _("La empresa no tiene números sin usar de CAE del tipo {tipo}.", tipo=cfe_type(tipo_cfe)),
                code="cae_no_encontrado",
                status=404,
            )
        last = cae.hnro if count is None else cae.next_nro + count - 1
        if last > cae.hnro:
            raise ApiError(
                _(
                    "Al CAE le quedan {left} números sin usar ({first} a {last}); no se pueden anular {asked}.",
                    left=cae.hnro - cae.next_nro + 1,
                    first=cae.next_nro,
                    last=cae.hnro,
                    asked=count,
                ),
                code="anulacion_excede_cae",
                status=409,
            )
        voided = void_up_to(session, principal, cae, last, reason)
        if on_stored is not None:
            on_stored(session, voided)
        return voided


def void_up_to(session: Session, principal: Principal, cae: CaeRangeRecord, last: int, reason: str) -> VoidedRange:
    """Void the range's unused numbers from its next one to `last` (the caller holds the range's row locked
    and checked `last`): the counter moves past them in this transaction, and today's daily report carries
    them. The one way numbers are voided by a person: the next few (`void_next`) or a whole range's rest
    (empresa's `cae_ranges.retire`)."""
    voided = VoidedRange(
        company_id=principal.company_id,
        cae_range_id=cae.id,
        tipo_cfe=cae.tipo_cfe,
        serie=cae.serie,
        nro_desde=cae.next_nro,
        nro_hasta=last,
        fecha=today_montevideo(),
        source="operador",
        reason=reason,
        created_by=principal.actor,
    )
    cae.next_nro = last + 1
    session.add(voided)
    session.flush()
    return voided
