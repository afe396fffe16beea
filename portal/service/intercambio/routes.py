"""HTTP endpoints of the exchange area (issuer's side): the way forward when a receipt could not be delivered
to its electronic receiver. Bearer JWT or API key, within the caller's company: those who issue may retry."""

from __future__ import annotations

from flask import Blueprint
from sqlalchemy import select

from portal.domain.roles import WRITERS
from portal.service.empresa import audit
from portal.service.intercambio import sending, tasks
from portal.service.intercambio.models import ExchangeCfe, ExchangeEnvelope
from portal.service.intercambio.schemas import SobreReintentado
from portal.service.platform import db, idempotency, jobs, responses
from portal.service.platform.api import idempotency_header, operation
from portal.service.platform.auth import API_KEY, JWT, Principal, plain_id
from portal.service.platform.errors import Conflict, NotFound
from portal.service.platform.i18n import _, said_or

bp = Blueprint("intercambio", __name__, url_prefix="/api/v1/intercambio")

TAG = "Intercambio"


def _missing() -> NotFound:
    return NotFound(_("No existe ese sobre de intercambio en la empresa."), code="sobre_no_encontrado")


@operation(
    bp,
    "POST",
    "/sobres/<int:id_sobre>/reintentar",
    tag=TAG,
    summary="Reintentar la entrega de un sobre de intercambio",
    auth=(JWT, API_KEY),
    roles=WRITERS,
    path_params={"id_sobre": "idSobre, como lo da `intercambio.sobre` de getByIdCfeEmitido."},
    extra_headers={
        "Idempotency-Key": idempotency_header(
            "Clave única por reintento: repetir la solicitud con la misma clave (un doble clic) devuelve el "
            "mismo reintento, sin entregar el sobre otra vez."
        )
    },
    responses={
        202: SobreReintentado,
        400: "Idempotency-Key no válida.",
        404: "`sobre_no_encontrado`: no existe ese sobre en la empresa.",
        409: "`sobre_no_reintentable`: el sobre no está en error (se está entregando o ya se entregó); "
        "`idempotency_in_progress`.",
        422: "La Idempotency-Key ya se usó con otra solicitud.",
    },
)
def retry_envelope(principal: Principal, id_sobre: int):
    """Para un sobre de intercambio que no se pudo entregar (estado error: el receptor rechazó la solicitud,
    no figura en el directorio de DGI, se agotaron los intentos): se vuelve a leer del directorio de DGI a
    dónde entregarle al receptor (puede haber corregido su servicio web o su correo) y se entrega de nuevo el
    mismo sobre, los mismos bytes, con los intentos desde cero. El resultado aparece luego en
    `intercambio.sobre` del comprobante. Queda en la auditoría de la empresa."""
    if plain_id(str(id_sobre)) is None:  # past the database's integers: no such envelope, not an overflow
        raise _missing()
    requested = idempotency.requested_key("intercambio.reintentar", path={"sobre": id_sobre})
    with db.write_transaction() as session:
        if requested is not None and (replay := idempotency.lookup(session, principal.company_id, requested)):
            return replay
        before = session.get(ExchangeEnvelope, id_sobre)
        stored_error = before.last_error if before else None  # reopen clears it
        shown_error = said_or(before.last_error_texts, stored_error) if before else None
        try:
            sobre = sending.reopen(session, principal.company_id, id_sobre)
        except sending.NotRetriable as exc:
            raise Conflict(
                _("El sobre no está en error: se está entregando o ya se entregó."), code="sobre_no_reintentable"
            ) from exc
        if sobre is None:
            raise _missing()
        receipts = session.scalars(
            select(ExchangeCfe.cfe_id).where(ExchangeCfe.envelope_id == sobre.id).order_by(ExchangeCfe.ordinal)
        ).all()
        answer = SobreReintentado(
            id_sobre=sobre.id,
            id_emisor=sobre.idemisor,
            archivo=sobre.file_name,
            rut_receptor=sobre.receiver_rut,
            estado=sobre.state,
            cant_cfe=sobre.cfe_count,
            comprobantes=list(receipts),
            error_anterior=shown_error,
        )
        changes = {"sobre": sobre.id, "receptor": sobre.receiver_rut, "error": stored_error}
        audit.record(session, principal, "intercambio_reintentado", changes, target=sobre.file_name)
        if requested is not None:
            idempotency.record(session, principal.company_id, requested, 202, responses.dump(answer))
    jobs.enqueue_safely(lambda: tasks.redeliver_exchange(id_sobre), "intercambio retry")
    return answer, 202
