"""HTTP endpoints of the Envíos a DGI group: what support and admins need to follow receipts on their way
to DGI, the daily report on demand, and voiding unused numbers. Bearer JWT, within the caller's company:
admin and soporte read, only admin acts; whether DGI answers (and since when not) every member may read."""

from __future__ import annotations

import re

from flask import Blueprint, Flask, Response
from sqlalchemy import select

from portal.domain.cfe_types import FIRST_CFE_DAY
from portal.domain.roles import ADMINS, ALL, READERS
from portal.domain.uruguay_time import today_montevideo
from portal.service.envios import ack_trust, listing, outage, reports, schemas, sending, tasks, voids
from portal.service.envios.models import DgiDailyReport, DgiEnvelope
from portal.service.platform import db, idempotency, jobs, responses
from portal.service.platform.api import idempotency_header, operation
from portal.service.platform.auth import JWT, Principal
from portal.service.platform.errors import Conflict, FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import _, said_or

bp = Blueprint("envios", __name__, url_prefix="/api/v1/envios")

TAG = "Envíos a DGI"


def init_app(app: Flask) -> None:
    ack_trust.check_setting(app)


@operation(
    bp,
    "GET",
    "/dgi",
    tag=TAG,
    summary="¿DGI responde? Y qué espera por DGI",
    auth=(JWT,),
    roles=READERS,
    responses={200: schemas.DisponibilidadDgi},
)
def dgi_availability(principal: Principal):
    """Si DGI responde o desde cuándo no, y cuántos comprobantes, sobres y reportes de la empresa esperan.
    Mientras DGI no responde se sigue emitiendo con normalidad: un solo intento por vez prueba DGI, cada vez
    más espaciado, y cuando DGI responde sale todo lo pendiente, lo más antiguo primero."""
    session = db.session()
    seen = outage.status(session)
    waiting = outage.backlog(session, principal.company_id)
    return schemas.DisponibilidadDgi(
        responde=seen.down_since is None,
        sin_respuesta_desde=seen.down_since,
        ultima_respuesta=seen.last_ok_at,
        ultimo_error=(said_or(seen.last_error_texts, seen.last_error)) if seen.down_since else None,
        proximo_intento=seen.next_probe_at if seen.down_since else None,
        comprobantes_esperando=waiting.receipts,
        sobres_esperando=waiting.envelopes,
        reportes_esperando=waiting.reports,
        esperando_desde=waiting.oldest,
    )


@operation(
    bp,
    "GET",
    "/dgi/aviso",
    tag=TAG,
    summary="¿DGI responde? Para todo miembro de la empresa",
    auth=(JWT,),
    roles=ALL,
    responses={200: schemas.AvisoDgi},
)
def dgi_notice(principal: Principal):
    """Si DGI responde y, si no, desde cuándo: lo que quien emite necesita saber de un comprobante que espera.
    No dice el último error ni qué espera en la empresa (eso es `GET /dgi`, para admin y soporte)."""
    seen = outage.status(db.session())
    return schemas.AvisoDgi(responde=seen.down_since is None, sin_respuesta_desde=seen.down_since)


@operation(
    bp,
    "GET",
    "/sobres",
    tag=TAG,
    summary="Listar los sobres enviados a DGI",
    auth=(JWT,),
    roles=READERS,
    query=schemas.Lista,
    responses={200: schemas.SobreLista},
)
def list_envelopes(principal: Principal, query: schemas.Lista):
    """Los sobres (EnvioCFE) de la empresa, el más reciente primero, con el acuse de DGI (AS/BS/BA y sus
    motivos S01-S08), el token para consultar la respuesta, los intentos y el último error. `demorado`
    marca los que llevan más de lo esperado sin respuesta final."""
    return listing.envelopes(db.session(), principal.company_id, query)


@operation(
    bp,
    "POST",
    "/sobres/<int:id_sobre>/reintentar",
    tag=TAG,
    summary="Reintentar un sobre",
    auth=(JWT,),
    roles=ADMINS,
    path_params={"id_sobre": "idSobre, como lo da la lista de sobres."},
    responses={
        202: schemas.Sobre,
        404: "No existe ese sobre en la empresa.",
        409: "El sobre no está rechazado ni en error: no hay nada que reintentar.",
    },
)
def retry_envelope(principal: Principal, id_sobre: int):
    """Para un sobre que DGI rechazó (BS/BA): sus comprobantes vuelven a pendientes y viajan en un sobre
    nuevo. Para un sobre en error (por ejemplo, un certificado que se renovó): se envía de nuevo tal cual,
    los mismos bytes. El resultado aparece luego en la lista de sobres."""
    try:
        sobre = sending.retry(principal.company_id, id_sobre)
    except ValueError as exc:
        raise Conflict(
            _("El sobre no está rechazado ni en error: no hay nada que reintentar."), code="sobre_no_reintentable"
        ) from exc
    if sobre is None:
        raise NotFound(_("No existe ese sobre en la empresa."), code="sobre_no_encontrado")
    wake = tasks.deliver_envelope if sobre.state == "armado" else tasks.pack_company
    target = sobre.id if sobre.state == "armado" else principal.company_id
    jobs.enqueue_safely(lambda: wake(target), "envios retry")
    return listing.envelopes(db.session(), principal.company_id, schemas.Lista(), only_id=sobre.id).items[0], 202


@operation(
    bp,
    "GET",
    "/pendientes",
    tag=TAG,
    summary="Comprobantes esperando respuesta de DGI",
    auth=(JWT,),
    roles=READERS,
    query=schemas.Lista,
    responses={200: schemas.PendienteLista},
)
def list_waiting(principal: Principal, query: schemas.Lista):
    """Los comprobantes que van a DGI uno por uno y todavía no tienen respuesta final, el más reciente
    primero: en qué estado están, por qué esperan (último error, reintentos, próximo intento) y si están
    demorados. Los e-Tickets bajo el tope de UI van en el reporte diario y no figuran aquí."""
    return listing.waiting(db.session(), principal.company_id, query)


@operation(
    bp,
    "GET",
    "/reportes",
    tag=TAG,
    summary="Listar los reportes diarios",
    auth=(JWT,),
    roles=READERS,
    query=schemas.Lista,
    responses={200: schemas.ReporteLista},
)
def list_daily_reports(principal: Principal, query: schemas.Lista):
    """Los reportes diarios (ReporteDiarioCFE) de la empresa, el más reciente primero, con la respuesta de
    DGI (AR/BR/BA y sus motivos R01-R06)."""
    return listing.daily_reports(db.session(), principal.company_id, query)


@operation(
    bp,
    "POST",
    "/reportes",
    tag=TAG,
    summary="Enviar el reporte diario de un día",
    auth=(JWT,),
    roles=ADMINS,
    body=schemas.ReporteSolicitud,
    responses={202: schemas.Reporte, 409: "La empresa no tiene un certificado de firma vigente."},
)
def send_daily_report(principal: Principal, body: schemas.ReporteSolicitud):
    """Arma el reporte diario del día pedido (todos los comprobantes usados ese día, los e-Tickets bajo el
    tope incluidos, y los números anulados ese día), lo firma, lo guarda y lo envía a DGI en segundo plano.
    El sistema lo hace solo cada día a las 00:10 (hora de Montevideo); pedirlo otra vez para un día ya
    enviado manda la secuencia siguiente (SecEnvio). Si el último envío de ese día aún no tiene respuesta,
    devuelve ese mismo. La respuesta de DGI aparece luego en la lista de reportes."""
    if body.fecha > today_montevideo():
        raise ValidationFailed(
            [FieldError("fecha", "future", _("El día todavía no ocurrió."))],
            message=_("No se puede reportar un día futuro."),
        )
    if body.fecha < FIRST_CFE_DAY:
        raise ValidationFailed(
            [FieldError("fecha", "out_of_range", _("Ese día es anterior al 01/10/2011, cuando empezaron los CFE."))],
            message=_("No hay reportes diarios de días anteriores a los CFE."),
        )
    report_id = reports.build(principal.company_id, body.fecha, principal.actor)
    jobs.enqueue_safely(lambda: tasks.mirror_report(report_id), "daily report's receipts")
    jobs.enqueue_safely(lambda: tasks.deliver_report(report_id), "daily report delivery")
    return listing.report_out(db.session().get_one(DgiDailyReport, report_id)), 202


@operation(
    bp,
    "GET",
    "/anulaciones",
    tag=TAG,
    summary="Listar los números anulados",
    auth=(JWT,),
    roles=READERS,
    query=schemas.Lista,
    responses={200: schemas.AnulacionLista},
)
def list_voided(principal: Principal, query: schemas.Lista):
    """Los rangos de números anulados: los que anuló un administrador y los de comprobantes que DGI
    rechazó (origen rechazo_dgi), con el día en cuyo reporte diario se informan."""
    return listing.voided_ranges(db.session(), principal.company_id, query)


@operation(
    bp,
    "POST",
    "/anulaciones",
    tag=TAG,
    summary="Anular números sin usar de un CAE",
    auth=(JWT,),
    roles=ADMINS,
    body=schemas.AnulacionSolicitud,
    responses={
        201: schemas.Anulacion,
        400: "Idempotency-Key no válida (1 a 255 caracteres imprimibles).",
        404: "La empresa no tiene números sin usar de un CAE de ese tipo (y serie).",
        409: "Se pidieron más números de los que le quedan al CAE, o la Idempotency-Key está en curso.",
        422: "Datos no válidos, o la Idempotency-Key ya se usó con otro cuerpo.",
    },
    extra_headers={
        "Idempotency-Key": idempotency_header(
            "Clave única por anulación (hasta 255 caracteres): repetir la solicitud con la misma clave "
            "devuelve la misma anulación, sin anular otros números."
        )
    },
)
def void_numbers(principal: Principal, body: schemas.AnulacionSolicitud):
    """Anula los próximos números sin usar del CAE con que se emitiría ese tipo (y serie): `cantidad` de
    ellos, o todos los que le quedan. Esos números no se usarán nunca y se informan en el reporte diario
    de hoy. Indicá el motivo."""
    claim = idempotency.claim(principal.company_id, "envios.anular")
    if claim.replay is not None:
        return claim.replay

    def remember(session, voided):
        answer = responses.dump(listing.void_out(voided))
        idempotency.complete(session, claim, 201, answer)

    try:
        voided = voids.void_next(principal, body.tipoCFE, body.serie, body.cantidad, body.motivo, on_stored=remember)
    except Exception:
        idempotency.release(claim)
        raise
    return listing.void_out(voided), 201


# --- the documents themselves: each envelope, report and DGI acknowledgement, as stored -----------------------

_XML_FILE = {
    200: {
        "description": "El documento XML tal como se envió o como DGI lo respondió (descarga).",
        "content": {"application/xml": {"schema": {"type": "string"}}},
    },
    404: "No existe en la empresa, o DGI todavía no lo dio.",
}
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


def _xml_file(content: bytes | None, file_name: str) -> Response:
    if not content:
        raise NotFound(
            _("DGI todavía no dio ese documento (o se recibió antes de que se guardara)."), code="sin_documento"
        )
    response = Response(content, mimetype="application/xml")
    safe = _UNSAFE_NAME.sub("_", file_name)[:100] or "documento.xml"
    response.headers["Content-Disposition"] = f'attachment; filename="{safe}"'
    return response


def _owned(model, record_id: int, company_id: int, missing: str):
    record = db.session().scalar(select(model).where(model.id == record_id, model.company_id == company_id))
    if record is None:
        raise NotFound(missing, code="no_encontrado")
    return record


@operation(
    bp,
    "GET",
    "/sobres/<int:id_sobre>/<any(sobre, acuse, respuesta):documento>",
    tag=TAG,
    summary="Descargar un sobre o un acuse de DGI",
    auth=(JWT,),
    roles=READERS,
    path_params={
        "id_sobre": "idSobre, como lo da la lista de sobres.",
        "documento": {
            "description": "sobre (el EnvioCFE enviado), acuse (ACKSobre de DGI) o respuesta (ACKCFE, por "
            "comprobante).",
            "schema": {"type": "string", "enum": ["sobre", "acuse", "respuesta"]},
        },
    },
    responses=_XML_FILE,
)
def download_envelope_document(principal: Principal, id_sobre: int, documento: str):
    """El sobre tal como se envió, o el acuse o la respuesta de DGI tal como llegaron (sus firmas intactas)."""
    sobre = _owned(DgiEnvelope, id_sobre, principal.company_id, _("No existe ese sobre en la empresa."))
    content, prefix = {
        "sobre": (sobre.xml, ""),
        "acuse": (sobre.ack_xml, "ACKSobre_"),
        "respuesta": (sobre.answer_xml, "ACKCFE_"),
    }.get(documento, (None, ""))
    return _xml_file(content, prefix + sobre.file_name)


@operation(
    bp,
    "GET",
    "/reportes/<int:id_reporte>/<string:documento>",
    tag=TAG,
    summary="Descargar un reporte diario o su acuse de DGI",
    auth=(JWT,),
    roles=READERS,
    path_params={
        "id_reporte": "idReporte, como lo da la lista de reportes.",
        "documento": {
            "description": "reporte (el ReporteDiarioCFE firmado) o acuse (ACKRepDiario de DGI).",
            "schema": {"type": "string", "enum": ["reporte", "acuse"]},
        },
    },
    responses=_XML_FILE,
)
def download_report_document(principal: Principal, id_reporte: int, documento: str):
    """El reporte diario tal como se envió, o el acuse de DGI tal como llegó."""
    report = _owned(DgiDailyReport, id_reporte, principal.company_id, _("No existe ese reporte en la empresa."))
    content, prefix = {"reporte": (report.xml, ""), "acuse": (report.ack_xml, "ACKRep_")}.get(documento, (None, ""))
    return _xml_file(content, prefix + report.file_name)
