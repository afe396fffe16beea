"""HTTP endpoints of the Correo area: send a receipt by e-mail, its sends, and the development mailbox."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from email_validator import EmailNotValidError, validate_email
from flask import Blueprint, Flask
from limits import parse
from sqlalchemy import select

from portal.domain.roles import ADMINS, ALL, READERS, WRITERS
from portal.service.comprobante.models import IssuedCfe
from portal.service.correo import mailbox, sending, tasks, transport
from portal.service.correo import message as mail_message
from portal.service.correo.models import MailTemplate
from portal.service.correo.schemas import (
    AdjuntoBuzon,
    Buzon,
    EnviarCorreo,
    EnvioCorreo,
    EnviosCorreo,
    MensajeBuzon,
    MensajeBuzonCompleto,
    PlantillaCorreo,
    PlantillaCorreoVigente,
)
from portal.service.correo.tracking import envio
from portal.service.empresa import audit
from portal.service.platform import db, idempotency, responses
from portal.service.platform.api import idempotency_header, operation
from portal.service.platform.auth import API_KEY, JWT, Principal
from portal.service.platform.errors import ApiError, Conflict, FieldError, NotFound, ValidationFailed
from portal.service.platform.files import file_response
from portal.service.platform.i18n import _, say
from portal.service.platform.ratelimit import limiter

bp = Blueprint("correo", __name__, url_prefix="/api/v1/correo")

TAG = "Correo"
BOTH = (JWT, API_KEY)
_CFE = {"cfe_id": "El idCfeEmitido del comprobante."}
_MESSAGE = {"mensaje_id": "El id del mensaje en el buzón de desarrollo."}
_NO_MAILBOX = "No existe, o hay un servidor SMTP configurado y no hay buzón de desarrollo."
# A customer is not flooded with one receipt, and a company's account cannot be used to mail anyone at will.
SENDS_PER_RECEIPT = parse("10/hour")
SENDS_PER_COMPANY = parse("300/hour")
log = logging.getLogger("portal.service.correo")


def init_app(app: Flask) -> None:
    """Check the mail settings (portal/service/platform/config.py) at start-up."""
    if app.config["SMTP_URL"]:
        transport.SmtpSettings.from_url(app.config["SMTP_URL"])  # a malformed URL stops the start, not a send


def _receipt(principal: Principal, cfe_id: str) -> IssuedCfe:
    record = db.session().scalar(
        select(IssuedCfe).where(IssuedCfe.id == cfe_id, IssuedCfe.company_id == principal.company_id)
    )
    if record is None:
        raise NotFound(_("No existe un comprobante con ese id en tu empresa."), code="cfe_no_encontrado")
    return record


def valid_recipients(addresses: list[str]) -> list[str]:
    """Each address checked and normalised (domain lower-cased), duplicates dropped; 422 naming each bad one."""
    clean: list[str] = []
    problems: list[FieldError] = []
    for index, address in enumerate(addresses):
        try:
            # No SMTPUTF8: an address whose user part is not ASCII may be refused by any relay on the way, so
            # it is refused here, where the person can fix it; a non-ASCII domain travels as punycode.
            checked = validate_email(address, check_deliverability=False, allow_smtputf8=False)
            normalized = checked.ascii_email or checked.normalized
        except EmailNotValidError:
            problems.append(
                FieldError(
                    f"destinatarios[{index}]",
                    "correo_invalido",
                    _(
                        "«{address}» no es una dirección de correo: revisala (como nombre@empresa.com.uy).",
                        address=address,
                    ),
                )
            )
            continue
        if normalized.lower() not in {known.lower() for known in clean}:
            clean.append(normalized)
    if problems:
        raise ValidationFailed(problems, message=_("Revisá las direcciones de correo."))
    return clean


@operation(
    bp,
    "POST",
    "/comprobante/<string:cfe_id>/envios",
    tag=TAG,
    summary="Enviar un comprobante por correo",
    auth=BOTH,
    roles=WRITERS,
    body=EnviarCorreo,
    path_params=_CFE,
    extra_headers={
        "Idempotency-Key": idempotency_header(
            "Clave única por envío: repetir la solicitud con la misma clave devuelve el mismo envío, sin "
            "mandar otro correo."
        )
    },
    responses={
        202: EnvioCorreo,
        400: "Idempotency-Key no válida.",
        404: "No existe o es de otra empresa.",
        409: "La Idempotency-Key está en curso; `cfc_solo_dgi`: un comprobante de contingencia (2xx) no se "
        "envía al cliente; `rechazado_por_dgi`: DGI lo rechazó, no tiene validez fiscal.",
        415: "El cuerpo no es JSON.",
        429: "Demasiados envíos en la última hora (10 por comprobante, 300 por empresa); ver Retry-After.",
    },
)
def enviar(cfe_id: str, body: EnviarCorreo, principal: Principal):
    """Records a send of the receipt's PDF and signed XML to the given addresses and answers at once; the
    e-mail goes out in the background, with retries. Follow it with GET …/envios."""
    record = _receipt(principal, cfe_id)
    if 200 <= record.tipo_cfe < 300:  # a paper contingency receipt keyed in: the customer has the paper
        raise Conflict(
            _("Un comprobante de contingencia se envía solo a DGI: el cliente ya tiene el papel."),
            code="cfc_solo_dgi",
        )
    if record.dgi_status == "rechazado":  # no fiscal validity, though the e-mail says its XML is what counts
        raise Conflict(
            _(
                "DGI rechazó este comprobante: no tiene validez fiscal y no se envía al cliente. Emití el "
                "comprobante corregido."
            ),
            code="rechazado_por_dgi",
        )
    recipients = valid_recipients(body.destinatarios) or sending.suggested_recipients(db.session(), record)
    if not recipients:
        raise ValidationFailed(
            [
                FieldError(
                    "destinatarios", "sin_destinatarios", _("Escribí al menos una dirección de correo del cliente.")
                )
            ],
            message=_("Escribí al menos una dirección de correo del cliente."),
        )
    claim = idempotency.claim(principal.company_id, "correo.enviar", path={"cfe": cfe_id})
    if claim.replay is not None:
        return claim.replay
    try:
        _count_send(principal.company_id, record.id)
        with db.write_transaction() as session:
            send = sending.queue_send(session, principal, session.get_one(IssuedCfe, record.id), recipients)
            answer = envio(send)
            idempotency.complete(session, claim, 202, responses.dump(answer))
    except Exception:
        idempotency.release(claim)
        raise
    tasks.wake(send.id)
    return answer, 202


def _count_send(company_id: int, cfe_id: str) -> None:
    """Count a new send against the hourly limits, or refuse it with 429 and when to try again. The limit
    storage failing lets the send through (logged): a lost e-mail costs more than an extra one."""
    company = str(company_id)
    try:
        for limit, keys in (
            (SENDS_PER_COMPANY, ("correo-empresa", company)),
            (SENDS_PER_RECEIPT, ("correo-comprobante", company, cfe_id)),
        ):
            if not limiter().test(limit, *keys):
                reset = limiter().get_window_stats(limit, *keys).reset_time
                raise ApiError(
                    _("Ya se enviaron muchos correos en la última hora; probá de nuevo más tarde."),
                    code="demasiados_envios",
                    status=429,
                    headers={"Retry-After": str(max(int(reset - time.time()) + 1, 1))},
                )
        limiter().hit(SENDS_PER_COMPANY, "correo-empresa", company)
        limiter().hit(SENDS_PER_RECEIPT, "correo-comprobante", company, cfe_id)
    except ApiError:
        raise
    except Exception:  # the limit storage (Redis) is down
        log.warning("send limits not checked: the rate-limit storage failed", exc_info=True)


@operation(
    bp,
    "GET",
    "/comprobante/<string:cfe_id>/envios",
    tag=TAG,
    summary="Envíos por correo de un comprobante",
    auth=BOTH,
    roles=ALL,
    path_params=_CFE,
    responses={200: EnviosCorreo, 404: "No existe o es de otra empresa."},
)
def envios(cfe_id: str, principal: Principal):
    """The receipt's sends, newest first (to whom, when, state, attempts, the reason of a failure), and the
    addresses to suggest for the next one."""
    session = db.session()
    record = _receipt(principal, cfe_id)
    return EnviosCorreo(
        id_cfe_emitido=record.id,
        sugeridos=sending.suggested_recipients(session, record),
        buzon_desarrollo=transport.uses_mailbox(),
        envios=[envio(send) for send in sending.sends_of(session, principal.company_id, record.id)],
    )


def _require_mailbox() -> None:
    if not transport.uses_mailbox():
        raise NotFound(_("Hay un servidor de correo configurado: no hay buzón de desarrollo."), code="sin_buzon")


def _summary(message: mailbox.StoredMessage) -> dict:
    return {
        "id": message.id,
        "de": message.sender,
        "para": message.to,
        "asunto": message.subject,
        "fecha": message.date,
        "adjuntos": [
            AdjuntoBuzon(nombre=a.filename, tipo=a.content_type, bytes=len(a.content)) for a in message.attachments
        ],
    }


@operation(
    bp,
    "GET",
    "/buzon",
    tag=TAG,
    summary="Buzón de desarrollo",
    auth=(JWT,),
    roles=READERS,
    responses={200: Buzon, 404: _NO_MAILBOX},
)
def buzon(principal: Principal):
    """Without an SMTP server (development), the e-mails the company's sends produced, newest first."""
    _require_mailbox()
    return Buzon(items=[MensajeBuzon(**_summary(m)) for m in mailbox.messages(principal.company_id)])


def _stored(principal: Principal, mensaje_id: str) -> mailbox.StoredMessage:
    _require_mailbox()
    message = mailbox.message(principal.company_id, mensaje_id)
    if message is None:
        raise NotFound(_("No hay un mensaje con ese id en el buzón de tu empresa."), code="mensaje_no_encontrado")
    return message


@operation(
    bp,
    "GET",
    "/buzon/<string:mensaje_id>",
    tag=TAG,
    summary="Un mensaje del buzón de desarrollo",
    auth=(JWT,),
    roles=READERS,
    path_params=_MESSAGE,
    responses={200: MensajeBuzonCompleto, 404: _NO_MAILBOX},
)
def mensaje(mensaje_id: str, principal: Principal):
    """One message of the development mailbox, with its text and the list of its attachments."""
    message = _stored(principal, mensaje_id)
    return MensajeBuzonCompleto(**_summary(message), texto=message.text)


@operation(
    bp,
    "GET",
    "/buzon/<string:mensaje_id>/adjuntos/<int:numero>",
    tag=TAG,
    summary="Un adjunto de un mensaje del buzón de desarrollo",
    auth=(JWT,),
    roles=READERS,
    path_params={**_MESSAGE, "numero": "Su posición en la lista de adjuntos, desde 0."},
    responses={
        200: {
            "description": "El adjunto, con su tipo.",
            "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
        },
        404: _NO_MAILBOX,
    },
)
def adjunto(mensaje_id: str, numero: int, principal: Principal):
    """An attachment as it was sent (the PDF or the XML)."""
    message = _stored(principal, mensaje_id)
    if not 0 <= numero < len(message.attachments):
        raise NotFound(_("Ese mensaje no tiene ese adjunto."), code="adjunto_no_encontrado")
    attachment = message.attachments[numero]
    return file_response(attachment.content, attachment.content_type, attachment.filename, inline=False)


def _template(principal: Principal) -> PlantillaCorreoVigente:
    own = db.session().get(MailTemplate, principal.company_id)
    return PlantillaCorreoVigente(
        asunto=own.subject if own else mail_message.DEFAULT_SUBJECT,
        cuerpo=own.body if own else mail_message.DEFAULT_BODY,
        propia=own is not None,
        variables={name: say(meaning) for name, meaning in mail_message.PLACEHOLDERS.items()},
    )


@operation(
    bp,
    "GET",
    "/plantilla",
    tag=TAG,
    summary="Asunto y texto del correo de un comprobante",
    auth=BOTH,
    roles=ALL,
    responses={200: PlantillaCorreoVigente},
)
def plantilla(principal: Principal):
    """The subject and text the company's receipts go out with (its own, or the default in usted), and the
    placeholders they may use."""
    return _template(principal)


def _refuse_unknown_placeholders(body: PlantillaCorreo) -> None:
    """422 when the subject or the text has something between braces that is no placeholder: it would reach
    the customer as typed. Each field is told its own (the portal shows it there), the message names them all."""
    unknown = {
        field: mail_message.unknown_placeholders(text)
        for field, text in (("asunto", body.asunto), ("cuerpo", body.cuerpo))
    }
    named = list(dict.fromkeys(braced for found in unknown.values() for braced in found))
    if named:
        raise ValidationFailed(
            [FieldError(field, "marcador_desconocido", _unknown(found)) for field, found in unknown.items() if found],
            message=_unknown(named),
            code="marcador_desconocido",
        )


def _unknown(found: list[str]) -> str:
    known = ", ".join(f"{{{name}}}" for name in mail_message.PLACEHOLDERS)
    if len(found) == 1:
        return _("No existe el marcador {name}: los que hay son {known}.", name=found[0], known=known)
    return _("No existen los marcadores {names}: los que hay son {known}.", names=", ".join(found), known=known)


@operation(
    bp,
    "PUT",
    "/plantilla",
    tag=TAG,
    summary="Cambiar el asunto y el texto del correo de un comprobante",
    auth=(JWT,),
    roles=ADMINS,
    body=PlantillaCorreo,
    responses={
        200: PlantillaCorreoVigente,
        422: "Un texto vacío o demasiado largo; `marcador_desconocido`: algo entre llaves que no es uno de los "
        "marcadores (`variables`), nombrado en `fields` junto al asunto o al texto donde se escribió, con los que "
        "hay; no se guarda nada.",
    },
)
def cambiar_plantilla(body: PlantillaCorreo, principal: Principal):
    """Set the company's own subject and text (from the next e-mail on); recorded in the company's audit."""
    _refuse_unknown_placeholders(body)
    with db.write_transaction() as session:
        own = session.get(MailTemplate, principal.company_id)
        before = {"asunto": own.subject, "cuerpo": own.body} if own else {}
        # The same shape as every other setting's audit ({"antes", "despues"}), and only an actual change.
        changes = audit.diff(before, {"asunto": body.asunto, "cuerpo": body.cuerpo})
        if own is None:
            own = MailTemplate(company_id=principal.company_id)
            session.add(own)
        if changes:
            own.subject, own.body, own.updated_by = body.asunto, body.cuerpo, principal.actor
            own.updated_at = datetime.now(UTC)
            audit.record(session, principal, "plantilla_correo", changes)
    return _template(principal)
