"""What support and admins see: envelopes with DGI's acknowledgements, receipts still waiting (and why),
daily reports with their answers, voided ranges. Always within the caller's company."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import current_app
from sqlalchemy import case, func, select

from portal.service.comprobante.models import IssuedCfe, VoidedRange
from portal.service.comprobante.tracking_schemas import Motivo
from portal.service.envios import outage, schemas
from portal.service.envios.models import DgiDailyReport, DgiEnvelope, DgiSubmission
from portal.service.envios.states import FINAL_STATES, ROUTE_ENVELOPE, STATES, in_words
from portal.service.envios.tracking import overdue
from portal.service.platform.i18n import said_or, say
from portal.service.platform.paging import keyset


def _page(session, query, order: tuple, page: schemas.Lista) -> tuple[list, str | None, int]:
    """One page (newest first, keyset on `order`), the next page's cursor and how many there are in all."""
    total = session.scalar(select(func.count()).select_from(query.subquery()))
    rows, following = keyset(session, query, order, page.cursor, page.limite, lambda row: _key(row[0], order))
    return rows, following, total


def _key(record, order: tuple) -> tuple:
    return tuple(getattr(record, column.key) for column in order)


def _motives(stored: list[dict] | None) -> list[Motivo]:
    """DGI's stored motives as the lists answer them: DGI's glosa, and `texto` in the reader's language."""
    return [Motivo.model_validate(m) for m in in_words(stored)]


def envelopes(session, company_id: int, page: schemas.Lista, only_id: int | None = None) -> schemas.SobreLista:
    query = select(DgiEnvelope).where(DgiEnvelope.company_id == company_id)
    if only_id is not None:
        query = query.where(DgiEnvelope.id == only_id)
    rows, following, total = _page(session, query, (DgiEnvelope.id,), page)
    late = datetime.now(UTC) - timedelta(minutes=current_app.config["ENVIOS_OVERDUE_MINUTES"])
    # (receipts still in it, rejected) per envelope: after an S08 those DGI never received left for a new one
    counts = {
        envelope_id: (held, rejected or 0)
        for envelope_id, held, rejected in session.execute(
            select(
                DgiSubmission.envelope_id,
                func.count(),
                func.sum(case((DgiSubmission.state == "rechazado", 1), else_=0)),
            )
            .where(DgiSubmission.envelope_id.in_([r[0].id for r in rows]))
            .group_by(DgiSubmission.envelope_id)
        ).all()
    }
    result = []
    for (sobre,) in rows:
        held, rejected = counts.get(sobre.id, (0, 0))
        answered = sobre.state == "respondido"
        result.append(
            schemas.Sobre(
                id_sobre=sobre.id,
                id_emisor=sobre.idemisor,
                archivo=sobre.file_name,
                cantidad_cfe=sobre.cfe_count,
                estado=sobre.state,
                acuse=sobre.ack_state,
                motivos=_motives(sobre.ack_motives),
                firma_acuse=sobre.ack_signature,
                firma_respuesta=sobre.answer_signature,
                documentos=_envelope_documents(sobre),
                id_receptor=sobre.id_receptor,
                token=sobre.token,
                consultar_desde=sobre.query_after,
                intentos=sobre.attempts,
                ultimo_error=said_or(sobre.last_error_texts, sobre.last_error),
                proximo_intento=sobre.next_attempt_at,
                aceptados=held - rejected if answered else 0,
                rechazados=rejected,
                demorado=sobre.state in ("armado", "recibido", "error") and sobre.created_at < late,
                creado_en=sobre.created_at,
                enviado_en=sobre.sent_at,
                recibido_en=sobre.received_at,
                respondido_en=sobre.answered_at,
            )
        )
    return schemas.SobreLista(items=result, siguiente_cursor=following, total=total)


def waiting(session, company_id: int, page: schemas.Lista) -> schemas.PendienteLista:
    """Receipts sent one by one that have no final answer yet, the latest first."""
    query = (
        select(DgiSubmission, IssuedCfe, DgiEnvelope)
        .join(IssuedCfe, IssuedCfe.id == DgiSubmission.cfe_id)
        .outerjoin(DgiEnvelope, DgiEnvelope.id == DgiSubmission.envelope_id)
        .where(
            DgiSubmission.company_id == company_id,
            DgiSubmission.route == ROUTE_ENVELOPE,
            DgiSubmission.state.not_in(FINAL_STATES),
        )
    )
    rows, following, total = _page(session, query, (DgiSubmission.created_at, DgiSubmission.cfe_id), page)
    # While DGI does not answer, nothing is retried on its own clock: everything goes when a probe finds DGI again.
    seen = outage.status(session)
    probe = seen.next_probe_at if seen.down_since else None
    items = [
        schemas.Pendiente(
            id_cfe_emitido=record.id,
            tipo_cfe=record.tipo_cfe,
            serie=record.serie,
            nro=record.nro,
            estado=sub.state,
            descripcion=say(STATES.get(sub.state, "")),
            motivo_espera=said_or(sobre.last_error_texts, sobre.last_error) if sobre else None,
            motivos=_motives(sub.motives),
            id_sobre=sobre.id if sobre else None,
            intentos=sobre.attempts if sobre else 0,
            proximo_intento=(sobre.next_attempt_at if sobre else None) or probe,
            demorado=overdue(sub),
            registrado_en=sub.created_at,
        )
        for sub, record, sobre in rows
    ]
    late = datetime.now(UTC) - timedelta(minutes=current_app.config["ENVIOS_OVERDUE_MINUTES"])
    overdue_count = session.scalar(
        select(func.count())
        .select_from(DgiSubmission)
        .where(
            DgiSubmission.company_id == company_id,
            DgiSubmission.route == ROUTE_ENVELOPE,
            DgiSubmission.state.not_in(FINAL_STATES),
            DgiSubmission.created_at < late,
        )
    )
    return schemas.PendienteLista(items=items, siguiente_cursor=following, total=total, demorados=overdue_count)


def _envelope_documents(sobre: DgiEnvelope) -> list[schemas.EnvelopeDocument]:
    documents: list[schemas.EnvelopeDocument] = ["sobre"]
    if sobre.ack_xml:
        documents.append("acuse")
    if sobre.answer_xml:
        documents.append("respuesta")
    return documents


def _report_documents(report: DgiDailyReport) -> list[schemas.ReportDocument]:
    return ["reporte", "acuse"] if report.ack_xml else ["reporte"]


def report_out(report: DgiDailyReport) -> schemas.Reporte:
    return schemas.Reporte(
        id_reporte=report.id,
        fecha=report.fecha,
        sec_envio=report.sec_envio,
        archivo=report.file_name,
        cantidad_comprobantes=report.cfe_count,
        estado=report.state,
        acuse=report.ack_state,
        motivos=_motives(report.ack_motives),
        firma_acuse=report.ack_signature,
        documentos=_report_documents(report),
        intentos=report.attempts,
        ultimo_error=said_or(report.last_error_texts, report.last_error),
        creado_por=report.created_by,
        creado_en=report.created_at,
        respondido_en=report.answered_at,
    )


def daily_reports(session, company_id: int, page: schemas.Lista) -> schemas.ReporteLista:
    order = (DgiDailyReport.fecha, DgiDailyReport.sec_envio)
    query = select(DgiDailyReport).where(DgiDailyReport.company_id == company_id)
    rows, following, total = _page(session, query, order, page)
    return schemas.ReporteLista(items=[report_out(r) for (r,) in rows], siguiente_cursor=following, total=total)


def void_out(voided: VoidedRange) -> schemas.Anulacion:
    return schemas.Anulacion(
        id_anulacion=voided.id,
        tipo_cfe=voided.tipo_cfe,
        serie=voided.serie,
        nro_desde=voided.nro_desde,
        nro_hasta=voided.nro_hasta,
        fecha=voided.fecha,
        origen=voided.source,
        motivo=said_or(voided.reason_texts, voided.reason),
        id_cfe_emitido=voided.cfe_id,
        creado_por=voided.created_by,
        creado_en=voided.created_at,
    )


def voided_ranges(session, company_id: int, page: schemas.Lista) -> schemas.AnulacionLista:
    query = select(VoidedRange).where(VoidedRange.company_id == company_id)
    rows, following, total = _page(session, query, (VoidedRange.id,), page)
    return schemas.AnulacionLista(items=[void_out(v) for (v,) in rows], siguiente_cursor=following, total=total)
