"""The issuing form's data as the client's typed request (`CfeRequest`), and the request's field errors
back onto the form.

Pure (no Flask, no I/O). The portal holds no tax logic: amounts travel as the user typed them (parsed
into exact decimals) and every total, rate and rule is the service's. Which fields a CFE type carries
(portal.domain.cfe_types) is applied here only so the request never sends a field DGI's format does not
have for that type.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from portal.client.cfe import (
    PRICES_INCLUDE_IVA,
    SMALL_TAXPAYER_SALES,
    CfeRequest,
    Line,
    PaperNumber,
    Principal,
    Receiver,
    Reference,
    Retention,
)
from portal.client.cfe_parts import ItemCode
from portal.domain.cfe_types import (
    BOLETA_TYPES,
    CFC_BASE,
    CFC_OFFSET,
    CUENTA_AJENA_TYPES,
    E_REMITO,
    E_REMITO_EXPORTACION,
    E_RESGUARDO,
    EXPORT_INVOICE_TYPES,
    IND_FACT_BASIC_RATE,
    INVOICE_TYPES,
    NO_UNIT,
    NOTE_TYPES,
)
from portal.domain.digits import ascii_number
from portal.domain.identifiers import URUGUAYAN_DOC_TYPES

# Query parameters the issuing form accepts to pre-fill itself (the DGI page's "use as receiver" link
# sends the first seven; the receipt page's "credit/debit note" links add the reference).
PREFILL_PARAMS = {
    "tipoCFE": "tipo_cfe",
    "tipoDocRecep": "tipo_doc_recep",
    "docRecep": "doc_recep",
    "rznSocRecep": "rzn_soc_recep",
    "dirRecep": "dir_recep",
    "ciudadRecep": "ciudad_recep",
    "deptoRecep": "depto_recep",
    "refTipo": "ref_tipo",
    "refSerie": "ref_serie",
    "refNro": "ref_nro",
    "refFecha": "ref_fecha",
}


# The company's own product code (the catalogue's, portal/service/productos) goes as DGI's "INT1" code kind.
ITEM_CODE_KIND = "INT1"


def _text(data: dict, name: str) -> str:
    return (data.get(name) or "").strip()


def _blank_line(line: dict) -> bool:
    return not (
        _text(line, "nom_item")
        or line.get("precio_unitario") is not None
        or line.get("descuento") is not None
        or _text(line, "cod_ret")
        or line.get("valor") is not None
    )


def _line(line: dict, tipo: int) -> Line:
    if tipo == E_RESGUARDO:  # one retention per line: code, rate, base, amount
        retention = Retention(
            code=_text(line, "cod_ret"), rate=line.get("tasa"), base=line.get("base"), amount=line.get("valor")
        )
        return Line(retentions=(retention,))
    remito_export = tipo == E_REMITO_EXPORTACION  # priced, no discounts, goods carry no indicator
    priced = tipo in INVOICE_TYPES or tipo in EXPORT_INVOICE_TYPES or tipo in BOLETA_TYPES or remito_export
    return Line(
        name=_text(line, "nom_item") or None,
        quantity=line.get("cantidad"),
        unit=_text(line, "uni_med") or None,
        ind_fact=int(line["ind_fact"]) if priced and line.get("ind_fact") else None,
        unit_price=line.get("precio_unitario") if priced else None,
        discount=(line.get("descuento") or None) if priced and not remito_export else None,
        codes=(ItemCode(ITEM_CODE_KIND, code),) if (code := _text(line, "cod_item")) else (),
    )


def _receiver(data: dict) -> Receiver | None:
    doc_type = int(_text(data, "tipo_doc_recep")) if _text(data, "tipo_doc_recep") else None
    country = None
    if doc_type is not None:
        country = "UY" if doc_type in URUGUAYAN_DOC_TYPES else _text(data, "cod_pais_recep").upper() or None
    receiver = Receiver(
        doc_type=doc_type,
        country=country,
        document=_text(data, "doc_recep") or None,
        name=_text(data, "rzn_soc_recep") or None,
        address=_text(data, "dir_recep") or None,
        city=_text(data, "ciudad_recep") or None,
        department=_text(data, "depto_recep") or None,
        country_name=_text(data, "pais_recep") or None,
    )
    return None if receiver == Receiver() else receiver


def _reference(data: dict) -> Reference | None:
    if not (_text(data, "ref_serie") or _text(data, "ref_nro") or _text(data, "ref_razon")):
        return None
    return Reference(
        tipo_cfe=int(data["ref_tipo"]) if data.get("ref_tipo") else None,
        serie=_text(data, "ref_serie").upper() or None,
        number=ascii_number(_text(data, "ref_nro")),
        reason=_text(data, "ref_razon") or None,
        issue_date=data["ref_fecha"] if isinstance(data.get("ref_fecha"), date) else None,
    )


@dataclass(frozen=True)
class Body:
    """The typed request, and for each of its lines the form line it came from (blank lines are skipped)."""

    cfe: CfeRequest
    line_rows: tuple[int, ...]


def build_body(data: dict) -> Body:
    """The service's "issue a CFE" request from the form's data (`form.data`: decimals and dates parsed)."""
    tipo = int(data["tipo_cfe"])
    remito_export = tipo == E_REMITO_EXPORTACION
    export, boleta = tipo in EXPORT_INVOICE_TYPES or remito_export, tipo in BOLETA_TYPES
    invoice = (tipo in INVOICE_TYPES or export or boleta) and not remito_export
    currency = (_text(data, "tpo_moneda") or "UYU") if tipo != E_REMITO else None
    rows = tuple(i for i, line in enumerate(data.get("lines") or []) if not _blank_line(line))
    reference = _reference(data) if tipo in NOTE_TYPES else None
    cfe = CfeRequest(
        tipo_cfe=tipo,
        issue_date=data["fch_emis"] if isinstance(data.get("fch_emis"), date) else None,
        payment_form=int(data.get("fma_pago") or 1) if invoice else None,
        due_date=data["fch_venc"] if invoice and isinstance(data.get("fch_venc"), date) else None,
        gross_amounts=_gross_amounts(data, boleta) if invoice and not export else None,
        currency=currency,
        exchange_rate=data.get("tpo_cambio") if currency not in (None, "UYU") else None,
        transfer_kind=int(data.get("tipo_traslado") or 1) if tipo in (E_REMITO, E_REMITO_EXPORTACION) else None,
        receiver=_receiver(data),
        lines=tuple(_line(data["lines"][i], tipo) for i in rows),
        references=(reference,) if reference else (),
        adenda=_text(data, "adenda") or None,
        corrects=_text(data, "corrige") or None,
        branch_code=data.get("sucursal") or None,
        sale_clause=(_text(data, "clau_venta").upper() or None) if export else None,
        sale_mode=int(data["mod_venta"]) if export and data.get("mod_venta") else None,
        transport=int(data["via_transp"]) if export and data.get("via_transp") else None,
        principal=_principal(data) if tipo in CUENTA_AJENA_TYPES else None,
    )
    if data.get("contingencia"):  # keyed in from paper: the type's contingency code, the paper's serie/number
        nro = _text(data, "cfc_nro")
        cfe = replace(
            cfe,
            tipo_cfe=tipo + CFC_OFFSET if tipo in CFC_BASE_TYPES else tipo,
            paper=PaperNumber(_text(data, "cfc_serie").upper(), number)
            if (number := ascii_number(nro)) is not None
            else None,
        )
    return Body(cfe, rows)


# The types whose paper contingency receipt (its type + CFC_OFFSET) can be keyed in: every one DGI defines.
CFC_BASE_TYPES = frozenset(CFC_BASE.values())


IMEBA_INCLUDED = 2  # DGI's MntBruto 2: an e-Boleta de entrada's prices include IMEBA and additional taxes


def _principal(data: dict) -> Principal | None:
    document = _text(data, "doc_mdte")
    if not (document or _text(data, "nombre_mdte")):
        return None  # the service answers that a sale on behalf of others needs its principal
    doc_type = int(_text(data, "tipo_doc_mdte") or 2)
    country = "UY" if doc_type in URUGUAYAN_DOC_TYPES else (_text(data, "pais_mdte").upper() or "99")
    return Principal(doc_type=doc_type, document=document, name=_text(data, "nombre_mdte"), country=country)


def _gross_amounts(data: dict, boleta: bool = False) -> int | None:
    """DGI's MntBruto: an e-Boleta de entrada's prices include IMEBA (2) or not; an IVA mínimo or Monotributo
    company's sales carry no IVA (3); otherwise the prices include IVA (1) or IVA is added to them (absent)."""
    if boleta:
        return IMEBA_INCLUDED if data.get("incluye_imeba") else None
    if data.get("ventas_sin_iva") == "1":
        return SMALL_TAXPAYER_SALES
    return PRICES_INCLUDE_IVA if data.get("mnt_bruto") else None


def _line_data(line: Line) -> dict:
    retention = line.retentions[0] if line.retentions else Retention(code="")
    return {
        "ind_fact": line.ind_fact or IND_FACT_BASIC_RATE,
        "nom_item": line.name or "",
        "cod_item": next((c.code for c in line.codes if c.kind == ITEM_CODE_KIND), ""),
        "cantidad": line.quantity,
        "uni_med": "" if line.unit in (None, NO_UNIT) else line.unit,
        "precio_unitario": line.unit_price,
        "descuento": line.discount,
        "cod_ret": retention.code,
        "tasa": retention.rate,
        "base": retention.base,
        "valor": retention.amount,
    }


def form_data(cfe: CfeRequest) -> dict:
    """The issuing form's data for a request (the inverse of build_body): a note's draft, or a receipt to
    issue again. What the form does not have (codes, payments) is left out."""
    receiver = cfe.receiver or Receiver()
    paper = cfe.tipo_cfe - CFC_OFFSET in CFC_BASE_TYPES
    data: dict = {
        "tipo_cfe": cfe.tipo_cfe - CFC_OFFSET if paper else cfe.tipo_cfe,
        "fma_pago": cfe.payment_form or 1,
        "mnt_bruto": cfe.prices_include_tax,
        "incluye_imeba": cfe.gross_amounts == IMEBA_INCLUDED,
        "tpo_moneda": cfe.currency or "UYU",
        "tpo_cambio": cfe.exchange_rate,
        "adenda": cfe.adenda or "",
        "sucursal": cfe.branch_code,
        "tipo_doc_recep": str(receiver.doc_type or ""),
        "cod_pais_recep": receiver.country or "UY",
        "lines": [_line_data(line) for line in cfe.lines],
    }
    for name, value in (
        ("doc_recep", receiver.document),
        ("rzn_soc_recep", receiver.name),
        ("dir_recep", receiver.address),
        ("ciudad_recep", receiver.city),
        ("depto_recep", receiver.department),
        ("pais_recep", receiver.country_name),
        ("clau_venta", cfe.sale_clause),
        ("mod_venta", cfe.sale_mode),
        ("via_transp", cfe.transport),
        ("tipo_doc_mdte", str(cfe.principal.doc_type) if cfe.principal else None),
        ("pais_mdte", cfe.principal.country if cfe.principal else None),
        ("doc_mdte", cfe.principal.document if cfe.principal else None),
        ("nombre_mdte", cfe.principal.name if cfe.principal else None),
    ):
        if value:
            data[name] = value
    if cfe.transfer_kind:
        data["tipo_traslado"] = cfe.transfer_kind
    if paper:  # a paper contingency receipt: its serie, number and date are the paper's
        data.update(contingencia=True, fch_emis=cfe.issue_date)
        if cfe.paper is not None:
            data.update(cfc_serie=cfe.paper.serie, cfc_nro=str(cfe.paper.number))
    if cfe.corrects:  # a correction keeps what the rejected receipt said, its due date too
        data["corrige"] = cfe.corrects
        if cfe.due_date:
            data["fch_venc"] = cfe.due_date
    for reference in cfe.references[:1]:
        data.update(
            ref_tipo=reference.tipo_cfe,
            ref_serie=reference.serie or "",
            ref_nro=str(reference.number or ""),
            ref_razon=reference.reason or "",
            ref_fecha=reference.issue_date,
        )
    return data
