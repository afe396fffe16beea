"""One intake for every received envelope, whatever the channel (the exchange web service, the exchange
mailbox, an upload): check it (`checks`), store the envelope, each CFE's signed bytes and its adenda, and
record the signed ACKSobre and ACKCFE owed to the sender, all in the caller's one transaction.

The answers are only recorded here; the background task delivers them after the commit (`tasks.wake`), so a
crash before the commit leaves nothing at all, and a crash after it leaves answers that the sweep sends once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.service.cfe import xmlsafe
from portal.service.cfe.errors import XmlInputError
from portal.service.envios.acks import CfeVerdict
from portal.service.eventos.publishing import publish
from portal.service.platform import counters
from portal.service.platform.errors import ApiError
from portal.service.platform.i18n import _
from portal.service.platform.models import Company
from portal.service.recibidos import acks, checks
from portal.service.recibidos.models import CHANNELS, ExchangeNumbering, ReceivedCfe, ReceivedEnvelope
from portal.service.recibidos.motives import motive

NS = checks.NS
# About 1 s of CPU for 250 CFEs on the development machine (bench/bench_intake.py); far more is an attack.
EXAMINE_CPU_SECONDS = 15.0


@dataclass(frozen=True)
class IntakeResult:
    """What became of one envelope: AS or BS (with its motives), and the CFEs accepted and rejected.
    `sobre_id` is the row's id, used inside the service only; `id_receptor` is the company's own number for the
    envelope, the one its sender reads in our answers."""

    sobre_id: int
    id_receptor: int
    estado: str
    motives: list[dict]
    accepted: int
    rejected: int
    cfe_ids: list[int]
    answer_ids: list[int]
    rut_emisor: str | None = None  # None: the envelope was too broken to say who sent it


def examine(envelope_bytes: bytes, company_rut: str, now: datetime | None = None) -> checks.Envelope:
    """Every check that needs no database (all but S20 and E02): run it outside the write transaction, which
    then holds the lock only to store."""
    envelope = checks.read_envelope(envelope_bytes, company_rut, now=now)
    if envelope.problem is None:
        for item in envelope.items:
            item.motives = checks.check_cfe(item, envelope, company_rut)
    return envelope


def examine_bounded(envelope_bytes: bytes, company_rut: str, now: datetime | None = None) -> checks.Envelope:
    """`examine` in one of the process's XML intake slots with a CPU budget (portal.service.cfe.xmlsafe): a few
    envelopes at once keep the cores, and the rest of the service answers meanwhile. Busy slots are a 503 (the
    sender retries); an envelope that spends the whole budget is refused S01."""
    try:
        with xmlsafe.intake(cpu_seconds=EXAMINE_CPU_SECONDS):
            return examine(envelope_bytes, company_rut, now)
    except xmlsafe.XmlIntakeBusy as exc:
        raise ApiError(exc.text, code="servicio_ocupado", status=503, headers={"Retry-After": "5"}) from exc
    except XmlInputError as exc:  # a parse refused part way: the budget is spent
        return checks.refused(envelope_bytes, motive("S01", exc.text))


def receive(
    session: Session,
    company: Company,
    envelope_bytes: bytes,
    channel: str,
    *,
    reply_to: str | None = None,
    source_name: str | None = None,
    now: datetime | None = None,
) -> IntakeResult:
    """Check, store and answer one envelope in `session`'s transaction (the caller commits, then wakes
    `tasks.wake(result.answer_ids)`). Use a write transaction: duplicates are decided by what is stored."""
    now = now or datetime.now(UTC)
    return record(
        session,
        company,
        examine(envelope_bytes, company.rut, now),
        channel,
        reply_to=reply_to,
        source_name=source_name,
        now=now,
    )


def record(
    session: Session,
    company: Company,
    envelope: checks.Envelope,
    channel: str,
    *,
    reply_to: str | None = None,
    source_name: str | None = None,
    now: datetime | None = None,
) -> IntakeResult:
    """Store an examined envelope, decide its duplicates (S20, E02) and record the signed answers."""
    if channel not in CHANNELS:
        raise ValueError(f"unknown channel {channel!r}")
    now = now or datetime.now(UTC)
    envelope_bytes = envelope.data
    if envelope.problem is None and envelope.dedupe_key is not None:
        earlier = session.scalar(
            select(ReceivedEnvelope.id_receptor).where(
                ReceivedEnvelope.company_id == company.id, ReceivedEnvelope.dedupe_key == envelope.dedupe_key
            )
        )
        if earlier is not None:
            envelope.problem = motive(
                "S20",
                _(
                    "El sobre {idemisor} de {rut} ya fue recibido (nuestro nº {ours}).",
                    idemisor=envelope.idemisor,
                    rut=envelope.rut_emisor,
                    ours=earlier,
                ),
            )
    accepted = envelope.problem is None
    row = ReceivedEnvelope(
        company_id=company.id,
        id_receptor=counters.take(session, ExchangeNumbering.last_id_receptor, company.id),
        channel=channel,
        reply_to=reply_to,
        source_name=_kept_name(source_name),
        rut_emisor=envelope.rut_emisor,
        idemisor=envelope.idemisor,
        cant_cfe=len(envelope.items),
        sha256=envelope.sha256,
        size=len(envelope_bytes),
        xml=envelope_bytes if len(envelope_bytes) <= checks.MAX_BYTES else None,
        estado="AS" if accepted else "BS",
        motives=[] if accepted else [envelope.problem],
        dedupe_key=envelope.dedupe_key if accepted else None,
        received_at=now,
    )
    session.add(row)
    session.flush()
    answers = [acks.ack_sobre(session, company, row, now)]
    cfe_ids: list[int] = []
    if accepted:
        verdicts, rows = _judge(session, company, envelope, row, now)
        row.accepted = sum(v.estado == "AE" for v in verdicts)
        row.rejected = len(verdicts) - row.accepted
        session.add_all(rows)
        session.flush()
        cfe_ids = [r.id for r in rows]
        for cfe in rows:
            publish(session, company.id, "recibido.nuevo", event_data(cfe))
        answers.append(acks.ack_cfe(session, company, row, verdicts, now))
    session.flush()
    return IntakeResult(
        sobre_id=row.id,
        id_receptor=row.id_receptor,
        estado=row.estado,
        motives=list(row.motives),
        accepted=row.accepted,
        rejected=row.rejected,
        cfe_ids=cfe_ids,
        answer_ids=[a.id for a in answers],
        rut_emisor=row.rut_emisor,
    )


def _kept_name(source_name: str | None) -> str | None:
    """The envelope's file name as kept, or None for one with characters that are not printable: PostgreSQL holds
    no NUL in text, and the answer already names such an envelope by DGI's pattern (acks.file_name)."""
    name = (source_name or "")[:200]
    return name if name and name.isprintable() else None


def event_data(cfe: ReceivedCfe) -> dict:
    """A received CFE as the `recibido.nuevo` event carries it: who sent it, what it is, how we answered."""
    return {
        "idRecibido": cfe.id,
        "rutEmisor": cfe.rut_emisor,
        "tipoCfe": cfe.tipo_cfe,
        "serie": cfe.serie,
        "nro": cfe.nro,
        "fchEmis": cfe.fch_emis.isoformat() if cfe.fch_emis else None,
        "moneda": cfe.moneda,
        "mntTotal": str(cfe.mnt_total) if cfe.mnt_total is not None else None,
        "estado": cfe.estado,
        "motivos": [{"codigo": m["codigo"], "glosa": m.get("glosa")} for m in cfe.motives or []],
    }


def _judge(
    session: Session, company: Company, envelope: checks.Envelope, record: ReceivedEnvelope, now: datetime
) -> tuple[list[CfeVerdict], list[ReceivedCfe]]:
    keys = [item.dedupe_key for item in envelope.items if item.dedupe_key]
    stored = set(
        session.scalars(
            select(ReceivedCfe.dedupe_key).where(ReceivedCfe.company_id == company.id, ReceivedCfe.dedupe_key.in_(keys))
        )
    )
    verdicts, rows, claimed = [], [], set()
    for item in envelope.items:
        key = item.dedupe_key
        if key is not None and (key in stored or key in claimed):
            item.motives.append(motive("E02", _("Este CFE ya fue recibido.")))
        estado = "BE" if item.motives else "AE"
        if estado == "AE" and key is not None:
            claimed.add(key)
        f = item.facts
        verdicts.append(
            CfeVerdict(
                ordinal=item.ordinal,
                tipo_cfe=f.tipo_cfe if f else None,
                serie=f.serie if f else None,
                nro=f.nro if f else None,
                estado=estado,
                motives=item.motives,
                fecha=f.fecha or None if f else None,
                tmst=f.tmst or None if f else None,
            )
        )
        rows.append(_row(company, record, item, estado, key if estado == "AE" else None, now))
    return verdicts, rows


def _row(
    company: Company, record: ReceivedEnvelope, item: checks.CfeItem, estado: str, key: str | None, now: datetime
) -> ReceivedCfe:
    f = item.facts
    doc = f.element if f else None

    def text(path: str) -> str | None:
        value = doc.findtext(path, namespaces=NS) if doc is not None else None
        return value.strip() if value else None

    return ReceivedCfe(
        company_id=company.id,
        sobre_id=record.id,
        ordinal=item.ordinal,
        rut_emisor=(f.rut if f else record.rut_emisor) or None,
        nombre_emisor=(text("d:Encabezado/d:Emisor/d:RznSoc") or "")[:150] or None,
        tipo_cfe=f.tipo_cfe if f else None,
        serie=(f.serie if f else None) or None,
        nro=f.nro if f else None,
        fch_emis=_date(f.fecha) if f else None,
        tmst_firma=(f.tmst if f else None) or None,
        moneda=text("d:Encabezado/d:Totales/d:TpoMoneda"),
        mnt_total=_decimal(text("d:Encabezado/d:Totales/d:MntTotal")),
        mnt_pagar=_decimal(text("d:Encabezado/d:Totales/d:MntPagar")),
        xml=item.signed,
        adenda=item.adenda,
        estado=estado,
        motives=item.motives,
        dedupe_key=key,
        received_at=now,
    )


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if value else None  # xs:date may end in a time zone
    except ValueError:
        return None


def _decimal(value: str | None) -> Decimal | None:
    try:
        return Decimal(value) if value else None
    except InvalidOperation:
        return None
