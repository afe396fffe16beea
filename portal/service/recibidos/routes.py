"""HTTP endpoints of the recibidos area: the company's received CFEs, uploads of envelopes, and what the
company does with each CFE. The exchange web service (ws.py) is registered beside them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TypeVar

from flask import Blueprint, Flask, Response, request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.domain.roles import ALL, WRITERS
from portal.service.cfe.emission import Issuer
from portal.service.cfe.pdf import render_receipt
from portal.service.platform import db, downloads, idempotency, paging, responses
from portal.service.platform.api import idempotency_header, negotiate, operation
from portal.service.platform.auth import API_KEY, JWT, Principal
from portal.service.platform.errors import ApiError, FieldError, NotFound, ValidationFailed
from portal.service.platform.files import file_response
from portal.service.platform.i18n import _, language, say
from portal.service.platform.zipstream import ZIP, zip_chunks
from portal.service.recibidos import decisions, listing, sending, tasks, uploads, ws
from portal.service.recibidos.models import ExchangeAnswer, ReceivedCfe
from portal.service.recibidos.schemas import (
    BOOK_FILTERED_LIMIT,
    REJECT_MANY_LIMIT,
    ContabilizadosFiltrados,
    ContabilizadosVarios,
    ContabilizarFiltrados,
    ContabilizarVarios,
    CorreosNoRecibidos,
    MotivoRecepcion,
    NoContabilizable,
    NoRechazable,
    PaginaRecibidos,
    RechazadosVarios,
    Rechazar,
    RechazarVarios,
    RecibidoCompleto,
    RecibidosQuery,
    ResultadoCarga,
    ResultadoSobre,
    ResumenRecibidos,
    VerQuery,
)

UPLOAD_PATH = "/api/v1/recibidos"  # POST: uploaded envelopes
bp = Blueprint("recibidos", __name__, url_prefix=UPLOAD_PATH)
TAG = "Recibidos"
BOTH = (JWT, API_KEY)
_ID: dict[str, str | dict] = {"recibido_id": "El id del CFE recibido."}
NotDone = TypeVar("NotDone", NoContabilizable, NoRechazable)
_FORMATS = {"application/json": "json", "application/xml": "xml", "application/pdf": "pdf"}


def init_app(app: Flask) -> None:
    app.register_blueprint(ws.bp)
    # Received envelopes are larger than the service's usual bodies: the body reader up front must allow them.
    limits = app.extensions.setdefault("body_limits_by_path", {})
    limits[ws.URL_PATH] = ws.MAX_REQUEST_BYTES
    limits[UPLOAD_PATH] = uploads.MAX_UPLOAD_BYTES


def _row(principal: Principal, recibido_id: int) -> ReceivedCfe:
    row = db.session().scalar(
        select(ReceivedCfe).where(ReceivedCfe.id == recibido_id, ReceivedCfe.company_id == principal.company_id)
    )
    if row is None:
        raise NotFound(_("No existe un CFE recibido con ese id en tu empresa."), code="recibido_no_encontrado")
    return row


@operation(
    bp,
    "GET",
    "",
    tag=TAG,
    summary="Listar los CFE recibidos",
    auth=BOTH,
    roles=ALL,
    query=RecibidosQuery,
    responses={
        200: {
            "description": "Una página (más nuevos primero) con los totales por moneda de todos los que cumplen los "
            "filtros, o con Accept: text/csv todos ellos para planilla (`;`, coma decimal, dd/mm/aaaa, UTF-8 con BOM), "
            "con los montos del libro de compras de IVA (neto e IVA por tasa, percepciones, retenciones y total, "
            "como los firmó el proveedor; una nota de crédito en negativo), o con Accept: application/zip el XML "
            "firmado de cada uno, tal como llegó (lo que la empresa conserva).",
            "content": {
                "application/json": {
                    "schema": {"$ref": "#/components/schemas/PaginaRecibidos"},
                    "example": {
                        "items": [
                            {
                                "id": 12,
                                "rutEmisor": "211003420017",
                                "nombreEmisor": "Comercial del Norte S.R.L.",
                                "tipoCFE": 111,
                                "serie": "A",
                                "nro": 15,
                                "fecha": "2026-11-20",
                                "moneda": "UYU",
                                "total": "2257.31",
                                "aPagar": "2257.31",
                                "estado": "AE",
                                "motivos": [],
                                "decision": None,
                                "rechazadoDgi": False,
                                "contabilizado": False,
                                "contabilizable": True,
                                "recibidoEn": "2026-11-20T14:02:11Z",
                            }
                        ],
                        "siguienteCursor": None,
                        "totales": [{"moneda": "UYU", "cantidad": 1, "total": "2257.31"}],
                        "sinContabilizar": 1,
                        "sinContabilizarHasta": 12,
                    },
                },
                "text/csv": {"schema": {"type": "string"}},
                ZIP: {"schema": {"type": "string", "format": "binary"}},
            },
            "model": PaginaRecibidos,
        },
        406: "Formato no disponible.",
        **downloads.RESPONSES,
    },
)
def listar(query: RecibidosQuery, principal: Principal):
    """The company's received CFEs, newest first; filters combine with AND; pages by `cursor`."""
    wanted = negotiate("application/json", "text/csv", ZIP)
    where = listing.conditions(principal.company_id, query, booked=query.contabilizado)
    if wanted == ZIP:
        chunks = downloads.held(principal.company_id, lambda: zip_chunks(listing.xml_entries(db.new_session(), where)))
        return file_response(chunks, ZIP, "recibidos-xml.zip", inline=False, vary=("Accept",))
    if wanted == "text/csv":
        words = listing.CsvWords(
            header=[say(name) for name in listing.HEADER],
            yes_no=(say(_("sí")), say(_("no"))),
            decisions={code: say(label) for code, label in listing.DECISIONS.items()},
            arrival={code: say(label) for code, label in listing.ARRIVAL.items()},
            language=language(),
        )
        lines = downloads.held(principal.company_id, lambda: listing.csv_chunks(db.new_session(), where, words))
        response = Response(lines, mimetype="text/csv")
        response.headers["Content-Disposition"] = 'attachment; filename="recibidos.csv"'
        response.headers["Content-Language"] = language()
        response.vary.update(("Accept", "Accept-Language"))
        return response
    session = db.session()
    try:
        rows, following = listing.page(session, where, query.cursor, query.limite)
    except ValueError as exc:
        raise paging.invalid_cursor() from exc
    result: PaginaRecibidos = listing.pagina(rows, following, listing.totals(session, where))
    response = Response(result.model_dump_json(by_alias=True), mimetype="application/json")
    response.vary.update(("Accept", "Accept-Language"))  # the motives' detail is said in the reader's language
    return response


@operation(
    bp,
    "GET",
    "/resumen",
    tag=TAG,
    summary="Resumen del día de los CFE recibidos",
    auth=BOTH,
    roles=ALL,
    responses={200: ResumenRecibidos},
)
def resumen(principal: Principal):
    """How many CFEs arrived today and how many accepted ones wait to be booked."""
    return listing.summary(db.session(), principal.company_id)


@operation(
    bp,
    "GET",
    "/correos-no-recibidos",
    tag=TAG,
    summary="Correos del buzón de intercambio que no se recibieron",
    description="Los mensajes que el buzón leyó en los últimos 30 días y apartó sin recibir nada (demasiado "
    "grandes, ilegibles, un sobre rechazado...), el más nuevo primero, hasta 100: a quién pedirle que los envíe de "
    "nuevo. Un mensaje sin ningún XML (lo que llega a cualquier dirección pública) no se lista.",
    auth=BOTH,
    roles=ALL,
    responses={200: CorreosNoRecibidos},
)
def correos_no_recibidos(principal: Principal):
    """The exchange mailbox's messages set aside in the last 30 days, newest first."""
    return listing.unreceived_mail(db.session(), principal.company_id, datetime.now(UTC) - timedelta(days=30))


@operation(
    bp,
    "GET",
    "/<int:recibido_id>",
    tag=TAG,
    summary="Ver un CFE recibido (JSON, XML firmado o PDF)",
    auth=BOTH,
    roles=ALL,
    path_params=_ID,
    query=VerQuery,
    responses={
        200: {
            "description": "JSON con líneas, totales y nuestras respuestas; el CFE firmado tal como llegó "
            "(`formato=xml` o Accept: application/xml); su representación impresa, hecha desde el XML del proveedor "
            "(`formato=pdf` o Accept: application/pdf).",
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/RecibidoCompleto"}},
                "application/xml": {"schema": {"type": "string"}},
                "application/pdf": {"schema": {"type": "string", "format": "binary"}},
            },
        },
        404: "No existe o es de otra empresa.",
        406: "Formato no disponible (not_acceptable): Accept no admite JSON, XML ni PDF.",
        422: "El formato pedido no existe, o el CFE no se puede imprimir.",
    },
)
def ver(recibido_id: int, principal: Principal, query: VerQuery):
    """One received CFE."""
    row = _row(principal, recibido_id)
    formato = query.formato or _FORMATS[negotiate("application/json", "application/xml", "application/pdf")]
    name = f"CFE_{row.rut_emisor}_{row.tipo_cfe}_{row.serie}{row.nro}"
    if formato == "xml":
        response = Response(row.xml, mimetype="application/xml")
        response.headers["Content-Disposition"] = f'inline; filename="{name}.xml"'
        return response
    if formato == "pdf":
        return _pdf(row, name)
    return listing.completo(db.session(), row)


@operation(
    bp,
    "GET",
    "/<int:recibido_id>/respuestas/<int:respuesta_id>",
    tag=TAG,
    summary="Descargar una de nuestras respuestas (ACKSobre o ACKCFE firmado)",
    auth=BOTH,
    roles=ALL,
    path_params={
        **_ID,
        "respuesta_id": "El número de la respuesta (su IDRespuesta), como lo lista el CFE recibido.",
    },
    responses={
        200: {"description": "El documento firmado.", "content": {"application/xml": {"schema": {"type": "string"}}}},
        404: "No existe, no es de este CFE o es de otra empresa.",
    },
)
def respuesta(recibido_id: int, respuesta_id: int, principal: Principal):
    """One of our signed answers about this CFE (its envelope's ACKSobre and ACKCFE, or its own decision)."""
    row = _row(principal, recibido_id)
    answer = db.session().scalar(
        select(ExchangeAnswer).where(
            ExchangeAnswer.company_id == principal.company_id, ExchangeAnswer.id_respuesta == respuesta_id
        )
    )
    if answer is None or answer.sobre_id != row.sobre_id or answer.cfe_id not in (None, row.id):
        raise NotFound(_("No existe esa respuesta para este CFE."), code="respuesta_no_encontrada")
    response = Response(answer.document, mimetype="application/xml")
    response.headers["Content-Disposition"] = f'attachment; filename="{answer.filename}"'
    return response


def _pdf(row: ReceivedCfe, name: str) -> Response:
    doc = listing.readable(row)
    if doc is None or row.estado != "AE":
        raise ValidationFailed(
            [FieldError("formato", "no_imprimible", _("Este CFE fue rechazado al recibirlo y no se puede imprimir."))]
        )
    supplier = Issuer(
        rut=doc.emisor.rut,
        razon_social=doc.emisor.razon_social or "-",
        cdg_dgi_sucursal=1,
        domicilio_fiscal=doc.emisor.domicilio or "-",
        ciudad=doc.emisor.ciudad or "-",
        departamento=doc.emisor.departamento or "-",
    )
    response = Response(render_receipt(row.xml, supplier, adenda=row.adenda), mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="{name}.pdf"'
    return response


@operation(
    bp,
    "POST",
    "",
    tag=TAG,
    summary="Subir sobres recibidos (XML o ZIP)",
    description="Uno o más archivos `archivos` (multipart/form-data): sobres EnvioCFE_entreEmpresas, o ZIP que "
    "los contengan. Cada sobre se controla y se responde al proveedor (ACKSobre y ACKCFE) como si hubiera llegado "
    "por el servicio web o el correo; uno roto queda rechazado (BS) con su motivo. Un archivo hostil (ZIP ilegible, "
    "cifrado, anidado o que se expande demasiado) rechaza la carga entera: no se guarda nada. La carga se guarda "
    "entera o nada: si un sobre no se puede tomar (el servicio está ocupado), la respuesta lo nombra y no se recibe "
    "ninguno, así que repetirla no le contesta al proveedor que un sobre está repetido (S20).",
    auth=BOTH,
    roles=WRITERS,
    raw_body={
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "properties": {"archivos": {"type": "array", "items": {"type": "string", "format": "binary"}}},
                "required": ["archivos"],
            }
        }
    },
    responses={
        201: ResultadoCarga,
        409: "La empresa no tiene un certificado de firma vigente para firmar sus respuestas.",
        413: "La carga supera 20 MB.",
        422: "Ningún archivo, o un archivo rechazado.",
        503: "`servicio_ocupado`: hay demasiados documentos XML en proceso; el mensaje nombra el archivo al que se "
        "llegó y no se recibió nada de la carga: repetila después de `Retry-After`.",
    },
)
def subir(principal: Principal):
    """Receive uploaded envelopes."""
    request.max_content_length = uploads.MAX_UPLOAD_BYTES
    files = [(f.filename or "sobre.xml", f.read()) for f in request.files.getlist("archivos")]
    envelopes = uploads.expand(files)
    channel = "portal" if request.headers.get("X-Canal") == "portal" else "api"
    received = tasks.receive_all_and_answer(principal.company_id, [(e.name, e.data) for e in envelopes], channel)
    results = []
    for envelope, result in zip(envelopes, received, strict=True):
        results.append(
            ResultadoSobre(
                archivo=envelope.name,
                sobre_id=result.id_receptor,
                estado=result.estado,
                motivos=[MotivoRecepcion.of(m) for m in result.motives],
                aceptados=result.accepted,
                rechazados=result.rejected,
                recibidos=result.cfe_ids,
                rut_emisor=result.rut_emisor,
                destino_respuesta=sending.destination(result.sobre_id),
            )
        )
    return ResultadoCarga(sobres=results), 201


def _locked(session: Session, principal: Principal, recibido_id: int) -> ReceivedCfe:
    """The row, locked until the write transaction ends: on PostgreSQL two decisions at once would both find it
    open and send the supplier an AE and a BE (SQLite's write lock at BEGIN already serialises them)."""
    row = session.scalar(
        select(ReceivedCfe)
        .where(ReceivedCfe.id == recibido_id, ReceivedCfe.company_id == principal.company_id)
        .with_for_update()
    )
    if row is None:
        raise NotFound(_("No existe un CFE recibido con ese id en tu empresa."), code="recibido_no_encontrado")
    return row


def _decide(principal: Principal, recibido_id: int, decision: str, code: str | None = None, text: str | None = None):
    with db.write_transaction() as session:
        row = _locked(session, principal, recibido_id)
        answer_id = decisions.decide(session, row, decision, principal.actor, code, text)
    tasks.wake([answer_id])
    return listing.completo(db.session(), _row(principal, recibido_id))


_DECISION_RESPONSES = {
    200: RecibidoCompleto,
    404: "No existe o es de otra empresa.",
    409: "Ya fue aceptado o rechazado, fue rechazado al recibirlo (BE), o DGI lo rechazó.",
}


@operation(
    bp,
    "POST",
    "/<int:recibido_id>/aceptar",
    tag=TAG,
    summary="Aceptar un CFE recibido",
    description="Registra la aceptación comercial y se la comunica al proveedor con un ACKCFE (AE).",
    auth=BOTH,
    roles=WRITERS,
    path_params=_ID,
    responses=_DECISION_RESPONSES,
)
def aceptar(recibido_id: int, principal: Principal):
    """Accept a received CFE."""
    return _decide(principal, recibido_id, "aceptado")


@operation(
    bp,
    "POST",
    "/<int:recibido_id>/rechazar",
    tag=TAG,
    summary="Rechazar comercialmente un CFE recibido (E20-E60)",
    description="Registra el rechazo y se lo comunica al proveedor con un segundo ACKCFE (BE con el motivo). "
    "No anula el CFE ante DGI: el proveedor debe emitir la nota que lo corrija.",
    auth=BOTH,
    roles=WRITERS,
    body=Rechazar,
    path_params=_ID,
    responses={
        **_DECISION_RESPONSES,
        409: "`ya_decidido`: ya fue aceptado o rechazado; `recibido_rechazado`: fue rechazado al recibirlo (BE); "
        "`rechazado_por_dgi`: DGI lo rechazó; `recibido_contabilizado`: está marcado como contabilizado (quitar la "
        "marca primero).",
        422: "Motivo desconocido, o falta el detalle de un motivo E27-E60.",
    },
)
def rechazar(recibido_id: int, body: Rechazar, principal: Principal):
    """Reject a received CFE commercially."""
    return _decide(principal, recibido_id, "rechazado", body.motivo, body.detalle)


def _book(principal: Principal, recibido_id: int, booked: bool):
    with db.write_transaction() as session:
        decisions.book(_locked(session, principal, recibido_id), booked)
    return listing.completo(db.session(), _row(principal, recibido_id))


@operation(
    bp,
    "POST",
    "/<int:recibido_id>/contabilizar",
    tag=TAG,
    summary="Marcar un CFE recibido como contabilizado",
    auth=BOTH,
    roles=WRITERS,
    path_params=_ID,
    responses={200: RecibidoCompleto, 404: "No existe o es de otra empresa.", 409: "Rechazado: no se contabiliza."},
)
def contabilizar(recibido_id: int, principal: Principal):
    """Book a received CFE (idempotent)."""
    return _book(principal, recibido_id, True)


@operation(
    bp,
    "POST",
    "/contabilizar",
    tag=TAG,
    summary="Marcar varios CFE recibidos como contabilizados",
    description="Los que se pueden contabilizar quedan marcados (los que ya lo estaban también cuentan); los "
    "rechazados (al recibirlos, comercialmente o por DGI) y los que no existen en la empresa se listan aparte, sin "
    "que falle el resto. Una sola transacción.",
    auth=BOTH,
    roles=WRITERS,
    body=ContabilizarVarios,
    responses={200: ContabilizadosVarios, 422: "Sin ids, más de 500, o un id repetido."},
)
def contabilizar_varios(body: ContabilizarVarios, principal: Principal):
    """Book several received CFEs at once: what can be booked is, the rest is said one by one."""
    booked: list[int] = []
    refused: list[NoContabilizable] = []
    with db.write_transaction() as session:
        rows, missing = decisions.chosen(session, principal.company_id, body.ids)
        for row in rows:
            try:
                decisions.book(row, True)
            except ApiError as exc:
                refused.append(_not_done(NoContabilizable, row, exc))
            else:
                booked.append(row.id)
    return ContabilizadosVarios(contabilizados=booked, no_contabilizables=refused, inexistentes=missing)


def _not_done(model: type[NotDone], row: ReceivedCfe, exc: ApiError) -> NotDone:
    """A CFE a call on several left as it was, with the refusal a call for it alone answers."""
    return model(
        id=row.id, tipo_cfe=row.tipo_cfe, serie=row.serie, nro=row.nro, codigo=exc.code, mensaje=say(exc.message)
    )


@operation(
    bp,
    "POST",
    "/rechazar",
    tag=TAG,
    summary="Rechazar comercialmente varios CFE recibidos con un mismo motivo (E20-E60)",
    description="A cada uno se le aplican las reglas del rechazo de uno solo y a su proveedor se le envía el mismo "
    "ACKCFE (BE con el motivo), por el mismo canal. Los que esas reglas no dejan rechazar (ya aceptados o "
    "rechazados, rechazados al recibirlos o por DGI, marcados como contabilizados) se listan con el motivo, y los "
    "que no existen en la empresa aparte, sin que falle el resto. Una sola transacción; "
    f"hasta {REJECT_MANY_LIMIT} ids por llamada. Repetir la llamada nunca le responde dos veces a un proveedor: con "
    "la misma Idempotency-Key devuelve la primera respuesta; sin ella, cada uno figura como ya rechazado.",
    auth=BOTH,
    roles=WRITERS,
    body=RechazarVarios,
    extra_headers={
        "Idempotency-Key": idempotency_header(
            "Clave única por rechazo (un doble clic, un reintento): repetir la solicitud con la misma clave "
            "devuelve la misma respuesta, sin rechazar ni responder nada otra vez."
        )
    },
    responses={
        200: RechazadosVarios,
        400: "`idempotency_key_invalid`: Idempotency-Key no válida.",
        409: "`idempotency_in_progress`: una solicitud con la misma Idempotency-Key está en curso.",
        422: f"Sin ids, más de {REJECT_MANY_LIMIT} o un id repetido; motivo desconocido; falta el detalle de un "
        "motivo E27-E60; o la Idempotency-Key ya se usó con otro cuerpo (`idempotency_key_reused`). No se rechaza "
        "nada.",
    },
)
def rechazar_varios(body: RechazarVarios, principal: Principal):
    """Reject several received CFEs with one motive: each as a rejection of it alone, the rest said one by one."""
    decisions.check_motive(body.motivo, body.detalle)
    requested = idempotency.requested_key("recibidos.rechazar")
    try:
        with db.write_transaction() as session:
            if requested is not None and (replay := idempotency.lookup(session, principal.company_id, requested)):
                return replay
            several = decisions.reject_several(
                session, principal.company_id, body.ids, principal.actor, body.motivo, body.detalle
            )
            answer = RechazadosVarios(
                rechazados=several.done,
                no_rechazables=[_not_done(NoRechazable, row, exc) for row, exc in several.refused],
                inexistentes=several.missing,
            )
            if requested is not None:
                idempotency.record(session, principal.company_id, requested, 200, responses.dump(answer))
    except IntegrityError:
        # PostgreSQL: the same key's first request committed while this one waited on its rows; this one's work is
        # rolled back, and the first one's answer is the answer.
        replay = idempotency.recorded(principal.company_id, requested) if requested is not None else None
        if replay is None:
            raise
        return replay
    tasks.wake(several.answer_ids)
    return answer


@operation(
    bp,
    "POST",
    "/contabilizar-filtrados",
    tag=TAG,
    summary="Marcar como contabilizados todos los CFE recibidos que cumplen los filtros",
    description="Los filtros de la lista (GET /recibidos), en el cuerpo; un mes de compras es `desde` y `hasta`. "
    "Se marcan los que se pueden contabilizar y no lo están (los rechazados no), hasta `hastaId` si se manda, y "
    f"hasta {BOOK_FILTERED_LIMIT} por llamada: `quedan` dice cuántos siguen sin marcar. Una sola transacción; "
    "repetir la llamada no marca nada dos veces.",
    auth=BOTH,
    roles=WRITERS,
    body=ContabilizarFiltrados,
    responses={200: ContabilizadosFiltrados, 422: "Un filtro que no se entiende."},
)
def contabilizar_filtrados(body: ContabilizarFiltrados, principal: Principal):
    """Book every received CFE the filters match, up to the id the caller counted."""
    with db.write_transaction() as session:
        booked, left = decisions.book_matching(
            session, listing.conditions(principal.company_id, body), body.hasta_id, BOOK_FILTERED_LIMIT
        )
    return ContabilizadosFiltrados(contabilizados=booked, quedan=left)


@operation(
    bp,
    "POST",
    "/<int:recibido_id>/descontabilizar",
    tag=TAG,
    summary="Quitar la marca de contabilizado",
    auth=BOTH,
    roles=WRITERS,
    path_params=_ID,
    responses={200: RecibidoCompleto, 404: "No existe o es de otra empresa."},
)
def descontabilizar(recibido_id: int, principal: Principal):
    """Unbook a received CFE (idempotent)."""
    return _book(principal, recibido_id, False)
