"""Each receipt's DGI state: recorded when it is issued (inside the issuing transaction), moved by the
packer and DGI's answers, and presented with the receipt (the `dgi` key of getByIdCfeEmitido)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import NoReturn

from flask import current_app
from sqlalchemy.orm import Session

from portal.domain.cfe_types import cfe_type
from portal.service.cfe import CfeInput, Totals
from portal.service.cfe.contingency import is_cfc
from portal.service.cfe.rules import receiver_required
from portal.service.comprobante.models import IssuedCfe, VoidedRange
from portal.service.comprobante.tracking_schemas import EstadoDgi
from portal.service.envios.models import DgiDailyReport, DgiEnvelope, DgiSubmission
from portal.service.envios.states import FINAL_STATES, ROUTE_ENVELOPE, ROUTE_REPORT, STATES, in_words
from portal.service.platform.errors import FieldError, ValidationFailed
from portal.service.platform.i18n import _, said_or, say


def route_for(cfe: CfeInput, ui_value: Decimal, totals: Totals) -> str:
    """ "sobre" for every CFE DGI must receive one by one; "reporte" for an e-Ticket below the Tabla E
    threshold without retentions or perceptions. The threshold is the engine's own rule (the one that
    decides whether an e-Ticket must identify its receiver), asked rather than copied, with the UI the
    receipt was checked and signed with. A paper contingency receipt keyed in (CFC) always goes in an envelope:
    DGI observes or accepts each one (CFE-URUGUAY.md section 13)."""
    if is_cfc(cfe.tipo_cfe):
        return ROUTE_ENVELOPE
    if cfe_type(cfe.tipo_cfe).element != "eTck":
        return ROUTE_ENVELOPE
    return ROUTE_ENVELOPE if receiver_required(cfe, ui_value, totals) else ROUTE_REPORT


def record_issued(
    session: Session, record: IssuedCfe, cfe: CfeInput, ui_value: Decimal, totals: Totals
) -> DgiSubmission:
    """The receipt's road to DGI (sets its DGI state too), for the caller to store with it, in the transaction
    that stores the receipt: from its commit on, it cannot be forgotten. `ui_value` and `totals` are the ones
    the receipt was signed with."""
    values = issued_submission(cfe, ui_value, totals, record.id, record.company_id)
    record.dgi_status = values["state"]
    return DgiSubmission(**{**values, "corrects": _link_correction(session, record, cfe.corrige_a)})


def _link_correction(session: Session, record: IssuedCfe, rejected_id: str | None) -> str | None:
    """ "Emitir corregido": the new receipt replaces one DGI rejected, of the same company, once."""
    if rejected_id is None:
        return None
    rejected = session.get(DgiSubmission, rejected_id, with_for_update=True)
    if rejected is None or rejected.company_id != record.company_id:
        _refuse_correction("not_found", "No existe ese comprobante en la empresa.")
    if rejected.state != "rechazado":
        _refuse_correction("not_rejected", "Solo se corrige un comprobante que DGI rechazó.")
    if rejected.corrected_by:
        _refuse_correction("already_corrected", "Ese comprobante ya fue corregido por otro.")
    rejected.corrected_by = record.id
    return rejected_id


def set_state(sub: DgiSubmission, record: IssuedCfe, state: str) -> None:
    """Move a receipt to `state`, keeping IssuedCfe.dgi_status (the simple filter) in step."""
    sub.state = state
    record.dgi_status = state


def overdue(sub: DgiSubmission, now: datetime | None = None) -> bool:
    """Whether a receipt has waited longer than expected for its next step (support sees it flagged)."""
    return late(sub.state, sub.route, sub.created_at, now)


def late(state: str, route: str, created_at: datetime, now: datetime | None = None) -> bool:
    """`overdue` of a submission's columns (the answer's ETag reads them without the row's object)."""
    if state in FINAL_STATES or route == ROUTE_REPORT:
        return False
    now = now or datetime.now(UTC)
    return now - created_at > timedelta(minutes=current_app.config["ENVIOS_OVERDUE_MINUTES"])


def _refuse_correction(code: str, message: str) -> NoReturn:
    raise ValidationFailed([FieldError("corrigeA", code, message)], message=_("No se puede vincular la corrección."))


def dgi_state(session: Session, record: IssuedCfe) -> EstadoDgi:
    """The receipt's DGI state for the API: state, its meaning, DGI's motives, envelope, report, times."""
    sub = session.get(DgiSubmission, record.id)
    if sub is None:  # issued before this area existed
        return EstadoDgi(estado=record.dgi_status, descripcion=say(STATES.get(record.dgi_status, "")), final=False)
    envelope = session.get(DgiEnvelope, sub.envelope_id) if sub.envelope_id else None
    report = session.get(DgiDailyReport, sub.report_id) if sub.report_id else None
    voided = session.query(VoidedRange).filter_by(cfe_id=record.id).first() if sub.state == "rechazado" else None
    return state_of(record.fch_emis, sub, envelope, report, voided)


def issued_submission(cfe: CfeInput, ui_value: Decimal, totals: Totals, cfe_id: str, company_id: int) -> dict:
    """The column values of a new receipt's road to DGI (record_issued's row, without its correction link)."""
    route = route_for(cfe, ui_value, totals)
    return {
        "cfe_id": cfe_id,
        "company_id": company_id,
        "route": route,
        "state": "pendiente" if route == ROUTE_ENVELOPE else "pendiente_reporte",
        "motives": [],
        "created_at": datetime.now(UTC),
        "corrects": None,
        "observations": 0,
    }


def state_of(
    fch_emis: date,
    sub: DgiSubmission,
    envelope: DgiEnvelope | None = None,
    report: DgiDailyReport | None = None,
    voided: VoidedRange | None = None,
) -> EstadoDgi:
    """`dgi_state` from the rows it read (a receipt just issued has only its submission)."""
    reporte: dict[str, object] | None
    if report is None and sub.route == ROUTE_REPORT:
        reporte = {"fecha": fch_emis, "estado": "por_enviar"}
    else:
        reporte = (
            None
            if report is None
            else {
                "idReporte": report.id,
                "fecha": report.fecha,
                "secEnvio": report.sec_envio,
                "archivo": report.file_name,
                "estado": report.state,
                "acuse": report.ack_state,
            }
        )
    return EstadoDgi.model_validate(
        {
            "estado": sub.state,
            "descripcion": say(STATES.get(sub.state, "")),
            "final": sub.state in FINAL_STATES or (report is not None and report.state == "aceptado"),
            "via": sub.route,
            "motivos": in_words(sub.motives),
            "sobre": None
            if envelope is None
            else {
                "idSobre": envelope.id,
                "idEmisor": envelope.idemisor,
                "archivo": envelope.file_name,
                "estado": envelope.state,
                "acuse": envelope.ack_state,
                "idReceptor": envelope.id_receptor,
                "token": envelope.token,
                "ordinal": sub.ordinal,
            },
            "reporte": reporte,
            "corrige": sub.corrects,
            "corregidoPor": sub.corrected_by,
            "anulacion": None
            if voided is None
            else {
                "idAnulacion": voided.id,
                "motivo": said_or(voided.reason_texts, voided.reason),
            },
            "demorado": overdue(sub),
            "observaciones": sub.observations or 0,
            "fechas": {
                key: value
                for key, value in {
                    "registrado": sub.created_at,
                    "enSobre": sub.packed_at,
                    "recibido": sub.received_at,
                    "respondido": sub.answered_at,
                    "enReporte": sub.reported_at,
                }.items()
                if value
            },
        }
    )
