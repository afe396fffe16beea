"""HTTP endpoints of the Comprobante group: issue, fetch, sign an XML, preview, collection references."""

from __future__ import annotations

import functools
import json

from flask import Flask, Response, current_app, request, send_file
from sqlalchemy import Select, bindparam, select
from sqlalchemy.orm import defer

from portal.domain.roles import ALL, WRITERS
from portal.service.cfe import CfeInput, XmlInputError, warm_up
from portal.service.cfe.pdf_base import PAPERS, ROLL_TYPES, PaperNotAllowed, check_paper
from portal.service.cfe.schema import schema_available, validate_cfe
from portal.service.cfe.xmlsafe import MAX_XML_BYTES, XmlIntakeBusy, intake
from portal.service.comprobante import answer_tag, fastpath, hooks, issuing, previews, references, search
from portal.service.comprobante import note_routes as _note_routes  # noqa: F401 - adds the note endpoints to bp
from portal.service.comprobante.blueprint import BOTH, IDEMPOTENCY, TAG, bp
from portal.service.comprobante.export import DGI_STATE_NAMES, HEADER, csv_chunks, xlsx_file
from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe
from portal.service.comprobante.presenters import cfe_emitido, resultado_busqueda
from portal.service.comprobante.schemas import (
    BuscarQuery,
    CfeEmitido,
    GetByIdQuery,
    PreviewLink,
    PreviewQuery,
    ReaplicarReferencia,
    ReferenciaAplicada,
    ResultadoBusqueda,
)
from portal.service.platform import db, downloads, idempotency, keystore, responses, spreadsheet
from portal.service.platform.api import negotiate, operation
from portal.service.platform.auth import Principal
from portal.service.platform.errors import ApiError, FieldError, NotFound, ValidationFailed
from portal.service.platform.files import file_response
from portal.service.platform.i18n import _, language, say
from portal.service.platform.models import Company
from portal.service.platform.publicurl import public_url
from portal.service.platform.zipstream import ZIP, zip_chunks

_LIST_MEDIA = {"json": "application/json", "csv": "text/csv", "xlsx": spreadsheet.XLSX, "zip": ZIP}
_PDF = {"description": "El PDF.", "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}}
_ROLL_422 = (
    "Datos no válidos (`fields` indica cuáles), o `formato` 80mm/57mm pedido para un tipo que no es "
    "e-Ticket ni sus notas."
)


@operation(
    bp,
    "POST",
    "/emitir",
    tag=TAG,
    summary="Emitir un comprobante",
    auth=BOTH,
    roles=WRITERS,
    body=CfeInput,
    responses={
        201: CfeEmitido,
        409: "Sin CAE vigente, la empresa sin domicilio fiscal (`emisor_sin_domicilio`: ni sucursal ni domicilio) "
        "o Idempotency-Key en curso; para un comprobante de contingencia en papel (tipoCFE "
        "2xx): `cfc_ya_ingresado` (ese papel ya se ingresó) o `cfc_numero_anulado` (ese número de la libreta "
        "está anulado).",
        422: "Datos no válidos (`fields` indica cuáles). Para un comprobante de contingencia en papel: "
        "`cfc_fuera_de_libreta` (ninguna libreta registrada de ese tipo y serie tiene ese número), "
        "`cfc_tipo_distinto` (el número es de una libreta de otro tipo, o `contingencia` con un tipo 1xx), "
        "`libreta_no_vigente` / `libreta_vencida` (la fecha del papel está fuera de las fechas de la libreta), "
        "`cfc_fecha_futura` (la fecha del papel es posterior a hoy).",
    },
    extra_headers=IDEMPOTENCY,
)
def emitir(body: CfeInput, principal: Principal):
    """Numbers, signs and stores a CFE (XML per CFEDGI.xsd 1.44.2, XMLDSig) and returns it. A paper contingency
    receipt (tipoCFE the 1xx type + 100, 201-282, with `contingencia` and the paper's `fchEmis`) is keyed in
    instead: checked against the registered contingency books, signed with the paper's serie and number as its
    1xx element with TipoCFE 2xx, and sent to DGI only (never to the customer nor to an electronic receiver)."""
    result = fastpath.emitir(principal, body, idempotency.requested_key("comprobante.emitir"))
    if result.replay is not None:
        return result.replay
    answer = result.answer
    # JSON values already (responses.dump): one plain encoding, not jsonify's (sorted keys, its provider's hooks).
    return Response(json.dumps(answer, ensure_ascii=False, separators=(",", ":")), 201, mimetype="application/json")


def _receipt_statement(json_only: bool) -> Select:
    """The receipt with its CAE range (a paper CFC has none) and the rows other areas read for its answer (its
    DGI state: hooks) in one query: the answer's session.get() of those then finds them in the session instead
    of asking again. The JSON answer reads neither the signed XML nor the issuer's snapshot (the PDF's).
    Built once per process and set of registered sections: building it, and SQLAlchemy's cache key for it
    (kept on the statement object), were an eighth of the call's CPU."""
    return _built_receipt_statement(json_only, hooks.sections())


@functools.lru_cache(maxsize=8)
def _built_receipt_statement(json_only: bool, _sections: tuple) -> Select:
    statement = hooks.with_prefetched(
        select(IssuedCfe, CaeRangeRecord)
        .outerjoin(CaeRangeRecord, CaeRangeRecord.id == IssuedCfe.cae_range_id)
        .where(IssuedCfe.id == bindparam("cfe_id"), IssuedCfe.company_id == bindparam("company_id"))
    )
    return statement.options(defer(IssuedCfe.xml), defer(IssuedCfe.issuer_json)) if json_only else statement


_ETAG = {
    "description": "Solo en JSON: cambia con todo lo que la respuesta muestra (estado ante DGI, notas, "
    "referencias, correo, intercambio, idioma); para If-None-Match.",
    "schema": {"type": "string"},
}
_JSON_CACHE = {
    "description": "Solo en JSON: `private, no-cache`, la respuesta puede guardarla el cliente (no un caché "
    "compartido) y debe revalidarla con If-None-Match antes de usarla.",
    "schema": {"type": "string"},
}


@operation(
    bp,
    "GET",
    "/getByIdCfeEmitido",
    tag=TAG,
    summary="Obtener un comprobante emitido",
    auth=BOTH,
    roles=ALL,
    query=GetByIdQuery,
    responses={
        200: {
            "description": "JSON por defecto; el XML firmado con Accept: application/xml; el "
            "PDF con Accept: application/pdf.",
            "headers": {"ETag": _ETAG, "Cache-Control": _JSON_CACHE},
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/CfeEmitido"}},
                "application/xml": {"schema": {"type": "string"}},
                "application/pdf": {"schema": {"type": "string", "format": "binary"}},
            },
        },
        304: {
            "description": "El JSON no cambió desde el ETag de If-None-Match (sin cuerpo): el comprobante, su "
            "estado ante DGI, sus notas, referencias, envíos por correo e intercambio son los de esa respuesta.",
            "headers": {"ETag": _ETAG, "Cache-Control": _JSON_CACHE},
        },
        404: "No existe o es de otra empresa.",
        406: "Formato no disponible.",
        422: _ROLL_422,
    },
    extra_headers={
        "If-None-Match": "ETag de una respuesta JSON anterior: si el comprobante se muestra igual, 304 sin cuerpo."
    },
)
def get_by_id(query: GetByIdQuery, principal: Principal):
    """Returns an issued receipt: JSON, the signed XML exactly as signed, or its PDF (Accept header), printed
    from the signed XML on A4 or, for e-Tickets and their notes, on an 80 or 57 mm roll (`formato`)."""
    session = db.session()
    try:
        wanted = negotiate("application/json", "application/xml", "application/pdf")
    except ApiError:
        wanted = None  # a receipt that is not there is a 404 whatever was asked for; one that is, a 406 below
    tag = None
    if wanted == "application/json":
        # Read before the answer is built (a change committed in between gives an older tag, never a newer
        # one), and only for a receipt of the caller's company: a 304 says it exists.
        tag = answer_tag.answer_tag(session, query.id_cfe_emitido, principal.company_id)
        if tag is None:
            raise NotFound(_("No existe ese comprobante en tu empresa."), code="cfe_no_encontrado")
        if answer_tag.matches(tag):
            return _revalidated(Response(status=304), tag)
    statement = _receipt_statement(json_only=wanted == "application/json")
    found = session.execute(statement, {"cfe_id": query.id_cfe_emitido, "company_id": principal.company_id}).first()
    if found is None:
        raise NotFound(_("No existe ese comprobante en tu empresa."), code="cfe_no_encontrado")
    record = found[0]
    wanted = wanted or negotiate("application/json", "application/xml", "application/pdf")
    name = f"CFE_{record.tipo_cfe}_{record.serie}{record.nro:07d}"
    if wanted == "application/xml":
        return _download(record.xml, "application/xml", f"{name}.xml")
    if wanted == "application/pdf":
        paper = _paper(issuing.printed_paper(session, record), record.tipo_cfe, query.formato)
        logo = issuing.printed_logo(session, record)
        pdf = issuing.receipt_pdf(record, logo=logo, paper=paper, bilingual=query.bilingue)
        return _download(pdf, "application/pdf", f"{name}.pdf")
    answer = cfe_emitido(record, [], session)
    # The receipt's e-mail sends ride along, so a page showing the receipt asks once (correo/tracking.py).
    answer.correo = hooks.mail_summary(session, record)
    if answer.dgi is not None:  # DGI not answering while the receipt waits: the page says it without asking again
        answer.dgi.dgi_sin_respuesta_desde = hooks.dgi_down_since(session, answer.dgi)
    return _revalidated(Response(responses.dump_json(answer), mimetype="application/json"), tag)


def _revalidated(response: Response, tag: str | None) -> Response:
    """A JSON answer (or its 304) that a client may keep, for itself only (`private`: the receipt is its
    company's), and must ask about again before each use (`no-cache`, with If-None-Match): the service's
    default for JSON is `no-store`, which tells an HTTP cache not to keep what the ETag is there to revalidate."""
    if tag is not None:
        response.headers["ETag"] = tag
    response.headers["Cache-Control"] = "private, no-cache"
    response.vary.add("Accept")
    response.vary.add("Accept-Language")
    return response


def _paper(default: str, tipo_cfe: int, asked: str | None) -> str:
    """The paper asked for (a roll for another type is a 422), else `default` (the receipt's, as it was
    issued), else A4."""
    if asked is None:
        return default if default in PAPERS and (default == "a4" or tipo_cfe in ROLL_TYPES) else "a4"
    try:
        check_paper(tipo_cfe, asked)
    except PaperNotAllowed as exc:
        # exc.args[0], not str(exc): the catalogue's message, said in the client's language
        raise ValidationFailed(
            [FieldError("formato", "not_allowed", exc.args[0])],
            message=_("Ese formato de papel no corresponde a este tipo de comprobante."),
        ) from exc
    return asked


@operation(
    bp,
    "GET",
    "/buscar",
    tag=TAG,
    summary="Buscar comprobantes emitidos",
    auth=BOTH,
    roles=ALL,
    query=BuscarQuery,
    responses={
        200: {
            "description": "Una página en JSON (por defecto), o todos los que cumplen los filtros en CSV para "
            "planilla (`;`, coma decimal, dd/mm/aaaa, UTF-8 con BOM) o en XLSX (fechas y montos como tales, "
            "las notas de crédito negativas), con `formato` o con Accept: text/csv o "
            f"{spreadsheet.XLSX}.",
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/ResultadoBusqueda"}},
                "text/csv": {"schema": {"type": "string"}},
                spreadsheet.XLSX: {"schema": {"type": "string", "format": "binary"}},
                ZIP: {"schema": {"type": "string", "format": "binary"}},
            },
            "model": ResultadoBusqueda,
        },
        406: "Formato no disponible.",
        **downloads.RESPONSES,
    },
)
def buscar(query: BuscarQuery, principal: Principal):
    """The company's receipts however they were issued, newest first (date, then number); filters combine
    with AND. Pages with a cursor (`siguienteCursor`) that stays valid while receipts are being issued."""
    wanted = _LIST_MEDIA[query.formato] if query.formato else negotiate(*_LIST_MEDIA.values())
    filters = search.Filters(**query.model_dump(exclude={"cursor", "limite", "formato"}))
    session = db.session()
    where, totals_where = search.conditions_and_totals(session, principal.company_id, filters)
    company_id = principal.company_id
    if wanted == ZIP:
        chunks = downloads.held(company_id, lambda: zip_chunks(search.signed_xml_entries(db.new_session(), where)))
        return file_response(chunks, ZIP, "comprobantes-xml.zip", inline=False, vary=("Accept",))
    if wanted != "application/json":
        header = [say(name) for name in HEADER]
        states = {state: say(name) for state, name in DGI_STATE_NAMES.items()}
        if wanted == spreadsheet.XLSX:
            with downloads.building(company_id):
                every = search.export_rows_closing(db.new_session(), company_id, where)
                body = xlsx_file(every, header, say(_("Comprobantes")), states)
            response = send_file(body, mimetype=wanted, as_attachment=True, download_name="comprobantes.xlsx")
        else:
            lines = downloads.held(
                company_id,
                lambda: csv_chunks(search.export_rows_closing(db.new_session(), company_id, where), header, states),
            )
            response = file_response(lines, wanted, "comprobantes.csv", inline=False)
        response.vary.update(("Accept", "Accept-Language"))
        response.headers["Content-Language"] = language()
        return response
    rows, following = search.page(session, where, query.cursor, query.limite)
    cancelled = search.cancellations(session, principal.company_id, rows)
    result: ResultadoBusqueda = resultado_busqueda(
        rows, following, search.totals(session, totals_where, current_app.config["LIST_TOTALS_LIMIT"]), cancelled
    )
    response = Response(result.model_dump_json(by_alias=True), mimetype="application/json")
    response.vary.add("Accept")
    return response


def _download(content: bytes, mimetype: str, filename: str) -> Response:
    return file_response(content, mimetype, filename, inline=True, vary=("Accept",))


# A whole (small) unsigned e-Ticket, so that the example signs as it stands.
_UNSIGNED_EXAMPLE = (
    '<CFE xmlns="http://cfe.dgi.gub.uy" version="1.0"><eTck><TmstFirma>2026-11-22T10:00:00-03:00</TmstFirma>'
    "<Encabezado><IdDoc><TipoCFE>101</TipoCFE><Serie>A</Serie><Nro>1</Nro><FchEmis>2026-11-22</FchEmis>"
    "<FmaPago>1</FmaPago></IdDoc><Emisor><RUCEmisor>219999830019</RUCEmisor><RznSoc>Demo S.A.</RznSoc>"
    "<CdgDGISucur>1</CdgDGISucur><DomFiscal>Av. 18 de Julio 1000</DomFiscal><Ciudad>Montevideo</Ciudad>"
    "<Departamento>Montevideo</Departamento></Emisor><Totales><TpoMoneda>UYU</TpoMoneda>"
    "<MntNoGrv>100.00</MntNoGrv><MntTotal>100.00</MntTotal><CantLinDet>1</CantLinDet><MntPagar>100.00</MntPagar>"
    "</Totales></Encabezado><Detalle><Item><NroLinDet>1</NroLinDet><IndFact>1</IndFact><NomItem>Servicio</NomItem>"
    "<Cantidad>1</Cantidad><PrecioUnitario>100.00</PrecioUnitario><MontoItem>100.00</MontoItem></Item></Detalle>"
    "</eTck></CFE>"
)


_SIGNATURE_OVERHEAD = 2048  # the Signature element around the certificate, in bytes


def _signed_too_large() -> ApiError:
    return ApiError(
        _("El CFE firmado superaría el máximo de {kb} KB; enviá uno más chico.", kb=MAX_XML_BYTES // 1024),
        code="payload_too_large",
        status=413,
    )


@operation(
    bp,
    "POST",
    "/firmarXml",
    tag=TAG,
    summary="Firmar un XML",
    auth=BOTH,
    roles=WRITERS,
    raw_body={"application/xml": {"schema": {"type": "string"}, "example": _UNSIGNED_EXAMPLE}},
    responses={
        200: {
            "description": "El CFE firmado (XMLDSig enveloped, C14N inclusiva).",
            "content": {"application/xml": {"schema": {"type": "string"}}},
        },
        409: "Sin certificado vigente.",
        413: "Más de 2 MB, o el CFE firmado los superaría.",
        503: "Demasiados documentos XML en proceso a la vez (Retry-After).",
    },
)
def firmar_xml(principal: Principal):
    """Signs an unsigned CFE with the company's certificate. DOCTYPEs are refused; errors say where."""
    if request.mimetype not in ("application/xml", "text/xml"):
        raise ApiError(
            _("El cuerpo debe ser XML (Content-Type: application/xml)."), code="unsupported_media_type", status=415
        )
    cert = keystore.signing_certificate(db.session(), principal.company_id)
    data = request.get_data()
    # The signature adds a few KB (most of it the certificate): an input that near the cap would sign into a
    # document past it, which nobody may send on. Refused before any work; the check after signing is exact.
    if len(data) + len(cert.cert_pem) + _SIGNATURE_OVERHEAD > MAX_XML_BYTES:
        raise _signed_too_large()
    try:
        # Parsing, signing and re-reading for the schema share one CPU budget and one of a few intake slots.
        with intake():
            signed = keystore.signer_for(cert).sign_external_xml(data)
            if len(signed.xml) > MAX_XML_BYTES:
                raise _signed_too_large()
            schema_errors = validate_cfe(signed.xml) if schema_available() else []
    except XmlIntakeBusy as exc:
        raise ApiError(exc.text, code="servicio_ocupado", status=503, headers={"Retry-After": "2"}) from exc
    except XmlInputError as exc:
        raise ValidationFailed([FieldError(exc.where, "xml_invalido", exc.message)], message=exc.text) from exc
    response = Response(signed.xml, mimetype="application/xml")
    response.headers["X-CFE-Digest"] = signed.digest
    if schema_errors:
        # Signed as asked, but say plainly that DGI would reject it.
        response.headers["X-CFE-Schema-Errors"] = str(len(schema_errors))
    return response


@operation(
    bp,
    "POST",
    "/previsualizar",
    tag=TAG,
    summary="Previsualizar un comprobante (PDF)",
    auth=BOTH,
    roles=WRITERS,
    body=CfeInput,
    responses={
        200: {
            "description": "Con Accept: application/pdf, el PDF con marca SIN VALOR FISCAL; con "
            "Accept: application/json, un enlace temporal.",
            "content": {
                "application/pdf": {"schema": {"type": "string", "format": "binary"}},
                "application/json": {"schema": {"$ref": "#/components/schemas/PreviewLink"}},
            },
        },
        201: PreviewLink,
        422: _ROLL_422,
    },
    query=PreviewQuery,
)
def previsualizar(body: CfeInput, query: PreviewQuery, principal: Principal):
    """Renders the receipt as it would print, watermarked SIN VALOR FISCAL; consumes no number. `formato`
    chooses A4 or, for e-Tickets and their notes, an 80 or 57 mm roll (another type on a roll is a 422)."""
    wanted = negotiate("application/pdf", "application/json")
    session = db.session()
    company = session.get_one(Company, principal.company_id)
    settings = hooks.company_settings()
    paper = _paper(settings.paper(session, company.id), body.tipo_cfe, query.formato)
    pdf = issuing.preview_pdf(company, body, logo=settings.logo(session, company.id), paper=paper)
    if wanted == "application/pdf":
        return _download(pdf, "application/pdf", "previsualizacion.pdf")
    token, expires = previews.store(company.id, pdf)
    link = PreviewLink(token=token, url=public_url("comprobante.previsualizar_token", token=token), expires_at=expires)
    return link, 201


@operation(
    bp,
    "GET",
    "/previsualizar/<token>",
    tag=TAG,
    summary="PDF de previsualización por token",
    auth=BOTH,
    roles=ALL,
    path_params={"token": "El token que devolvió previsualizar."},
    responses={200: _PDF, 404: "Token inexistente, vencido o de otra empresa."},
)
def previsualizar_token(token: str, principal: Principal):
    """Serves a preview PDF while its token lives (10 minutes)."""
    pdf = previews.find(token, principal.company_id)
    if pdf is None:
        raise NotFound(_("La previsualización no existe o venció."), code="previsualizacion_no_encontrada")
    response = _download(pdf, "application/pdf", "previsualizacion.pdf")
    response.headers["Cache-Control"] = "no-store"
    return response


@operation(
    bp,
    "POST",
    "/reaplicarReferencia",
    tag=TAG,
    summary="Reaplicar una referencia de cobro",
    auth=BOTH,
    roles=WRITERS,
    body=ReaplicarReferencia,
    responses={200: ReferenciaAplicada, 404: "No existe."},
)
def reaplicar_referencia(body: ReaplicarReferencia, principal: Principal):
    """Links a receipt to a collection reference again; recorded with who and when; replaying is harmless."""
    return references.reapply(principal, body)


def init_app(app: Flask) -> None:
    # DGI's samples sign with SHA-1; current receipts carry SHA-256 digests (see CFE-URUGUAY.md §4).
    app.config.setdefault("CFE_SIGNATURE_ALGORITHM", "sha256")
    # Compile DGI's XSD and cut the PDF font now (once per process), not on the first receipt.
    warm_up(app.config["PDF_FONT"], app.config["FONT_DIR"])
