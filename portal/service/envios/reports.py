"""Daily reports: build one per company and day (every CFE used that day, e-Tickets below the threshold
included, and every number voided that day), record it signed, deliver it, and record DGI's ACKRepDiario.

The report is recorded with its bytes before it is sent; a crash between the two resends the same bytes.
A report DGI rejected, or one asked for again, goes out as the next sequence number (SecEnvio) of the day.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from flask import current_app
from sqlalchemy import CursorResult, case, func, or_, select, text, update

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe.rules import ui_threshold_on
from portal.service.comprobante.models import IssuedCfe, VoidedRange
from portal.service.envios import ack_trust, acks, outage, report_xml
from portal.service.envios.adapter import DgiPermanentError, DgiTransientError
from portal.service.envios.models import DgiDailyReport, DgiSubmission
from portal.service.envios.sending import Next, backoff, credentials, lease_held, reception, record_error
from portal.service.envios.states import ROUTE_REPORT
from portal.service.eventos.publishing import publish
from portal.service.indices.ui import ui_value_on
from portal.service.platform import db
from portal.service.platform.keystore import signer_for, signing_certificate
from portal.service.platform.models import Company


def build(company_id: int, fecha: date, actor: str) -> int:
    """Record the next report of `fecha` for the company; returns its id. A day whose last report is still
    unanswered gets that one back (it will be resent as it is), not a new sequence."""
    # Imported here: issuing imports this area (its after-commit wake-up), so a top-level import would cycle.

    with db.write_transaction() as session:
        last = session.scalar(
            select(DgiDailyReport)
            .where(DgiDailyReport.company_id == company_id, DgiDailyReport.fecha == fecha)
            .order_by(DgiDailyReport.sec_envio.desc())
            .limit(1)
        )
        if last is not None and last.state == "armado":
            return last.id
        company = session.get_one(Company, company_id)
        cert = signing_certificate(session, company_id)
        sec = (last.sec_envio + 1) if last else 1
        summaries, receipts = _summaries(session, company_id, fecha)
        moment = datetime.now(MONTEVIDEO).replace(microsecond=0)
        document = report_xml.report_document(
            rut=company.rut, fecha=fecha, sec_envio=sec, signed_at=moment, summaries=summaries
        )
        signed = signer_for(cert).sign(document)
        report = DgiDailyReport(
            company_id=company_id,
            fecha=fecha,
            sec_envio=sec,
            xml=signed.xml,
            cfe_count=sum(s.issued_count + s.voided_count for s in summaries.values()),
            file_name=report_xml.file_name(company.rut, fecha, sec),
            state="armado",
            certificate_id=cert.id,
            ack_motives=[],
            attempts=0,
            created_by=actor,
        )
        session.add(report)
        session.flush()
        _mark_reported(session, report.id, receipts)
        return report.id


def _mark_reported(session, report_id: int, receipts: list[tuple[str, str]]) -> None:
    """Each (cfe_id, route) of the report gets its report; those sent only in it move to "en_reporte" in their
    submission (dgi_envio_cfe). Bulk UPDATEs over the ids read for the report, a thousand at a time: a day of
    100,000 e-Tickets is 100 statements, not 100,000. The receipts' own copy of the state (IssuedCfe.dgi_status,
    the list's filter) is not touched here: every update of it rewrites all the indexes of cfe_emitido (two hold
    that column), 28 s for such a day on PostgreSQL. `mirror_states` moves it after the report is recorded."""
    now = datetime.now(UTC)
    ids = [cfe_id for cfe_id, _route in receipts]
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        session.execute(
            update(DgiSubmission)
            .where(DgiSubmission.cfe_id.in_(chunk))
            .values(
                report_id=report_id,
                reported_at=now,
                state=case((DgiSubmission.route == ROUTE_REPORT, "en_reporte"), else_=DgiSubmission.state),
            )
            .execution_options(synchronize_session=False)
        )


def mirror_states(report_id: int) -> int:
    """Copy "en_reporte" into IssuedCfe.dgi_status (what the receipt list shows and filters on) for the
    receipts the report moved, a thousand per short write transaction, so issuing goes on meanwhile. Run
    after `build` commits (tasks.mirror_report; again by the startup sweep for recent reports, in case the
    process died half-way): idempotent, only "pendiente_reporte" moves. Returns how many rows it moved."""
    with db.new_session() as session:
        ids = list(
            session.scalars(
                select(DgiSubmission.cfe_id)
                .join(IssuedCfe, IssuedCfe.id == DgiSubmission.cfe_id)
                .where(
                    DgiSubmission.report_id == report_id,
                    DgiSubmission.state == "en_reporte",
                    IssuedCfe.dgi_status == "pendiente_reporte",
                )
            )
        )
    moved = 0
    for start in range(0, len(ids), _CHUNK):
        with db.write_transaction() as session:
            result: CursorResult = session.execute(  # type: ignore[assignment]
                update(IssuedCfe)
                .where(IssuedCfe.id.in_(ids[start : start + _CHUNK]), IssuedCfe.dgi_status == "pendiente_reporte")
                .values(dgi_status="en_reporte")
                .execution_options(synchronize_session=False)
            )
            moved += result.rowcount
    return moved


_CHUNK = 1000


# Σ A-C112..A-C118: the total excluding IVA (Totals.mnt_neto), from the totals the receipt was signed with.
_NET_EXCLUDING_IVA = (
    "mntNoGrv",
    "mntExpoyAsim",
    "mntImpuestoPerc",
    "mntIVaenSusp",
    "mntNetoIvaTasaMin",
    "mntNetoIVATasaBasica",
    "mntNetoIVAOtra",
)


# What the report reads of each receipt's totals (report_xml.TypeSummary.add_receipt), each extracted by the
# database rather than the whole JSON decoded per receipt.
_TOTALS_READ = (
    *(name for _element, name in report_xml.FYT),
    "mntTotal",
    "mntTotRetenido",
    "ivaTasaMin",
    "ivaTasaBasica",
)


# The amounts the report adds up, in the order they are read: the ten of Mnts_FyT_Item, the total, the retentions.
_SUMMED = (*(name for _element, name in report_xml.FYT), "mntTotal", "mntTotRetenido")
# Their positions among _SUMMED of Σ A-C112..A-C118 (the net excluding IVA), for the threshold.
_NET_AT = tuple(_SUMMED.index(name) for name in _NET_EXCLUDING_IVA)
_ZERO = Decimal(0)


def _threshold(session, fch_emis: date, cache: dict) -> Decimal:
    """Tabla E's threshold in pesos with the UI of the issue date (as the engine's rule), looked up once per
    issue date of the report rather than once per receipt."""
    if fch_emis not in cache:
        cache[fch_emis] = ui_value_on(fch_emis, session) * ui_threshold_on(fch_emis)
    return cache[fch_emis]


# PostgreSQL's query of _receipt_rows: the column names are this module's constants, not input.
_PG_ROWS = text(
    "SELECT s.cfe_id, s.route, s.state, c.tipo_cfe, c.fch_emis, c.serie, c.nro, c.tpo_moneda, "  # noqa: S608
    + ", ".join(f't."{name}" AS "{name}"' for name in _TOTALS_READ)
    + ", c.input_json ->> 'tpoCambio' AS tpo_cambio, c.issuer_json ->> 'cdg_dgi_sucursal' AS sucursal "
    "FROM dgi_envio_cfe s JOIN cfe_emitido c ON c.id = s.cfe_id CROSS JOIN LATERAL json_to_record(c.totals_json) "
    "AS t(" + ", ".join(f'"{name}" text' for name in _TOTALS_READ) + ") "
    "WHERE c.company_id = :company AND c.fch_emis = :fecha"
)


def _receipt_rows(session, company_id: int, fecha: date):
    """The day's receipts with what the report needs: each total as text, extracted by the database. On
    PostgreSQL the totals' JSON is parsed once per row (json_to_record) rather than once per total read."""
    totals = _TOTALS_READ
    if session.get_bind().dialect.name == "postgresql":
        return session.execute(_PG_ROWS, {"company": company_id, "fecha": fecha}).all()
    return session.execute(
        select(
            DgiSubmission.cfe_id,
            DgiSubmission.route,
            DgiSubmission.state,
            IssuedCfe.tipo_cfe,
            IssuedCfe.fch_emis,
            IssuedCfe.serie,
            IssuedCfe.nro,
            IssuedCfe.tpo_moneda,
            *(IssuedCfe.totals_json[name].as_string().label(name) for name in totals),
            IssuedCfe.input_json["tpoCambio"].as_string().label("tpo_cambio"),
            IssuedCfe.issuer_json["cdg_dgi_sucursal"].as_string().label("sucursal"),
        )
        .join(IssuedCfe, IssuedCfe.id == DgiSubmission.cfe_id)
        .where(IssuedCfe.company_id == company_id, IssuedCfe.fch_emis == fecha)
    ).all()


def _summaries(session, company_id: int, fecha: date):
    """The day's sections, and the (cfe_id, route) of each receipt the report covers. Only the columns the
    report needs are read (no receipt's XML, no ORM objects), and each receipt's amounts are added as
    TypeSummary.add_receipt adds them (the same Decimal sums, so the same bytes), without the totals absent or
    zero and without multiplying by a rate of 1: a day of 100,000 e-Tickets in about a second of CPU."""
    summaries: dict[int, report_xml.TypeSummary] = {}
    rows = _receipt_rows(session, company_id, fecha)
    thresholds: dict[date, Decimal] = {}
    first = 8  # the row's position of _TOTALS_READ's first total (after cfe_id .. tpo_moneda)
    summed = len(_SUMMED)
    rates_at = first + summed  # ivaTasaMin, ivaTasaBasica
    for row in rows:
        tipo = row.tipo_cfe
        if row.state == "rechazado" or not report_xml.reported(tipo):
            continue  # a receipt DGI rejected was not issued: its number is reported voided
        rate = Decimal(str(row.tpo_cambio or 1)) if row.tpo_moneda != "UYU" else None
        values: list[Decimal | None] = []
        for position in range(first, first + summed):
            raw = row[position]
            if raw:
                amount = Decimal(str(raw))
                values.append(amount * rate if rate is not None else amount)
            else:
                values.append(None)
        summary = summaries.get(tipo)
        if summary is None:
            summary = summaries[tipo] = report_xml.TypeSummary()
        key = (row.fch_emis, int(row.sucursal or 1))
        sums = summary.amounts[key]
        for name, added in zip(_SUMMED, values, strict=True):
            if added is not None:
                sums[name] += added
            elif name not in sums:
                sums[name] = _ZERO  # present, as add_receipt leaves it
        summary.rates[key] = (row[rates_at] or "10", row[rates_at + 1] or "22")
        summary.issued[row.serie].append(row.nro)
        net = _ZERO
        for position in _NET_AT:
            part = values[position]
            if part is not None:
                net += part
        summary.above_threshold += net > _threshold(session, row.fch_emis, thresholds)
    for voided in session.scalars(
        select(VoidedRange).where(VoidedRange.company_id == company_id, VoidedRange.fecha == fecha)
    ):
        if voided.tipo_cfe in report_xml.SECTIONS:  # CFC voided: no place in ReporteDiarioCFE.xsd
            summaries.setdefault(voided.tipo_cfe, report_xml.TypeSummary()).voided[voided.serie].append(
                (voided.nro_desde, voided.nro_hasta)
            )
    return summaries, [(row.cfe_id, row.route) for row in rows if row.state != "rechazado"]


def deliver(report_id: int, *, probe: bool = False) -> Next | None:
    """Send a recorded report and record DGI's answer. Returns what to run next: the probe when DGI did not
    answer (or is down and this is not the probe), a retry of this report after an unreadable answer."""
    with db.write_transaction() as session:  # a lease, as for envelopes (sending.deliver)
        report = session.get(DgiDailyReport, report_id)
        now = datetime.now(UTC)
        if report is None or report.state != "armado" or lease_held(report.next_attempt_at, now):
            return None
        if not probe and outage.is_down(session):
            return None  # the probe calls DGI; its answer wakes this one
        report.next_attempt_at = now + timedelta(seconds=current_app.config["ENVIOS_SEND_LEASE_SECONDS"])
        creds = credentials(session, report.company_id, report.certificate_id)
        xml, name = report.xml, report.file_name
    try:
        ack_xml = reception().send_report(xml, file_name=name, credentials=creds)
        estado, motives = acks.read_ack_report(ack_xml)
        data = None
    except (DgiTransientError, acks.AckUnreadable, DgiPermanentError) as exc:
        estado, motives, data = None, [], exc
    probe_in = None
    if isinstance(data, DgiTransientError | acks.AckUnreadable):
        probe_in = outage.failed(data.message, current_app.config["DGI_OUTAGE_PROBE_MAX_SECONDS"])
    else:
        outage.answered()
    with db.write_transaction() as session:
        report = session.get_one(DgiDailyReport, report_id)
        if report.state != "armado":
            return None
        now = datetime.now(UTC)
        if data is not None:  # DGI gave no acknowledgement: why, and what next
            report.attempts += 1
            record_error(report, data.message)
            if isinstance(data, DgiPermanentError):
                report.state = "error"
                return None
            report.next_attempt_at = None  # waits for the probe, which calls DGI while it is down
            return Next("probe", report_id, probe_in if probe_in is not None else backoff(report.attempts))
        report.sent_at = report.answered_at = now
        report.ack_state, report.ack_motives, report.ack_xml = estado, motives, ack_xml
        report.ack_signature = ack_trust.signature_state(session, ack_xml, f"ACKRepDiario of report {report_id}")
        report.state = "aceptado" if estado == "AR" else "rechazado"
        report.next_attempt_at = None
        record_error(report, None)
        if report.state == "rechazado":
            publish(session, report.company_id, "reporte.rechazado", report_event(report))
    return None


def report_event(report: DgiDailyReport) -> dict:
    codes = [m["codigo"] for m in report.ack_motives or []]
    return {
        "idReporte": report.id,
        "fecha": report.fecha.isoformat(),
        "secEnvio": report.sec_envio,
        "estado": report.ack_state,
        "motivos": codes,
    }


def pending_days(session, company_id: int, until: date) -> list[date]:
    """Days up to `until` with something no report of theirs carries yet: a receipt (not rejected) in none, or
    a number voided after the day's last report. A day already reported goes again, as its next SecEnvio,
    when it gets more afterwards (a report an admin sent before the day closed, a contingency receipt keyed
    in later with its paper's date, a rejection that voids a number): otherwise those never reached DGI. A
    rejected report waits for support, who asks for the next sequence (or `rejected_days`)."""
    unreported = set(
        session.scalars(
            select(IssuedCfe.fch_emis)
            .join(DgiSubmission, DgiSubmission.cfe_id == IssuedCfe.id)
            .where(
                IssuedCfe.company_id == company_id,
                IssuedCfe.fch_emis <= until,
                DgiSubmission.report_id.is_(None),
                DgiSubmission.state != "rechazado",  # not issued: its number goes voided instead
            )
            .distinct()
        )
    )
    last_report = (
        select(DgiDailyReport.fecha, func.max(DgiDailyReport.created_at).label("at"))
        .where(DgiDailyReport.company_id == company_id)
        .group_by(DgiDailyReport.fecha)
        .subquery()
    )
    unreported |= set(
        session.scalars(
            select(VoidedRange.fecha)
            .outerjoin(last_report, last_report.c.fecha == VoidedRange.fecha)
            .where(
                VoidedRange.company_id == company_id,
                VoidedRange.fecha <= until,
                or_(last_report.c.at.is_(None), VoidedRange.created_at > last_report.c.at),
            )
            .distinct()
        )
    )
    return sorted(unreported)


def rejected_days(session, company_id: int, until: date) -> list[date]:
    """Days up to `until` whose latest report DGI rejected (BR): each is resent corrected, as the day's next
    sequence built again from what the day holds now. R06 (a future day) is not resent: nothing to correct."""
    latest = (
        select(DgiDailyReport.fecha, func.max(DgiDailyReport.sec_envio).label("sec"))
        .where(DgiDailyReport.company_id == company_id, DgiDailyReport.fecha <= until)
        .group_by(DgiDailyReport.fecha)
        .subquery()
    )
    rows = session.scalars(
        select(DgiDailyReport)
        .join(latest, (DgiDailyReport.fecha == latest.c.fecha) & (DgiDailyReport.sec_envio == latest.c.sec))
        .where(DgiDailyReport.company_id == company_id, DgiDailyReport.state == "rechazado")
    )
    return sorted(r.fecha for r in rows if not any(m.get("codigo") == "R06" for m in r.ack_motives or []))
