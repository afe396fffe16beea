"""Words, legends and number formats of the printed representation (es-UY: 1.234,56), shared by the A4
page (pdf.py) and the thermal roll (pdf_roll.py), and the text sizes both use.

Sizes: DGI asks for characters "no inferiores a 3 mm de alto" for the mandatory legends and at least 2 mm
for everything else. We measure a character's height as the height of a capital letter or digit (the cap
height: 0.718 em in Helvetica, 0.729 em in DejaVu Sans), the strictest reading of "alto", so MANDATORY_PT
(12.5 pt) prints capitals 3.17 mm high and TEXT_PT (8.5 pt) 2.15 mm; nothing on the page is smaller.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from portal.domain.cfe_types import CFC_BASE, NO_UNIT
from portal.domain.money import currency_sign
from portal.service.cfe.printable import Printable, Reference

MANDATORY_PT = 12.5  # serie/number, RUC, CFE type, forma de pago, CONSUMO FINAL / RUC COMPRADOR, boxes
TEXT_PT = 8.5  # every other text
LINE_MM = 0.3  # every rule and box: 2.4 dots of a 200 dpi thermal head, no hairline

FMA_PAGO = {1: "Contado", 2: "Crédito"}
TIPO_TRASLADO = {1: "Venta", 2: "Traslado interno"}
DOC_TYPE = {1: "NIE", 2: "RUT", 3: "C.I.", 4: "Otro", 5: "Pasaporte", 6: "DNI", 7: "NIFE"}
# What each IndFact prints in the rate column; DGI asks for the sign instead of the code for 7, 8 and 9.
IND_FACT = {
    1: "Exento",
    2: "10%",
    3: "22%",
    4: "Otra",
    5: "Gratis",
    6: "No fact.",
    7: "-",
    8: "-",
    9: "-",
    10: "Export.",
    11: "Percib.",
    12: "Susp.",
    13: "No contr.",
    14: "IVA mín.",
    15: "IMEBA",
    16: "IVA mín.",
    17: "M/E rev.",
}
SHORT_TYPE = {
    101: "e-Ticket",
    102: "NC e-Ticket",
    103: "ND e-Ticket",
    111: "e-Factura",
    112: "NC e-Factura",
    113: "ND e-Factura",
    131: "e-Ticket Cta. Aj.",
    132: "NC e-Ticket Cta. Aj.",
    133: "ND e-Ticket Cta. Aj.",
    141: "e-Factura Cta. Aj.",
    142: "NC e-Factura Cta. Aj.",
    143: "ND e-Factura Cta. Aj.",
    121: "e-Fact. Exp.",
    122: "NC e-Fact. Exp.",
    123: "ND e-Fact. Exp.",
    124: "e-Rem. Exp.",
    151: "e-Boleta",
    152: "NC e-Boleta",
    153: "ND e-Boleta",
    181: "e-Remito",
    182: "e-Resguardo",
}


# -- bilingual receipts (issue 29): our labels in Spanish and English; DGI's fiscal legends (RUC EMISOR, the
# type's name, RUC COMPRADOR, CONSUMO FINAL, Fecha de vencimiento, Código de seguridad, CAE, "Puede verificar
# comprobante en...", IVA al día, the regime box, ADENDA) stay exactly as DGI writes them.
ENGLISH = {
    "Forma de pago": "Payment",
    "Contado": "Cash",
    "Crédito": "Credit",
    "Fecha": "Date",
    "Vencimiento del pago": "Due date",
    "Moneda": "Currency",
    "T.C.": "Rate",
    "RECEPTOR": "CUSTOMER",
    "Orden de compra": "Purchase order",
    "Descripción": "Description",
    "IVA": "VAT",
    "Cant.": "Qty",
    "Unid.": "Unit",
    "P. unitario": "Unit price",
    "Desc./Rec.": "Disc./Surch.",
    "Importe": "Amount",
    "Exento / no gravado": "Exempt / not taxed",
    "Exportación y asimiladas": "Export",
    "Impuesto percibido": "Tax collected",
    "IVA en suspenso": "Suspended VAT",
    "Retenciones / percepciones": "Withholdings",
    "Créditos fiscales": "Tax credits",
    "Monto no facturable": "Non-billable",
    "TOTAL A PAGAR": "AMOUNT DUE",
    "Medios de pago": "Payment methods",
    "Referencias": "References",
    "Exportación": "Export terms",
    "Cláusula de venta": "Incoterm",
    "Modalidad de venta": "Sale mode",
    "Vía de transporte": "Transport",
    "Tipo de traslado": "Transfer",
    "Información adicional": "Additional information",
    "Descuentos y recargos globales": "Discounts and surcharges",
}


def bi(doc: Printable, spanish: str) -> str:
    """A label as printed: Spanish, or "Spanish / English" on a bilingual receipt."""
    english = ENGLISH.get(spanish)
    return f"{spanish} / {english}" if doc.bilingual and english else spanish


def english(doc: Printable, spanish: str) -> str | None:
    """The English of a label on a bilingual receipt (a second line under a narrow column's title), or None."""
    return ENGLISH.get(spanish) if doc.bilingual else None


def _group(integer_part: str) -> str:
    sign, digits = ("-", integer_part[1:]) if integer_part.startswith("-") else ("", integer_part)
    groups: list[str] = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    return sign + ".".join([digits, *groups])


def number(value: Decimal | int | float, places: int, *, grouped: bool = True) -> str:
    """Fixed `places` decimals, dot thousands and comma decimals: 1234.5 -> '1.234,50' ('1234,50' not
    `grouped`, as a spreadsheet cell wants it)."""
    text = format(Decimal(str(value)).quantize(Decimal(1).scaleb(-places)), "f")
    integer, _, fraction = text.partition(".")
    return (_group(integer) if grouped else integer) + ("," + fraction if fraction else "")


def money(value: Decimal | int | float, currency: str | None = None) -> str:
    """The service's one way to write an amount for people: 2 decimals, es-UY style, after the currency's
    sign when given ("U$S 1.234,50")."""
    amount = number(value, 2)
    return f"{currency_sign(currency)} {amount}" if currency else amount


def trimmed(value: Decimal, min_places: int, max_places: int) -> str:
    """Between `min_places` and `max_places` decimals, dropping trailing zeros: 40.000 -> '40'."""
    quantized = Decimal(value).quantize(Decimal(1).scaleb(-max_places))
    exponent = quantized.normalize().as_tuple().exponent
    assert isinstance(exponent, int)  # a finite amount: only NaN and infinities have a letter for exponent
    significant = -exponent
    return number(quantized, min(max(significant, min_places), max_places))


def day(value: date | None) -> str:
    """dd/mm/yyyy, or an empty string."""
    return value.strftime("%d/%m/%Y") if value else ""


MOD_VENTA = {
    1: "Régimen general",
    2: "Consignación",
    3: "Precio revisable",
    4: "Bienes propios a exclaves aduaneros",
    80: "Tax Free",
    90: "Régimen general - exportación de servicios",
    91: "Exportación mandante",
    99: "Otras transacciones",
}
VIA_TRANSP = {1: "Marítimo", 2: "Aéreo", 3: "Terrestre", 8: "No aplica", 9: "Otro"}


def export_lines(doc: Printable) -> list[str]:
    """The terms of sale of an export (A-C13 to A-C15), as the XML states them; empty for other types."""
    if not any(doc.export_terms):
        return []
    clause, mode, via = doc.export_terms
    mode = int(mode) if mode is not None else None
    via = int(via) if via is not None else None
    lines = [f"{bi(doc, 'Cláusula de venta')}: {clause}"] if clause else []
    if mode is not None:
        lines.append(f"{bi(doc, 'Modalidad de venta')}: {mode} - {MOD_VENTA.get(mode, '')}".rstrip(" -"))
    if via is not None:
        lines.append(f"{bi(doc, 'Vía de transporte')}: {via} - {VIA_TRANSP.get(via, '')}".rstrip(" -"))
    if doc.element == "eRem_Exp" and doc.tipo_traslado:
        lines.append(f"{bi(doc, 'Tipo de traslado')}: {TIPO_TRASLADO.get(doc.tipo_traslado, '')}")
    return lines


def _reference_kind(tipo: int) -> str | None:
    """A referenced type's short name; a paper contingency receipt (CFC, 2xx = 1xx + 100), which a note may
    adjust (DGITypes.xsd's TpoDocRef admits 201-253), by its 1xx type's name and "de contingencia"."""
    if tipo in SHORT_TYPE:
        return SHORT_TYPE[tipo]
    electronic = SHORT_TYPE.get(CFC_BASE[tipo]) if tipo in CFC_BASE else None
    return f"{electronic} de contingencia" if electronic else None


def reference_line(ref: Reference) -> str:
    """One line of the references zone: what is referenced, when, and why."""
    if ref.ind_global:
        return f"Referencia global: {ref.razon or ''}"
    kind = (_reference_kind(ref.tipo) if ref.tipo is not None else None) or f"Tipo {ref.tipo}"
    text = f"{kind} {ref.serie} {ref.nro}"
    if ref.fecha:
        text += f" del {day(ref.fecha)}"
    if ref.razon:
        text += f" - {ref.razon}"
    return text


# -- legends (CFE v25, "Formato de la representación impresa") ----------------------------------------------
_REGIME_BOX = {
    "iva_minimo": "Contribuyente IVA MINIMO",
    "monotributo": "MONOTRIBUTO",
    "monotributo_mides": "MONOTRIBUTO SOCIAL MIDES",
}
_NO_IVA_AL_DIA = {1: "No IVA al día emisor", 2: "No IVA al día mandante", 3: "No IVA al día emisor y mandante"}
DGI_SITE = "www.dgi.gub.uy"


def regime_box(doc: Printable) -> str | None:
    """The boxed legend of an exonerated, IVA mínimo or Monotributo issuer (section 1), or None."""
    if doc.regimen == "exonerado":
        norma = doc.settings.norma_exoneracion
        return f"Contribuyente Exonerado {norma}" if norma else "Contribuyente Exonerado"
    return _REGIME_BOX.get(doc.regimen)


def type_title(doc: Printable) -> str:
    """The CFE type's name, followed by "Cobranza" when the receipt documents own collections (A-C20)."""
    return f"{doc.name} Cobranza" if doc.cobranza else doc.name


def number_text(doc: Printable) -> str:
    return f"Serie {doc.serie} Nº {doc.nro:07d}" if doc.nro is not None else "Serie/Nro: (vista previa)"


def receiver_title(doc: Printable) -> str:
    """CONSUMO FINAL on e-Tickets; RUC COMPRADOR between taxpayers (section 3)."""
    if doc.element == "eTck":
        return "CONSUMO FINAL"
    receiver = doc.receiver
    if doc.element == "eBoleta":  # the buyer issues it: its receiver is the seller
        return "RUC VENDEDOR" if receiver is None or receiver.tipo_doc == 2 else "VENDEDOR"
    return "RUC COMPRADOR" if receiver is None or receiver.tipo_doc == 2 else bi(doc, "RECEPTOR")


def receiver_document(doc: Printable) -> str | None:
    """The receiver's document ("RUT 214844360018", "C.I. 13353214 (UY)"), or None."""
    receiver = doc.receiver
    if receiver is None or not receiver.doc:
        return None
    if receiver.tipo_doc == 2 and doc.element != "eTck":
        return receiver.doc
    kind = (DOC_TYPE.get(receiver.tipo_doc) if receiver.tipo_doc is not None else None) or "Doc."
    return f"{kind} {receiver.doc} ({receiver.pais or 'UY'})"


def issuer_legend(doc: Printable) -> str | None:
    """ "Res. NNN/año" when the issuer entered by resolution, else "Fecha emisor: dd/mm/aaaa" (section 5)."""
    settings = doc.settings
    if settings.resolucion:
        return settings.resolucion
    if settings.fecha_emisor:
        return f"Fecha emisor: {day(date.fromisoformat(settings.fecha_emisor[:10]))}"
    return None


def verification_phrase(doc: Printable) -> str:
    """e-Tickets and their notes point at the company's own page; the rest at DGI's (section 5)."""
    url = doc.settings.url_verificacion if doc.element == "eTck" else None
    if url:
        url = url.split("://", 1)[-1].rstrip("/")
    return f"Puede verificar comprobante en {url or DGI_SITE}"


def iva_al_dia(doc: Printable) -> str | None:
    """The IVA-al-día constancia: what A-C17 says when present, "IVA al día" when absent and the issuer
    holds the constancia; never for Monotributo (section 5), nor on e-Remito and e-Resguardo, which have
    no A-C17."""
    if doc.regimen in ("monotributo", "monotributo_mides") or doc.element not in ("eTck", "eFact", "eFact_Exp"):
        return None
    if doc.iva_al_dia_code:
        return _NO_IVA_AL_DIA.get(doc.iva_al_dia_code)
    return "IVA al día" if doc.settings.iva_al_dia else None


def cae_lines(doc: Printable) -> list[str]:
    cae = doc.cae
    assert cae is not None  # printed for a numbered receipt, never a preview
    return [f"CAE Nº {cae.cae_id}", f"Serie {doc.serie} del Nº {cae.dnro} al {cae.hnro}"]


def header_legends(doc: Printable) -> list[str]:
    """Legends printed at 3 mm or more near the document box: third parties' payments and goods."""
    found = []
    if doc.pagos_terceros:
        found.append("Pagos por cuenta de terceros")
    if doc.mandante:  # a sale on behalf of others names its principal (zona K)
        name, doc_type, document, country = doc.mandante
        found.append(
            f"Venta por cuenta ajena - Mandante: {name} ({DOC_TYPE.get(doc_type, 'Doc.')} {document}, {country})"
        )
    if doc.bienes_terceros:
        name, document = doc.bienes_terceros
        found.append(" ".join(part for part in ("Bienes de Terceros", name, document) if part))
    return found


def unit(value: str | None) -> str:
    """A line's unit as printed: nothing for N/A (no unit), as the receipt page shows it."""
    return "" if value in (None, NO_UNIT) else value


def ind_fact_label(doc: Printable, ind_fact: int | None) -> str:
    """What the rate column says for a line; IVA mínimo and Monotributo issuers print no IVA mention."""
    if not doc.mentions_iva:
        return ""
    return IND_FACT.get(ind_fact, "") if ind_fact is not None else ""


def _rate(value: Decimal | None) -> str:
    return f"{trimmed(value, 0, 3)}%" if value is not None else ""


def retention_rows(doc: Printable) -> list[tuple[str, Decimal, bool]]:
    """Each retention or perception of the lines by its code and rate ("Retención 2183 (7%)"), summed: the
    reader sees what was withheld and at which rate, not only the total (MntTotRetenido)."""
    sums: dict[tuple[str, Decimal | None], Decimal] = {}
    for line in doc.lines:
        for ret in line.retentions:
            key = (ret.code, ret.rate)
            sums[key] = sums.get(key, Decimal(0)) + ret.value
    return [
        (f"Retención/percepción {code}" + (f" ({_rate(rate)})" if rate is not None else ""), value, False)
        for (code, rate), value in sums.items()
    ]


def total_rows(doc: Printable) -> list[tuple[str, Decimal, bool]]:
    """(label, amount, emphasised) for the totals block, from the XML's own Totales."""
    t, currency = doc.totals, doc.tpo_moneda or ""
    if doc.element == "eResg":
        rows = [(f"Código {code}", value, False) for code, value in doc.retentions_total]
        if t.get("MntTotCredFisc"):
            rows.append(("Créditos fiscales", t["MntTotCredFisc"], False))
        return [*rows, (f"TOTAL RETENIDO {currency}", t.get("MntTotRetenido", Decimal(0)), True)]
    rows = []
    if doc.mentions_iva:
        labels = (
            ("MntNoGrv", "Exento / no gravado"),
            ("MntExpoyAsim", "Exportación y asimiladas"),
            ("MntImpuestoPerc", "Impuesto percibido"),
            ("MntIVaenSusp", "IVA en suspenso"),
            ("MntNetoIvaTasaMin", f"Neto IVA tasa mínima {_rate(t.get('IVATasaMin'))}"),
            ("MntNetoIVATasaBasica", f"Neto IVA tasa básica {_rate(t.get('IVATasaBasica'))}"),
            ("MntNetoIVAOtra", "Neto IVA otra tasa"),
            ("MntIVATasaMin", f"IVA tasa mínima {_rate(t.get('IVATasaMin'))}"),
            ("MntIVATasaBasica", f"IVA tasa básica {_rate(t.get('IVATasaBasica'))}"),
            ("MntIVAOtra", "IVA otra tasa"),
        )
        rows += [(bi(doc, label), t[tag], False) for tag, label in labels if t.get(tag)]
    rows.append((f"TOTAL {currency}", t.get("MntTotal", Decimal(0)), True))
    for tag, label in (
        ("MntTotRetenido", "Retenciones / percepciones"),
        ("MntTotCredFisc", "Créditos fiscales"),
        ("MontoNF", "Monto no facturable"),
    ):
        if t.get(tag):
            if tag == "MntTotRetenido":
                rows += retention_rows(doc)
            rows.append((bi(doc, label), t[tag], False))
    if doc.element != "eRem_Exp":  # the e-Remito de Exportación declares a value; nothing is paid on it
        rows.append((f"{bi(doc, 'TOTAL A PAGAR')} {currency}", t.get("MntPagar", Decimal(0)), True))
    return rows
