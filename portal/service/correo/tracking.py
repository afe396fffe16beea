"""A receipt's e-mail sends as the API shows them: each send (GET …/envios), and the summary getByIdCfeEmitido
carries under `correo` so the receipt's page needs no second call."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.service.correo.models import QUEUED, MailSend
from portal.service.correo.schemas import EnvioCorreo, ResumenCorreo


def envio(send: MailSend) -> EnvioCorreo:
    return EnvioCorreo(
        id=send.id,
        id_cfe_emitido=send.cfe_id,
        destinatarios=list(send.recipients),
        estado=send.state,
        intentos=send.attempts,
        error=send.last_error,
        proximo_intento=send.next_attempt_at if send.state == QUEUED else None,
        creado_por=send.created_by,
        creado_en=send.created_at,
        enviado_en=send.sent_at,
    )


def mail_summary(session: Session, company_id: int, cfe_id: str) -> ResumenCorreo | None:
    """The latest send and how many there are (one query, along ix_correo_envio_cfe); None if never sent."""
    found = session.execute(
        select(MailSend, func.count().over())
        .where(MailSend.company_id == company_id, MailSend.cfe_id == cfe_id)
        .order_by(MailSend.created_at.desc())
        .limit(1)
    ).first()
    if found is None:
        return None
    return ResumenCorreo(envios=found[1], ultimo=envio(found[0]))
