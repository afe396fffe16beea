"""The received CFEs of a company: filters, keyset pages (newest first: received moment, then id), totals per
currency, CSV, and the JSON shapes of one received CFE."""

from __future__ import annotations

import base64
import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, time
from decimal import Decimal

from sqlalchemy import case, func, or_, select, tuple_
from sqlalchemy.orm import Session

from portal.domain.cfe_type_names import type_name
from portal.domain.cfe_types import CREDIT_NOTES
from portal.domain.receipt_numbers import ReceiptNumber
from portal.domain.uruguay_time import MONTEVIDEO, montevideo_time, today_montevideo
from portal.service.cfe import printable
from portal.service.cfe.emission import Issuer
from portal.service.cfe.pdf_text import number
from portal.service.comprobante.amounts import AMOUNT_LABELS, AMOUNT_NAMES, in_pesos, signed_amounts
from portal.service.comprobante.export import text_cell
from portal.service.platform.i18n import _, said_or, say
from portal.service.platform.zipstream import ZipEntry
from portal.service.recibidos import watch
from portal.service.recibidos.amounts import signed_totals
from portal.service.recibidos.models import PURCHASE, ExchangeAnswer, ProcessedMail, ReceivedCfe, ReceivedEnvelope
from portal.service.recibidos.motives import motive
from portal.service.recibidos.schemas import (
    CorreoNoRecibido,
    CorreosNoRecibidos,
    Linea,
    MotivoRecepcion,
    PaginaRecibidos,
    Recibido,
    RecibidoCompleto,
    RecibidosFiltros,
    Respuesta,
    ResumenRecibidos,
    TotalMonedaRecibidos,
)

_ESCAPE_LIKE = str.maketrans({"%": r"\%", "_": r"\_", "\\": r"\\"})


def conditions(company_id: int, query: RecibidosFiltros, *, booked: bool | None = None) -> list:
    where = [ReceivedCfe.company_id == company_id]
    if query.proveedor:
        text = query.proveedor.strip()
        if text.isdigit():
            where.append(ReceivedCfe.rut_emisor.startswith(text))
        else:
            pattern = text.lower().translate(_ESCAPE_LIKE) + "%"
            where.append(func.lower(ReceivedCfe.nombre_emisor).like(pattern, escape="\\"))
    if query.tipo is not None:
        where.append(ReceivedCfe.tipo_cfe == query.tipo)
    if query.numero:  # the query's validator already read it as a receipt number
        typed = ReceiptNumber.parse(query.numero)
        where.append(ReceivedCfe.nro == typed.number)
        if typed.serie:
            where.append(ReceivedCfe.serie == typed.serie)
    if query.desde:
        where.append(ReceivedCfe.fch_emis >= query.desde)
    if query.hasta:
        where.append(ReceivedCfe.fch_emis <= query.hasta)
    if query.monto_desde is not None:
        where.append(ReceivedCfe.mnt_total >= query.monto_desde)
    if query.monto_hasta is not None:
        where.append(ReceivedCfe.mnt_total <= query.monto_hasta)
    if query.moneda:
        where.append(ReceivedCfe.moneda == query.moneda)
    if query.estado == "aceptado":
        where.append(ReceivedCfe.estado == "AE")
    elif query.estado == "rechazado":
        where.append(ReceivedCfe.estado == "BE")
    elif query.estado == "pendiente":
        where += [ReceivedCfe.estado == "AE", ReceivedCfe.decision.is_(None), ReceivedCfe.anulado_dgi.is_(False)]
    elif query.estado == "rechazado_comercial":
        where.append(ReceivedCfe.decision == "rechazado")
    elif query.estado == "rechazado_dgi":
        where.append(ReceivedCfe.anulado_dgi.is_(True))
    if booked is not None:
        where.append(ReceivedCfe.contabilizado.is_(booked))
    return where


def encode_cursor(row: ReceivedCfe) -> str:
    raw = f"{row.received_at.isoformat()}|{row.id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    """ValueError if `cursor` was not made by encode_cursor."""
    try:
        moment, row_id = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().split("|")
        return datetime.fromisoformat(moment), int(row_id)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(cursor) from exc


def _ordered(where: list):
    return select(ReceivedCfe).where(*where).order_by(ReceivedCfe.received_at.desc(), ReceivedCfe.id.desc())


def page(session: Session, where: list, cursor: str | None, limit: int) -> tuple[list[ReceivedCfe], str | None]:
    query = _ordered(where)
    if cursor:
        query = query.where(tuple_(ReceivedCfe.received_at, ReceivedCfe.id) < decode_cursor(cursor))
    rows = list(session.scalars(query.limit(limit + 1)))
    if len(rows) <= limit:
        return rows, None
    return rows[:limit], encode_cursor(rows[limit - 1])


@dataclass(frozen=True)
class Totals:
    """What the list adds up over every row that matches, not only the page's."""

    per_currency: list[TotalMonedaRecibidos]
    unbooked: int  # purchases not booked yet
    unbooked_up_to: int | None  # the highest id of those: booking by filters goes no further


def totals(session: Session, where: list) -> Totals:
    """Count and total per currency of the accepted CFEs that match: rejected ones (on arrival, commercially or
    by DGI) are no purchase, and a credit note counts negative, as in the purchases book and the issued list.
    The same reading counts those not booked yet."""
    signed = case((ReceivedCfe.tipo_cfe.in_(sorted(CREDIT_NOTES)), -ReceivedCfe.mnt_total), else_=ReceivedCfe.mnt_total)
    unbooked = ReceivedCfe.contabilizado.is_(False)
    query = (
        select(
            ReceivedCfe.moneda,
            func.count(),
            func.coalesce(func.sum(signed), 0),
            func.count(case((unbooked, 1))),
            func.max(case((unbooked, ReceivedCfe.id))),
        )
        .where(*where, *PURCHASE)
        .group_by(ReceivedCfe.moneda)
        .order_by(ReceivedCfe.moneda)
    )
    rows = session.execute(query).all()
    return Totals(
        per_currency=[
            TotalMonedaRecibidos(
                moneda=moneda or "UYU", cantidad=count, total=Decimal(str(total)).quantize(Decimal("0.01"))
            )
            for moneda, count, total, _unbooked, _last in rows
        ],
        unbooked=sum(row[3] for row in rows),
        unbooked_up_to=max((row[4] for row in rows if row[4] is not None), default=None),
    )


def recibido(row: ReceivedCfe) -> dict:
    return {
        "id": row.id,
        "rut_emisor": row.rut_emisor,
        "nombre_emisor": row.nombre_emisor,
        "tipo_cfe": row.tipo_cfe,
        "serie": row.serie,
        "nro": row.nro,
        "fecha": row.fch_emis,
        "moneda": row.moneda,
        "total": row.mnt_total,
        "a_pagar": row.mnt_pagar,
        "estado": row.estado,
        "motivos": [MotivoRecepcion.of(m) for m in row.motives or []],
        "decision": row.decision,
        "rechazado_dgi": row.anulado_dgi,
        "contabilizado": row.contabilizado,
        "contabilizable": row.is_purchase,
        "recibido_en": row.received_at,
    }


def pagina(rows: list[ReceivedCfe], following: str | None, sums: Totals) -> PaginaRecibidos:
    return PaginaRecibidos(
        items=[Recibido(**recibido(r)) for r in rows],
        siguiente_cursor=following,
        totales=sums.per_currency,
        sin_contabilizar=sums.unbooked,
        sin_contabilizar_hasta=sums.unbooked_up_to,
    )


# Lines and totals come from the supplier's XML through the PDF engine's reader (printable.from_xml), so the
# page, the JSON and the PDF say the same thing.
_PLACEHOLDER_ISSUER = Issuer(
    rut="219999830019", razon_social="-", cdg_dgi_sucursal=1, domicilio_fiscal="-", ciudad="-", departamento="-"
)


def readable(row: ReceivedCfe) -> printable.Printable | None:
    try:
        return printable.from_xml(row.xml, _PLACEHOLDER_ISSUER, adenda=row.adenda)
    except Exception:  # a BE CFE may be unreadable: it is shown with what the row holds
        return None


def completo(session: Session, row: ReceivedCfe) -> RecibidoCompleto:
    doc = readable(row)
    rate = doc.tpo_cambio if doc and (doc.tpo_moneda or "UYU") != "UYU" else None
    envelope = session.get_one(ReceivedEnvelope, row.sobre_id)
    answers = session.scalars(
        select(ExchangeAnswer)
        .where(
            ExchangeAnswer.sobre_id == row.sobre_id,
            or_(ExchangeAnswer.cfe_id.is_(None), ExchangeAnswer.cfe_id == row.id),
        )
        .order_by(ExchangeAnswer.id)
    )
    return RecibidoCompleto(
        **recibido(row),
        lineas=[
            Linea(
                numero=line.number or index,
                nombre=line.name,
                cantidad=line.quantity,
                unidad=line.unit,
                precio_unitario=line.unit_price,
                monto=line.amount,
                ind_fact=line.ind_fact,
            )
            for index, line in enumerate(doc.lines if doc else (), start=1)
        ],
        totales=dict(doc.totals) if doc else {},
        tipo_cambio=rate,
        total_pesos=in_pesos(doc.totals["MntTotal"], rate) if doc and rate and "MntTotal" in doc.totals else None,
        adenda=row.adenda,
        sobre_id=envelope.id_receptor,
        canal=envelope.channel,
        motivo_decision=MotivoRecepcion.of(motive(row.decision_motive, row.decision_text))
        if row.decision_motive
        else None,
        decidido_en=row.decided_at,
        decidido_por=row.decided_by,
        contabilizado_en=row.contabilizado_at,
        respuestas=[
            Respuesta(
                id=a.id_respuesta,
                tipo=a.kind,
                responde_a="decision" if a.cfe_id is not None else "recepcion",  # only a decision names its one CFE
                canal=a.channel,
                estado=a.state,
                intentos=a.attempts,
                error=said_or(a.last_error_texts, a.last_error),
                creada_en=a.created_at,
                enviada_en=a.sent_at,
                enviada_por=a.delivered_by,
            )
            for a in answers
        ],
    )


# The column names, said in the request's language when the file is asked for (routes.listar).
HEADER = (
    _("Recibido"),
    _("RUT proveedor"),
    _("Proveedor"),
    _("Tipo"),
    _("Serie"),
    _("Número"),
    _("Fecha"),
    _("Moneda"),
    # Net and IVA by rate and the rest of the IVA purchases book's amounts, as the supplier signed them.
    *(AMOUNT_LABELS[name] for name in AMOUNT_NAMES),
    _("Estado"),
    _("Decisión"),
    _("Rechazado por DGI"),
    _("Contabilizado"),
)
# The company's decision on a received CFE (stored as a code), as the CSV's reader reads it.
DECISIONS = {"aceptado": _("Aceptado"), "rechazado": _("Rechazado")}
# What the company answered on its arrival (AE/BE, stored as DGI's code), as the list's pages say it.
ARRIVAL = {"AE": _("Recibido"), "BE": _("Rechazado al recibirlo")}


@dataclass(frozen=True)
class CsvWords:
    """The CSV's words in the request's language, said by the route while the request is there: the file is
    written after it has gone. `language` names the CFE types."""

    header: list[str]
    yes_no: tuple[str, str]
    decisions: dict[str, str]
    arrival: dict[str, str]
    language: str


def _money(value: Decimal) -> str:
    return number(value, 2, grouped=False)  # as the issued receipts' file writes it


_ZERO = _money(Decimal(0))


def _amount_cells(row: ReceivedCfe) -> list[str]:
    """The CFE's amount columns (AMOUNT_NAMES' order) from its signed XML, a credit note's negative, as the IVA
    purchases book reads them; a zero as "0,00" (a spreadsheet sums the column)."""
    amounts = signed_amounts(row.tipo_cfe or 0, signed_totals(row.xml).texts)
    return [_money(amounts[name]) if name in amounts else _ZERO for name in AMOUNT_NAMES]


def csv_chunks(session: Session, where: list, words: CsvWords) -> Iterator[str]:
    """Every matching row, for a spreadsheet (`;`, decimal comma, dd/mm/aaaa, UTF-8 with BOM), in words: the CFE
    type by its name, what was answered on arrival and the decision as the pages say them; its amounts those of
    the IVA purchases book (net and IVA by rate, perceptions, retentions and the total)."""
    yes, no = words.yes_no
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    buffer.write("\ufeff")
    writer.writerow(words.header)
    try:
        for count, row in enumerate(session.scalars(_ordered(where).execution_options(yield_per=500)), start=1):
            writer.writerow(
                (
                    f"{montevideo_time(row.received_at):%d/%m/%Y %H:%M}",
                    row.rut_emisor or "",
                    text_cell(row.nombre_emisor or ""),  # the supplier wrote it: never a formula
                    type_name(row.tipo_cfe, words.language),
                    row.serie or "",
                    row.nro or "",
                    f"{row.fch_emis:%d/%m/%Y}" if row.fch_emis else "",
                    row.moneda or "",
                    *_amount_cells(row),
                    words.arrival.get(row.estado, row.estado),
                    words.decisions.get(row.decision, row.decision) if row.decision else "",
                    yes if row.anulado_dgi else no,
                    yes if row.contabilizado else no,
                )
            )
            if count % 500 == 0:
                yield buffer.getvalue()
                buffer.seek(0)
                buffer.truncate()
        yield buffer.getvalue()
    finally:
        session.close()


def xml_entries(session: Session, where: list) -> Iterator[ZipEntry]:
    """Every matching received CFE's signed XML, byte for byte as its supplier sent it (what the company keeps for
    DGI), named by supplier, type and number ("211003420017_111_A-0000012.xml"), dated when it arrived (Uruguay's
    clock); read from `session`, closed when the last one has been read."""
    try:
        for row in session.scalars(_ordered(where).execution_options(yield_per=500)):
            known = row.rut_emisor and row.tipo_cfe and row.serie and row.nro is not None
            name = (
                f"{row.rut_emisor}_{row.tipo_cfe}_{row.serie}-{row.nro:07d}.xml" if known else f"recibido-{row.id}.xml"
            )
            yield ZipEntry(name, row.xml, montevideo_time(row.received_at).replace(tzinfo=None))
    finally:
        session.close()


def summary(session: Session, company_id: int) -> ResumenRecibidos:
    start = datetime.combine(today_montevideo(), time.min, tzinfo=MONTEVIDEO).astimezone(UTC)
    mine = ReceivedCfe.company_id == company_id
    today = session.scalar(select(func.count()).where(mine, ReceivedCfe.received_at >= start))
    unbooked = session.scalar(select(func.count()).where(mine, *PURCHASE, ReceivedCfe.contabilizado.is_(False)))
    return ResumenRecibidos(recibidos_hoy=today or 0, sin_contabilizar=unbooked or 0)


UNRECEIVED_LIMIT = 100


def unreceived_mail(session: Session, company_id: int, since: datetime) -> CorreosNoRecibidos:
    """The company's exchange-mailbox messages set aside since `since` that are news (watch.set_aside), one line
    per message (a message is a row per document: its newest says it), newest first, at most UNRECEIVED_LIMIT."""
    rows = session.scalars(
        select(ProcessedMail)
        .where(*watch.set_aside(company_id, since))
        .order_by(ProcessedMail.id.desc())
        .limit(UNRECEIVED_LIMIT * 5)
    )
    items: dict[str, CorreoNoRecibido] = {}
    for row in rows:
        if row.message_id in items:
            continue
        reason = row.reason or "ilegible"
        said = say(watch.SET_ASIDE_REASONS[reason])
        items[row.message_id] = CorreoNoRecibido(
            remitente=row.sender,
            leido_en=row.received_at,
            archivo=row.filename,
            motivo=reason,
            texto=said[:1].upper() + said[1:],  # a reason is written to follow "que ..." in the notice
        )
        if len(items) == UNRECEIVED_LIMIT:
            break
    return CorreosNoRecibidos(items=list(items.values()))
