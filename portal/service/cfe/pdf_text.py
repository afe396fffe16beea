"""Words and number formats of the printed representation (es-UY: 1.234,56)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from portal.service.cfe.model import Referencia

FMA_PAGO = {1: "Contado", 2: "Crédito"}
TIPO_TRASLADO = {1: "Venta", 2: "Traslado interno"}
DOC_TYPE = {1: "NIE", 2: "RUT", 3: "C.I.", 4: "Otro", 5: "Pasaporte", 6: "DNI", 7: "NIFE"}
# What each IndFact prints in the rate column; DGI asks for the sign instead of the code for 7, 8 and 9.
IND_FACT = {1: "Exento", 2: "10%", 3: "22%", 4: "Otra", 5: "Gratis", 6: "No fact.", 7: "-", 8: "-", 9: "-",
            10: "Export.", 11: "Percib.", 12: "Susp.", 16: "IVA mín."}
SHORT_TYPE = {101: "e-Ticket", 102: "NC e-Ticket", 103: "ND e-Ticket", 111: "e-Factura", 112: "NC e-Factura",
              113: "ND e-Factura", 121: "e-Fact. Exp.", 124: "e-Rem. Exp.", 181: "e-Remito", 182: "e-Resguardo"}


def _group(integer_part: str) -> str:
    sign, digits = ("-", integer_part[1:]) if integer_part.startswith("-") else ("", integer_part)
    groups = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    return sign + ".".join([digits, *groups])


def number(value: Decimal | int, places: int) -> str:
    """Fixed `places` decimals, dot thousands and comma decimals: 1234.5 -> '1.234,50'."""
    text = format(Decimal(value).quantize(Decimal(1).scaleb(-places)), "f")
    integer, _, fraction = text.partition(".")
    return _group(integer) + ("," + fraction if fraction else "")


def money(value: Decimal) -> str:
    """An amount with 2 decimals, es-UY style."""
    return number(value, 2)


def trimmed(value: Decimal, min_places: int, max_places: int) -> str:
    """Between `min_places` and `max_places` decimals, dropping trailing zeros: 40.000 -> '40'."""
    quantized = Decimal(value).quantize(Decimal(1).scaleb(-max_places))
    significant = -quantized.normalize().as_tuple().exponent
    return number(quantized, min(max(significant, min_places), max_places))


def day(value: date | None) -> str:
    """dd/mm/yyyy, or an empty string."""
    return value.strftime("%d/%m/%Y") if value else ""


def reference_line(ref: Referencia) -> str:
    """One line of the references zone: what is referenced, when, and why."""
    if ref.ind_global == 1:
        return f"Referencia global: {ref.razon_ref or ''}"
    kind = SHORT_TYPE.get(ref.tpo_doc_ref, f"Tipo {ref.tpo_doc_ref}")
    text = f"{kind} {ref.serie} {ref.nro_cfe_ref}"
    if ref.fecha_cfe_ref:
        text += f" del {day(ref.fecha_cfe_ref)}"
    if ref.razon_ref:
        text += f" - {ref.razon_ref}"
    return text
