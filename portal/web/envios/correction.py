"""'Emitir corregido': the issuing form filled with what a rejected receipt said, to issue it again under a
new number.

The data come from the receipt's own signed XML (what DGI saw), read back into the issuing form's fields:
header, receiver, lines and reference. The date is today's (a new receipt), and the form carries the
rejected receipt's id in `corrige`, which the issue sends as the request's `corrects` so the service links both ways.
Numbers are written the way the form reads them (decimal comma, no grouping: 1500, 350,25).
"""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal, InvalidOperation

from lxml import etree
from werkzeug.datastructures import MultiDict

from portal.domain.cfe_types import NO_UNIT
from portal.web.forms_common import form_day

NS = {"c": "http://cfe.dgi.gub.uy"}
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)

# form field -> path under Encabezado
_HEADER = {
    "tipo_cfe": "c:IdDoc/c:TipoCFE",
    "fma_pago": "c:IdDoc/c:FmaPago",
    "fch_venc": "c:IdDoc/c:FchVenc",
    "tipo_traslado": "c:IdDoc/c:TipoTraslado",
    "tpo_moneda": "c:Totales/c:TpoMoneda",
    "tipo_doc_recep": "c:Receptor/c:TipoDocRecep",
    "cod_pais_recep": "c:Receptor/c:CodPaisRecep",
    "rzn_soc_recep": "c:Receptor/c:RznSocRecep",
    "dir_recep": "c:Receptor/c:DirRecep",
    "ciudad_recep": "c:Receptor/c:CiudadRecep",
    "depto_recep": "c:Receptor/c:DeptoRecep",
}
_LINE = {"ind_fact": "c:IndFact", "nom_item": "c:NomItem", "uni_med": "c:UniMed"}
_LINE_NUMBERS = {"cantidad": "c:Cantidad", "precio_unitario": "c:PrecioUnitario", "descuento": "c:DescuentoMonto"}
_REFERENCE = {
    "ref_tipo": "c:TpoDocRef",
    "ref_serie": "c:Serie",
    "ref_nro": "c:NroCFERef",
    "ref_razon": "c:RazonRef",
    "ref_fecha": "c:FechaCFEref",
}


_DAYS = ("fch_venc", "ref_fecha")


def form_number(text: str | None) -> str:
    """'1500.000000' -> '1500', '350.250000' -> '350,25' (the form's reading: a lone comma is decimal)."""
    try:
        value = Decimal((text or "").strip())
    except InvalidOperation:
        return ""
    return format(value.normalize(), "f").replace(".", ",")


def _text(node: etree._Element, path: str) -> str:
    return (node.findtext(path, namespaces=NS) or "").strip()


def correction_formdata(xml: bytes, receipt_id: str, today: date) -> MultiDict:
    """The issuing form's data for a corrected re-issue of the receipt whose signed XML is `xml`, dated
    `today`, with a fresh idempotency key (a new receipt, not a retry of the rejected one)."""
    cfe = etree.fromstring(xml, _PARSER)
    document = next(iter(cfe.iterchildren(etree.Element)), None)
    header = document.find("c:Encabezado", NS) if document is not None else None
    if header is None:
        raise ValueError("not a CFE")
    data = MultiDict({"corrige": receipt_id, "idempotency_key": uuid.uuid4().hex, "fch_emis": form_day(today)})
    for name, path in _HEADER.items():
        if value := _text(header, path):
            data[name] = value
    if _text(header, "c:IdDoc/c:MntBruto") == "1":
        data["mnt_bruto"] = "y"
    if rate := _text(header, "c:Totales/c:TpoCambio"):
        data["tpo_cambio"] = form_number(rate)
    data["doc_recep"] = _text(header, "c:Receptor/c:DocRecep") or _text(header, "c:Receptor/c:DocRecepExt")
    for row, item in enumerate(document.iterfind("c:Detalle/c:Item", NS)):
        for name, path in _LINE.items():
            value = _text(item, path)
            data[f"lines-{row}-{name}"] = "" if name == "uni_med" and value == NO_UNIT else value
        for name, path in _LINE_NUMBERS.items():
            data[f"lines-{row}-{name}"] = form_number(_text(item, path)) if _text(item, path) else ""
    reference = document.find("c:Referencia/c:Referencia", NS)
    if reference is not None:
        for name, path in _REFERENCE.items():
            data[name] = _text(reference, path)
    for name in _DAYS:
        if data.get(name):  # ISO in the XML, dd/mm/aaaa in the form
            data[name] = form_day(date.fromisoformat(data[name]))
    return data
