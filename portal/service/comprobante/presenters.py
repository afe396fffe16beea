"""Turning stored receipts into the API's answers."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from portal.domain.cfe_types import headline_amount
from portal.domain.receipt_numbers import printed
from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe import Numbering
from portal.service.comprobante import hooks, notes
from portal.service.comprobante.amounts import is_credit_note
from portal.service.comprobante.contingency import book_numbering
from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe, NoteReference, ReferenceChange
from portal.service.comprobante.schemas import (
    Advertencia,
    CaeData,
    CambioReferencia,
    CfeEmitido,
    NotaAnuladora,
    NotaRelacionada,
    ReceptorResumen,
    ReferenciaAplicada,
    ReferenciaEmitida,
    ResultadoBusqueda,
    ResumenCfe,
    TotalMoneda,
)
from portal.service.platform import db, responses
from portal.service.platform.i18n import say
from portal.service.platform.publicurl import public_url

if TYPE_CHECKING:
    from portal.service.comprobante.search import Totals


def cfe_emitido_json(
    record: IssuedCfe,
    warnings: list[dict],
    session: Session,
    *,
    just_issued: bool = False,
    numbering: Numbering | None = None,
) -> dict[str, Any]:
    """`cfe_emitido` as the JSON the endpoints answer (camelCase; required fields always, as null when empty)."""
    return responses.dump(cfe_emitido(record, warnings, session, just_issued=just_issued, numbering=numbering))


def issued_json(record: IssuedCfe, warnings: list[dict], session: Session, numbering: Numbering) -> dict[str, Any]:
    """`cfe_emitido_json(..., just_issued=True)` of a receipt stored a moment ago, written from the values in hand
    instead of through the CfeEmitido model (the issuing path's answer: validating the model and dumping it again
    cost a tenth of an issue). The same JSON, key for key and in the same order
    (tests/unit/test_issued_answer.py compares the two for every kind of receipt); a note with references (their
    ids are read back) goes through the model."""
    if record.input_json.get("referencias"):
        return cfe_emitido_json(record, warnings, session, just_issued=True, numbering=numbering)
    dgi = hooks.dgi_state(session, record)
    exchange = hooks.exchange_state(session, record)
    sections = {
        "dgi": None if dgi is None else responses.dump(dgi),
        "intercambio": None if exchange is None else responses.dump(exchange),
        "corrigeRechazoComercial": hooks.corrected_receipt(session, record),
    }
    return fresh_json(record, warnings, numbering, sections)


def fresh_json(record: Any, warnings: list[dict], numbering: Numbering, sections: dict[str, Any]) -> dict[str, Any]:
    """`issued_json` of a receipt without references, from its columns (`record`: the ORM object or any object
    with its attributes) and the sections other areas wrote (`dgi`, `intercambio`, `corrigeRechazoComercial`
    as JSON values)."""
    source = record.input_json
    link = public_url("comprobante.get_by_id", idCfeEmitido=record.id)
    creditable = _creditable(record, [])
    tpo_cambio = source.get("tpoCambio")
    # CfeEmitido's fields in its order, None left out (it has no required field that may be null).
    values: tuple[tuple[str, Any], ...] = (
        ("idCfeEmitido", record.id),
        ("tipoCFE", record.tipo_cfe),
        ("serie", record.serie),
        ("nro", record.nro),
        ("fchEmis", record.fch_emis.isoformat()),
        ("tmstFirma", _json_datetime(record.tmst_firma.astimezone(MONTEVIDEO))),
        ("tpoMoneda", record.tpo_moneda),
        ("receptor", source.get("receptor")),
        ("totales", record.totals_json),
        ("codigoSeguridad", record.security_code),
        ("urlQR", record.qr_url),
        (
            "cae",
            {
                "caeId": f"{numbering.cae_id:011d}",
                "dNro": numbering.dnro,
                "hNro": numbering.hnro,
                "fecVenc": numbering.fec_venc.isoformat(),
            },
        ),
        ("estadoDGI", record.dgi_status),
        ("dgi", sections.get("dgi")),
        ("intercambio", sections.get("intercambio")),
        ("corrigeRechazoComercial", sections.get("corrigeRechazoComercial")),
        ("referenciaCobro", record.referencia_cobro),
        ("creadoPor", record.created_by),
        ("creadoEn", _json_datetime(record.created_at)),
        ("advertencias", [{"codigo": w["codigo"], "mensaje": say(w["mensaje"])} for w in warnings]),
        ("historialReferencias", []),
        ("fmaPago", source.get("fmaPago")),
        ("fchVenc", source.get("fchVenc")),
        ("tipoTraslado", source.get("tipoTraslado")),
        ("clauVenta", source.get("clauVenta")),
        ("modVenta", source.get("modVenta")),
        ("viaTransp", source.get("viaTransp")),
        ("complFiscal", source.get("complFiscal")),
        ("mntBruto", _mnt_bruto(source.get("mntBruto"))),
        ("tpoCambio", None if tpo_cambio is None else str(Decimal(str(tpo_cambio)))),
        ("items", source.get("items", [])),
        ("dscRcgGlobal", source.get("dscRcgGlobal", [])),
        ("mediosPago", source.get("mediosPago", [])),
        ("infoAdicionalDoc", source.get("infoAdicionalDoc")),
        ("adenda", source.get("adenda")),
        ("referencias", []),
        ("notas", []),
        ("saldoAcreditable", None if creditable is None else str(creditable)),
        ("enlaces", {"self": link, "xml": link, "pdf": link}),
    )
    return {key: value for key, value in values if value is not None}


def _json_datetime(moment: datetime) -> str:
    """A datetime as pydantic writes it in JSON (ISO 8601, UTC as Z)."""
    text = moment.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def cfe_emitido(
    record: IssuedCfe,
    warnings: list[dict],
    session: Session,
    *,
    just_issued: bool = False,
    numbering: Numbering | None = None,
) -> CfeEmitido:
    """The receipt as the API shows it. `just_issued`: stored in `session`'s transaction a moment ago, so no
    note, credit or reference change can point at it yet (two queries less on the issuing path). `numbering`:
    the CAE range it was numbered from, when the caller has it (no query for the range)."""
    cae = numbering or (
        _numbering(session.get_one(CaeRangeRecord, record.cae_range_id))
        if record.cae_range_id is not None
        else book_numbering(session, record)  # a paper contingency receipt keyed in: its printed book
    )
    related = [] if just_issued else _related_notes(session, record)
    link = public_url("comprobante.get_by_id", idCfeEmitido=record.id)
    source = record.input_json
    return CfeEmitido(
        fma_pago=source.get("fmaPago"),
        fch_venc=source.get("fchVenc"),
        tipo_traslado=source.get("tipoTraslado"),
        clau_venta=source.get("clauVenta"),
        mod_venta=source.get("modVenta"),
        via_transp=source.get("viaTransp"),
        compl_fiscal=source.get("complFiscal"),
        mnt_bruto=_mnt_bruto(source.get("mntBruto")),
        tpo_cambio=source.get("tpoCambio"),
        items=source.get("items", []),
        dsc_rcg_global=source.get("dscRcgGlobal", []),
        medios_pago=source.get("mediosPago", []),
        info_adicional_doc=source.get("infoAdicionalDoc"),
        adenda=source.get("adenda"),
        referencias=_references(session, record),
        notas=[_note(r) for r in related],
        saldo_acreditable=_creditable(record, related),
        id_cfe_emitido=record.id,
        tipo_cfe=record.tipo_cfe,
        serie=record.serie,
        nro=record.nro,
        fch_emis=record.fch_emis,
        tmst_firma=record.tmst_firma.astimezone(MONTEVIDEO),  # TmstFirma as the XML carries it
        tpo_moneda=record.tpo_moneda,
        receptor=record.input_json.get("receptor"),
        totales=record.totals_json,
        codigo_seguridad=record.security_code,
        url_qr=record.qr_url,
        cae=CaeData(cae_id=f"{cae.cae_id:011d}", dnro=cae.dnro, hnro=cae.hnro, vencimiento=cae.fec_venc),
        estado_dgi=record.dgi_status,
        referencia_cobro=record.referencia_cobro,
        creado_por=record.created_by,
        creado_en=record.created_at,
        advertencias=[Advertencia(codigo=w["codigo"], mensaje=say(w["mensaje"])) for w in warnings],
        # A change is recorded only when a reference is applied, and an applied one can never be emptied
        # (ReaplicarReferencia): a receipt without a reference has no history to read.
        historial_referencias=[] if just_issued or record.referencia_cobro is None else _history(session, record),
        enlaces={"self": link, "xml": link, "pdf": link},
        dgi=hooks.dgi_state(session, record),
        intercambio=hooks.exchange_state(session, record),
        corrige_rechazo_comercial=hooks.corrected_receipt(session, record),
    )


def _numbering(cae: CaeRangeRecord) -> Numbering:
    """What the answer shows of a receipt's CAE range (its number is not needed there)."""
    return Numbering(serie=cae.serie, nro=0, cae_id=cae.cae_id, dnro=cae.dnro, hnro=cae.hnro, fec_venc=cae.vencimiento)


def _creditable(record: IssuedCfe, related) -> Decimal | None:
    """What a credit note can still take (notes.remaining), from the notes already read."""
    if record.tipo_cfe not in notes.CREDIT_NOTE_FOR:
        return None
    credited = sum((_cents(r.amount) for r in related if r.is_credit), Decimal("0.00"))
    return max(_cents(record.mnt_total) - credited, Decimal("0.00"))


def _references(session: Session, record: IssuedCfe) -> list[ReferenciaEmitida]:
    if not record.input_json.get("referencias"):
        return []
    linked = {
        (r.tipo_cfe, r.serie, r.nro): r.id
        for r in session.execute(
            select(IssuedCfe.tipo_cfe, IssuedCfe.serie, IssuedCfe.nro, IssuedCfe.id)
            .join(NoteReference, NoteReference.original_id == IssuedCfe.id)
            .where(NoteReference.note_id == record.id)
        )
    }
    result = []
    for ref in record.input_json.get("referencias", []):
        found = linked.get((ref.get("tpoDocRef"), ref.get("serie"), ref.get("nroCFERef")))
        result.append(ReferenciaEmitida.model_validate({**ref, "idCfeEmitido": found}))
    return result


# Built once (every read of a receipt runs it; building it cost more than running it).
_RELATED_NOTES = (
    select(
        IssuedCfe.id,
        IssuedCfe.tipo_cfe,
        IssuedCfe.serie,
        IssuedCfe.nro,
        IssuedCfe.fch_emis,
        IssuedCfe.tpo_moneda,
        IssuedCfe.mnt_total,
        NoteReference.amount,
        NoteReference.is_credit,
    )
    .join(NoteReference, NoteReference.note_id == IssuedCfe.id)
    .where(NoteReference.original_id == bindparam("original_id"))
    .order_by(IssuedCfe.fch_emis, IssuedCfe.created_at)
)


def _related_notes(session: Session, record: IssuedCfe) -> list:
    """The notes that reference `record`, with the amount each applies to it, oldest first."""
    return list(db.column_rows(session, _RELATED_NOTES, {"original_id": record.id}))


def _note(row) -> NotaRelacionada:
    return NotaRelacionada(
        id_cfe_emitido=row.id,
        tipo_cfe=row.tipo_cfe,
        serie=row.serie,
        nro=row.nro,
        fch_emis=row.fch_emis,
        tpo_moneda=row.tpo_moneda,
        mnt_total=_cents(row.mnt_total),
        monto_aplicado=_cents(row.amount),
    )


def _history(session: Session, record: IssuedCfe) -> list[CambioReferencia]:
    history = session.scalars(
        select(ReferenceChange)
        .where(ReferenceChange.cfe_id == record.id)
        .order_by(ReferenceChange.at.desc(), ReferenceChange.id.desc())
    )
    return [
        CambioReferencia(
            referencia_anterior=h.previous, referencia_cobro=h.reference, observacion=h.note, por=h.actor, en=h.at
        )
        for h in history
    ]


def referencia_aplicada(session: Session, record: IssuedCfe, changed: bool) -> ReferenciaAplicada:
    assert record.referencia_cobro is not None  # the reference just applied
    return ReferenciaAplicada(
        id_cfe_emitido=record.id,
        referencia_cobro=record.referencia_cobro,
        cambio=changed,
        historial=_history(session, record),
    )


def _cents(value) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


def _nota_anuladora(note) -> NotaAnuladora | None:
    if note is None:
        return None
    return NotaAnuladora(id_cfe_emitido=note.id, tipo_cfe=note.tipo_cfe, numero=printed(note.serie, note.nro))


def listed_amount(row) -> Decimal:
    """What a receipt's row of the list stands for: its total, negative for a credit note, and an e-Resguardo's
    total withheld (its MntTotal is 0: it bills nothing), as its page and its QR put first."""
    if headline_amount(row.tipo_cfe) == "MntTotRetenido":
        return _cents(row.mnt_tot_retenido)
    return -_cents(row.mnt_total) if is_credit_note(row.tipo_cfe) else _cents(row.mnt_total)


def resultado_busqueda(rows, following: str | None, totals: Totals, cancelled: dict | None = None) -> ResultadoBusqueda:
    """A page of the list; `cancelled`: receipt id -> the credit note that cancelled it (search.cancellations)."""
    cancelled = cancelled or {}
    listed = [
        ResumenCfe(
            id_cfe_emitido=row.id,
            tipo_cfe=row.tipo_cfe,
            serie=row.serie,
            nro=row.nro,
            numero=printed(row.serie, row.nro),
            fch_emis=row.fch_emis,
            tpo_moneda=row.tpo_moneda,
            mnt_total=_cents(row.mnt_total),
            mnt_pagar=_cents(row.mnt_pagar),
            estado_dgi=row.dgi_status,
            solicitud=row.request_id,
            receptor=ReceptorResumen(doc_recep=row.receptor_doc, rzn_soc_recep=row.receptor_nombre)
            if row.receptor_doc or row.receptor_nombre
            else None,
            creado_en=row.created_at,
            importe=listed_amount(row),
            anulado=row.id in cancelled,
            anulado_por=_nota_anuladora(cancelled.get(row.id)),
        )
        for row in rows
    ]
    return ResultadoBusqueda(
        items=listed,
        siguiente_cursor=following,
        total=totals.count,
        total_acotado=totals.bounded,
        totales=[TotalMoneda(moneda=t.moneda, cantidad=t.cantidad, mnt_total=t.mnt_total) for t in totals.currencies],
    )


def _mnt_bruto(stored) -> int | None:
    """DGI's MntBruto as issued: receipts stored before it became 1/2/3 say true (1) or false (absent)."""
    if stored is True:
        return 1
    return stored or None
