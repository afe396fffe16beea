"""What envios registers with comprobante (comprobante.hooks): every receipt's road to DGI, stored with it and
followed by a wake-up of the packer after the commit; the `dgi` section of a receipt's answer, its submission
read in the answer's one query, and since when DGI does not answer while the receipt waits (getByIdCfeEmitido
adds it); voiding a CAE range's unused numbers; a corrected
CFC sent again. Run by the app factory (each area's
`wiring.init_app`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from flask import Flask
from sqlalchemy import Select, func
from sqlalchemy.orm import Session

from portal.service.cfe import CfeInput
from portal.service.comprobante import hooks
from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.tracking_schemas import EstadoDgi
from portal.service.envios import outage
from portal.service.envios.models import DgiDailyReport, DgiEnvelope, DgiSubmission
from portal.service.envios.tasks import wake_packer
from portal.service.envios.tracking import dgi_state, issued_submission, late, record_issued, set_state, state_of
from portal.service.envios.voids import void_up_to
from portal.service.platform import responses
from portal.service.platform.db import Base


def _submission(session: Session, issued: hooks.Issued) -> Sequence[Base]:
    return (record_issued(session, issued.record, issued.cfe, issued.ui_value, issued.totals),)


def _wake_packer(session: Session, issued: hooks.Issued) -> hooks.Wakeup:
    company_id = issued.record.company_id
    return hooks.Wakeup(lambda: wake_packer(company_id), "envios wake-up")


def _plain_covers(cfe: CfeInput, issuer_rut: str) -> bool:
    return cfe.corrige_a is None  # a correction locks and links the rejected receipt's submission


def _plain_submission(issued: hooks.PlainIssued) -> hooks.PlainPart:
    """The same row as `_submission`, and the answer's `dgi` section read from it."""
    values = issued.values
    row = issued_submission(issued.cfe, issued.ui_value, issued.totals, values["id"], values["company_id"])
    company_id = values["company_id"]
    return hooks.PlainPart(
        rows=((DgiSubmission.metadata.tables[DgiSubmission.__tablename__], row),),
        receipt={"dgi_status": row["state"]},
        sections={"dgi": responses.dump(state_of(values["fch_emis"], DgiSubmission(**row)))},
        wakeup=hooks.Wakeup(lambda: wake_packer(company_id), "envios wake-up"),
    )


def _with_submission(statement: Select) -> Select:
    return statement.add_columns(DgiSubmission).outerjoin(DgiSubmission, DgiSubmission.cfe_id == IssuedCfe.id)


def _tag_columns(statement: Select) -> Select:
    """What the `dgi` section shows of its receipt's road to DGI and of the envelope and the daily report it
    went in (rows many receipts share), and since when DGI does not answer while the receipt waits on it (the one
    row of dgi_estado). By value, not by trigger: the daily report marks its receipts in bulk."""
    return (
        statement.outerjoin(DgiSubmission, DgiSubmission.cfe_id == IssuedCfe.id)
        .outerjoin(DgiEnvelope, DgiEnvelope.id == DgiSubmission.envelope_id)
        .outerjoin(DgiDailyReport, DgiDailyReport.id == DgiSubmission.report_id)
        .add_columns(
            DgiSubmission.state.label("envios_state"),
            DgiSubmission.route.label("envios_route"),
            DgiSubmission.created_at.label("envios_created_at"),
            DgiSubmission.envelope_id,
            DgiSubmission.ordinal,
            DgiSubmission.report_id,
            DgiSubmission.motives,
            DgiSubmission.corrects,
            DgiSubmission.corrected_by,
            DgiSubmission.packed_at,
            DgiSubmission.received_at,
            DgiSubmission.answered_at,
            DgiSubmission.reported_at,
            DgiSubmission.observations,
            DgiEnvelope.idemisor,
            DgiEnvelope.file_name,
            DgiEnvelope.state,
            DgiEnvelope.ack_state,
            DgiEnvelope.id_receptor,
            DgiEnvelope.token,
            DgiDailyReport.fecha,
            DgiDailyReport.sec_envio,
            DgiDailyReport.file_name,
            DgiDailyReport.state,
            DgiDailyReport.ack_state,
            # The state the `dgi` section shows: the submission's, or for a receipt issued before this area
            # existed (no submission) its own column, as tracking.dgi_state reads it.
            outage.waiting_down_since(func.coalesce(DgiSubmission.state, IssuedCfe.dgi_status)).label(
                "envios_dgi_down_since"
            ),
        )
    )


def _tag_now(row: Mapping[str, Any]) -> bool:
    """The `dgi` section's `demorado`: late for its next step, which the time alone changes."""
    if row["envios_state"] is None:
        return False
    return late(row["envios_state"], row["envios_route"], row["envios_created_at"])


def _down_since(session: Session, dgi: EstadoDgi) -> datetime | None:
    return outage.down_since_for(session, dgi.estado)


def _observed(session: Session, record: IssuedCfe) -> bool:
    sub = session.get(DgiSubmission, record.id, with_for_update=True)
    return sub is not None and sub.state == "observado"


def _resend(session: Session, record: IssuedCfe) -> hooks.Wakeup:
    """The next envelope carries the corrected XML; the observations stay counted."""
    sub = session.get_one(DgiSubmission, record.id)
    sub.envelope_id, sub.ordinal, sub.motives = None, None, []
    sub.packed_at = sub.received_at = sub.answered_at = None
    set_state(sub, record, "pendiente")
    company_id = record.company_id
    return hooks.Wakeup(lambda: wake_packer(company_id), "envios wake-up")


def init_app(app: Flask) -> None:
    hooks.provide_voiding(void_up_to)
    hooks.provide_resubmission(hooks.DgiResubmission(observed=_observed, resend=_resend))
    hooks.follow_issues(
        "envios",
        hooks.IssueFollowUp(rows=_submission, stored=_wake_packer, plain_covers=_plain_covers, plain=_plain_submission),
    )
    hooks.add_receipt_sections(
        "envios",
        hooks.ReceiptSections(
            dgi=dgi_state,
            dgi_outage=_down_since,
            prefetch=_with_submission,
            tag=hooks.TagPart(columns=_tag_columns, now=_tag_now),
        ),
    )
