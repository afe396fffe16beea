"""When DGI rejects a receipt already delivered to an electronic receiver, the issuer tells that receiver it is
void: a signed `CFEs_Anulados_x_RechazoDGI` (Motivo_Cod RD, file Rech_<RUC>_<IdCom>.xml), delivered like the
envelopes (operation NOTIFICACIONANULACIONCFE) and recorded. It never goes to DGI (CFE-URUGUAY.md §12).

Found from the database (a delivered receipt whose DGI state is rechazado and that has no notice yet), so a
lost wake-up or a kill only delays it until the next sweep; the notice's bytes are stored before delivery."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import current_app
from lxml.builder import ElementMaker
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe.schema import validate_xml
from portal.service.comprobante.models import IssuedCfe
from portal.service.envios.sending import backoff, lease_held
from portal.service.intercambio import transport
from portal.service.intercambio.directory import find_issuer
from portal.service.intercambio.models import DgiRejectionNotice, ExchangeCfe, SenderNumbering
from portal.service.platform import counters, db
from portal.service.platform.keystore import signer_for, signing_certificate
from portal.service.platform.models import Company

NS = "http://cfe.dgi.gub.uy"
SCHEMA = "CFEs_Anulados_x_RechazoDGI.xsd"
GLOSA = "Comprobante anulado por rechazo de DGI"
DELIVERED = ("enviado", "sobre_recibido", "aceptado", "rechazado")  # the receiver holds it (not after a BS)
_E = ElementMaker(namespace=NS, nsmap={None: NS})


def _owed(company_id: int | None = None):
    query = (
        select(ExchangeCfe, IssuedCfe)
        .join(IssuedCfe, IssuedCfe.id == ExchangeCfe.cfe_id)
        .where(ExchangeCfe.state.in_(DELIVERED), ExchangeCfe.notice_id.is_(None), IssuedCfe.dgi_status == "rechazado")
    )
    return query if company_id is None else query.where(ExchangeCfe.company_id == company_id)


def companies_to_notify(session: Session) -> set[int]:
    return set(session.scalars(_owed().with_only_columns(ExchangeCfe.company_id).distinct()))


def document(*, rut_emisor: str, rut_receptor: str, id_comunicacion: int, receipts: list[IssuedCfe], moment: datetime):
    """The unsigned CFEs_Anulados_x_RechazoDGI for `receipts` (1..250)."""
    return _E.CFEs_Anulados_x_RechazoDGI(
        _E.Caratula(
            _E.RUCEmisor(rut_emisor),
            _E.RUCReceptor(rut_receptor),
            _E.IDComunicacion(str(id_comunicacion)),
            _E.CantCFEAnulados(str(len(receipts))),
            _E.Tmst(moment.isoformat(timespec="seconds")),
        ),
        *(
            _E.CFEAnulado(
                _E.TipoCFE(str(r.tipo_cfe)),
                _E.Serie(r.serie),
                _E.NroCFE(str(r.nro)),
                _E.FechaCFE(r.fch_emis.isoformat()),
                _E.Motivo_Cod("RD"),
                _E.Motivo_Glosa(GLOSA),
            )
            for r in receipts
        ),
        version="1.0",
    )


def notify_dgi_rejections(company_id: int) -> list[int]:
    """Build and record one notice per receiver for the company's delivered receipts DGI rejected since.
    Returns the new notices' ids (the caller delivers them)."""
    built = []
    with db.write_transaction() as session:
        # Locked, and skipped by a second run at once (PostgreSQL): each receipt goes in one notice.
        owed = _owed(company_id).order_by(ExchangeCfe.receiver_rut, IssuedCfe.nro)
        rows = session.execute(owed.with_for_update(of=ExchangeCfe, skip_locked=True)).all()
        by_receiver: dict[str, list[tuple[ExchangeCfe, IssuedCfe]]] = {}
        for ex, record in rows:
            by_receiver.setdefault(ex.receiver_rut, []).append((ex, record))
        if not by_receiver:
            return []
        company = session.get_one(Company, company_id)
        signer = signer_for(signing_certificate(session, company_id))
        for receiver_rut, items in by_receiver.items():
            for start in range(0, len(items), 250):
                chunk = items[start : start + 250]
                savepoint = session.begin_nested()  # a notice not stored gives its number back
                sequence = counters.take(session, SenderNumbering.last_id_comunicacion, company_id)
                moment = datetime.now(MONTEVIDEO).replace(microsecond=0)
                root = document(
                    rut_emisor=company.rut,
                    rut_receptor=receiver_rut,
                    id_comunicacion=sequence,
                    receipts=[record for _ex, record in chunk],
                    moment=moment,
                )
                xml = signer.sign(root).xml
                problems = validate_xml(xml, SCHEMA)
                if problems:  # a defect of ours: logged, the receipts stay owed (the next sweep tries again)
                    current_app.logger.error("CFEs_Anulados_x_RechazoDGI not valid: %s", problems[:3])
                    savepoint.rollback()
                    continue
                notice = DgiRejectionNotice(
                    company_id=company_id,
                    id_comunicacion=sequence,
                    receiver_rut=receiver_rut,
                    file_name=f"Rech_{company.rut}_{sequence}.xml",
                    xml=xml,
                    cfe_count=len(chunk),
                    state="armado",
                    attempts=0,
                )
                session.add(notice)
                session.flush()
                for ex, _record in chunk:
                    ex.notice_id = notice.id
                savepoint.commit()
                built.append(notice.id)
    return built


def deliver(notice_id: int) -> float | None:
    """Deliver a recorded notice under a lease; returns the delay of the next attempt after a temporary failure."""
    with db.write_transaction() as session:
        notice = session.get_one(DgiRejectionNotice, notice_id)
        now = datetime.now(UTC)
        if notice is None or notice.state != "armado" or lease_held(notice.next_attempt_at, now):
            return None
        notice.next_attempt_at = now + timedelta(seconds=current_app.config["INTERCAMBIO_SEND_LEASE_SECONDS"])
        receiver = find_issuer(session, notice.receiver_rut)
        company_id, xml, name = notice.company_id, notice.xml, notice.file_name
    try:
        if receiver is None:
            raise LookupError("El receptor ya no figura en el directorio de emisores electrónicos.")
        result = transport.deliver(company_id, receiver, "NOTIFICACIONANULACIONCFE", xml, name)
        delivered, temporary, detail, channel = result.delivered, result.temporary, result.detail, result.channel
    except LookupError as exc:
        delivered, temporary, detail, channel = False, False, str(exc), None
    except NotImplementedError:  # a build without the delivery channels: kept, and retried once they exist
        delivered, temporary, detail, channel = (
            False,
            True,
            "No hay transporte de intercambio en esta instalación.",
            None,
        )
    except Exception as exc:  # recorded and retried, never lost
        current_app.logger.exception("DGI-rejection notice %s could not be delivered", notice_id)
        delivered, temporary, detail, channel = False, True, f"Error inesperado: {exc}", None
    with db.write_transaction() as session:
        notice = session.get_one(DgiRejectionNotice, notice_id)
        if notice.state != "armado":
            return None
        now = datetime.now(UTC)
        if delivered:
            notice.state, notice.channel, notice.detail = "entregado", channel, (detail or "")[:500]
            notice.sent_at, notice.next_attempt_at, notice.last_error = now, None, None
            return None
        notice.attempts += 1
        notice.last_error = (detail or "")[:500]
        if temporary and notice.attempts < current_app.config["INTERCAMBIO_MAX_ATTEMPTS"]:
            delay = backoff(notice.attempts)
            notice.next_attempt_at = now + timedelta(seconds=delay)
            return delay
        notice.state, notice.next_attempt_at = "error", None
        return None
