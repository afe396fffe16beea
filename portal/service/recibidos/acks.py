"""Our signed answers to a received envelope: an ACKSobre (AS/BS) and an ACKCFE (AE/BE per CFE), built with
envios.acks (the documents DGI's simulator answers with have the same shape) and signed with the company's
certificate. Each is an `ExchangeAnswer` row; its `id_respuesta` (the document's IDRespuesta and its file name's
number) and the envelope's `id_receptor` are the company's own numbers (`numbering`), never a database id."""

from __future__ import annotations

from datetime import datetime

from lxml import etree
from sqlalchemy.orm import Session

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.envios import acks as dgi_acks
from portal.service.platform import counters
from portal.service.platform.keystore import signer_for, signing_certificate
from portal.service.platform.models import Company
from portal.service.recibidos.models import QUEUED, ExchangeAnswer, ExchangeNumbering, ReceivedEnvelope

UNKNOWN_RUT = "000000000000"  # an envelope so broken that not even its issuer's RUT could be read


def file_name(envelope: ReceivedEnvelope) -> str:
    """NomArch: the name the envelope came with, or DGI's pattern for an envelope's file. A name with characters
    that are not printable (a NUL sent in an upload's file name, which no XML can hold) is not echoed back."""
    name = envelope.source_name
    if name and name.lower().endswith(".xml") and name.isprintable():
        return name[-40:]
    day = envelope.received_at.astimezone(MONTEVIDEO)
    return f"Sob_{envelope.rut_emisor or UNKNOWN_RUT}_{day:%Y%m%d}_{envelope.idemisor or 0}.xml"[:40]


def _new_answer(session: Session, envelope: ReceivedEnvelope, kind: str, cfe_id: int | None = None) -> ExchangeAnswer:
    number = counters.take(session, ExchangeNumbering.last_id_respuesta, envelope.company_id)
    answer = ExchangeAnswer(
        company_id=envelope.company_id,
        id_respuesta=number,
        sobre_id=envelope.id,
        cfe_id=cfe_id,
        kind=kind,
        channel=envelope.channel,
        document=b"",
        filename=f"{kind}_{envelope.rut_emisor or UNKNOWN_RUT}_{number}.xml",
        state=QUEUED,
        attempts=0,
    )
    session.add(answer)
    session.flush()
    return answer


def _set(document: etree._Element, field: str, value: str) -> None:
    element = document.find(f"{{{dgi_acks.NS}}}Caratula/{{{dgi_acks.NS}}}{field}")
    if element is None:
        raise ValueError(f"the answer has no Caratula/{field}")
    element.text = value


def _sign(session: Session, company: Company, document) -> bytes:
    return signer_for(signing_certificate(session, company.id)).sign(document).xml


def ack_sobre(session: Session, company: Company, envelope: ReceivedEnvelope, now: datetime) -> ExchangeAnswer:
    """The ACKSobre of `envelope` (AS, or BS with its motive)."""
    answer = _new_answer(session, envelope, "ACKSobre")
    document = dgi_acks.ack_sobre_document(
        rut_dgi=company.rut,
        rut_emisor=envelope.rut_emisor or UNKNOWN_RUT,
        id_respuesta=answer.id_respuesta,
        file_name=file_name(envelope),
        received=envelope.received_at.astimezone(MONTEVIDEO),
        idemisor=envelope.idemisor or 0,
        id_receptor=envelope.id_receptor,
        count=envelope.cant_cfe,
        estado=envelope.estado,
        motives=list(envelope.motives),
        token=None,
        query_after=None,
    )
    _set(document, "Tmst", now.astimezone(MONTEVIDEO).isoformat(timespec="seconds"))
    answer.document = _sign(session, company, document)
    return answer


def ack_cfe(
    session: Session,
    company: Company,
    envelope: ReceivedEnvelope,
    verdicts: list[dgi_acks.CfeVerdict],
    now: datetime,
    *,
    cfe_id: int | None = None,
) -> ExchangeAnswer:
    """An ACKCFE answering `verdicts` (every CFE of the envelope, or one CFE's commercial decision)."""
    answer = _new_answer(session, envelope, "ACKCFE", cfe_id)
    document = dgi_acks.ack_cfe_document(
        rut_dgi=company.rut,
        rut_emisor=envelope.rut_emisor or UNKNOWN_RUT,
        id_respuesta=answer.id_respuesta,
        file_name=file_name(envelope),
        received=envelope.received_at.astimezone(MONTEVIDEO),
        idemisor=envelope.idemisor or 0,
        id_receptor=envelope.id_receptor,
        verdicts=verdicts,
        answered=now.astimezone(MONTEVIDEO),
    )
    # CantenSobre is the envelope's count even when this message answers only some of its CFEs.
    _set(document, "CantenSobre", str(envelope.cant_cfe))
    answer.document = _sign(session, company, document)
    return answer
