"""A receipt's e-mail sends as the API shows them: each send (GET …/envios), and the summary getByIdCfeEmitido
carries under `correo` so the receipt's page needs no second call."""

from __future__ import annotations

from sqlalchemy import bindparam, func, select
from sqlalchemy.engine import Row
from sqlalchemy.orm import Session

from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.tracking_schemas import EnvioCorreo, ResumenCorreo
from portal.service.correo.models import QUEUED, MailSend
from portal.service.platform import db
from portal.service.platform.i18n import said_or


def envio(send: MailSend | Row) -> EnvioCorreo:
    """A send as the API shows it (from its record, or a row of the same columns)."""
    return EnvioCorreo(
        id=send.id,
        id_cfe_emitido=send.cfe_id,
        destinatarios=list(send.recipients),
        estado=send.state,
        intentos=send.attempts,
        error=said_or(send.last_error_texts, send.last_error),
        proximo_intento=send.next_attempt_at if send.state == QUEUED else None,
        creado_por=send.created_by,
        creado_en=send.created_at,
        enviado_en=send.sent_at,
    )


# Plain columns, built once: every read of a receipt runs it.
_LATEST = (
    select(
        MailSend.id,
        MailSend.cfe_id,
        MailSend.recipients,
        MailSend.state,
        MailSend.attempts,
        MailSend.last_error,
        MailSend.last_error_texts,
        MailSend.next_attempt_at,
        MailSend.created_by,
        MailSend.created_at,
        MailSend.sent_at,
        func.count().over().label("envios"),
    )
    .where(MailSend.company_id == bindparam("company_id"), MailSend.cfe_id == bindparam("cfe_id"))
    .order_by(MailSend.created_at.desc())
    .limit(1)
)


def mail_summary(session: Session, record: IssuedCfe) -> ResumenCorreo | None:
    """The latest send and how many there are (one query, along ix_correo_envio_cfe); None if never sent."""
    found = db.column_rows(session, _LATEST, {"company_id": record.company_id, "cfe_id": record.id}).first()
    if found is None:
        return None
    return ResumenCorreo(envios=found.envios, ultimo=envio(found))
