"""What a printed receipt shows, read from the CFE XML itself (issue 11, item 5).

A signed receipt is printed from its stored, signed XML, so a reprint can never disagree with what was
signed, even after a rate, a rounding rule or a label changes: every amount, rate and name on the page is
the XML's own text. Only three things come from outside the XML: the adenda (never signed, stored with the
request), the issuer's print-only settings at issue time (resolution or "Fecha emisor", regime, exoneration
norm, IVA-al-día status, verification URL: the `Issuer` snapshot), and, for a signed receipt, the QR link
and security code stored with it (recomputed from the XML when absent).

A preview has no number yet: it is printed from the unsigned XML the engine would sign (built with a
placeholder number that the page never shows), so preview and receipt share one reading.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields, is_dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from lxml import etree

from portal.domain.cfe_types import cfe_type, electronic_type
from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe.amounts import compute_totals
from portal.service.cfe.emission import Issuer, Numbering
from portal.service.cfe.model import CfeInput
from portal.service.cfe.qr import qr_url
from portal.service.cfe.xml import build_cfe_xml
from portal.service.cfe.xmlsafe import parse_untrusted

_NS = {"c": "http://cfe.dgi.gub.uy", "ds": "http://www.w3.org/2000/09/xmldsig#"}
# CAEEspecial (G-C5) -> the issuer's regime, for snapshots taken before the regime was a setting.
_CAE_ESPECIAL_REGIMEN = {1: "exonerado", 2: "iva_minimo", 3: "monotributo", 4: "monotributo_mides"}
SPECIAL_REGIMES = ("iva_minimo", "monotributo", "monotributo_mides")


@dataclass(frozen=True)
class Party:
    """The issuer as signed (Emisor, A-C40 to A-C50)."""

    rut: str
    razon_social: str
    nombre_comercial: str | None
    giro: str | None
    telefono: str | None
    correo: str | None
    sucursal: str | None
    domicilio: str
    ciudad: str
    departamento: str


@dataclass(frozen=True)
class Receiver:
    tipo_doc: int | None
    pais: str | None
    doc: str | None
    nombre: str | None
    direccion: str | None
    ciudad: str | None
    depto: str | None
    pais_nombre: str | None
    compra_id: str | None


@dataclass(frozen=True)
class Retention:
    code: str
    rate: Decimal | None
    base: Decimal | None
    value: Decimal


@dataclass(frozen=True)
class Line:
    number: int
    ind_fact: int | None
    name: str
    description: str | None
    codes: tuple[str, ...]
    quantity: Decimal | None
    unit: str | None
    unit_price: Decimal | None
    discount: Decimal | None
    surcharge: Decimal | None
    amount: Decimal | None
    retentions: tuple[Retention, ...]


@dataclass(frozen=True)
class Adjustment:
    """A global discount (D) or surcharge (R), zona D."""

    kind: str
    glosa: str
    value: Decimal
    ind_fact: int | None


@dataclass(frozen=True)
class Reference:
    ind_global: bool
    tipo: int | None
    serie: str | None
    nro: int | None
    razon: str | None
    fecha: date | None


@dataclass(frozen=True)
class Cae:
    cae_id: int
    dnro: int
    hnro: int
    fec_venc: date
    especial: int | None


@dataclass(frozen=True)
class Printable:
    """Everything a printed receipt shows. `serie`, `nro`, `cae`, `security_code` and `qr_url` are None in
    a preview."""

    tipo_cfe: int
    serie: str | None
    nro: int | None
    fch_emis: date
    fma_pago: int | None
    fch_venc: date | None
    mnt_bruto: int | None
    tpo_moneda: str | None
    tpo_cambio: Decimal | None
    info_adicional: str | None
    tipo_traslado: int | None
    fch_valor: date | None
    iva_al_dia_code: int | None  # A-C17: present only when the issuer is NOT up to date with IVA
    pagos_terceros: bool  # A-C19 IndPagCta3ros
    cobranza: bool  # A-C20 IndCobPropia
    bienes_terceros: tuple[str, str] | None  # A-C6.1 IndPropiedad: (owner's name, owner's document)
    emisor: Party
    receiver: Receiver | None
    totals: dict[str, Decimal]  # Totales by DGI tag (MntTotal, MntPagar, IVATasaBasica, ...)
    retentions_total: tuple[tuple[str, Decimal], ...]
    cant_lin_det: int
    lines: tuple[Line, ...]
    adjustments: tuple[Adjustment, ...]
    payments: tuple[tuple[str, Decimal], ...]
    references: tuple[Reference, ...]
    cae: Cae | None
    settings: Issuer
    adenda: str | None = None
    security_code: str | None = None
    qr_url: str | None = None
    preview: bool = False
    export_terms: tuple[int | str | None, ...] = ()  # (ClauVenta, ModVenta, ViaTransp) of an export, A-C13..15
    mandante: tuple[str, int, str, str] | None = None  # zona K: (name, document type, document, country)
    bilingual: bool = False  # labels in Spanish and English (pdf_text.bi); DGI's legends stay in Spanish

    @property
    def element(self) -> str:
        return cfe_type(self.electronic_type).element

    @property
    def electronic_type(self) -> int:
        """The 1xx type: a paper contingency receipt keyed in (CFC, 2xx = 1xx + 100) prints as its 1xx type does."""
        return electronic_type(self.tipo_cfe)

    @property
    def name(self) -> str:
        name = cfe_type(self.electronic_type).name_es
        return f"{name} de contingencia" if self.electronic_type != self.tipo_cfe else name

    @property
    def regimen(self) -> str:
        """The issuer's regime: its settings at issue time, or what the CAE says for older snapshots."""
        if self.settings.regimen != "general":
            return self.settings.regimen
        if self.cae is None or self.cae.especial is None:
            return "general"
        return _CAE_ESPECIAL_REGIMEN.get(self.cae.especial, "general")

    @property
    def mentions_iva(self) -> bool:
        """IVA mínimo issuers (and Monotributo, whose sales are IndFact 16 too) print no mention of IVA;
        MntBruto 3 (A-C10) says the same from the XML."""
        return self.regimen not in SPECIAL_REGIMES and self.mnt_bruto != 3


def from_input(cfe: CfeInput, settings: Issuer) -> Printable:
    """A preview: the unsigned XML the engine would sign for `cfe`, numbered with a placeholder the page
    never shows (no serie, number, CAE or QR)."""
    placeholder = Numbering(serie="A", nro=1, cae_id=1, dnro=1, hnro=1, fec_venc=cfe.fch_emis)
    root = build_cfe_xml(cfe, settings, placeholder, compute_totals(cfe), datetime.now(MONTEVIDEO))
    return from_xml(root, settings, adenda=cfe.adenda, preview=True)


def from_xml(
    xml: bytes | etree._Element,
    settings: Issuer,
    *,
    adenda: str | None = None,
    security_code: str | None = None,
    qr_link: str | None = None,
    preview: bool = False,
) -> Printable:
    """The printable view of a CFE XML (signed, or the unsigned XML of a preview), read section by section."""
    root = xml if isinstance(xml, etree._Element) else parse_untrusted(xml).getroot()
    doc = root[0] if root.tag.endswith("}CFE") else root
    printable = Printable(
        **_id_doc(_section(doc, "c:Encabezado/c:IdDoc"), preview),
        **_totales(_section(doc, "c:Encabezado/c:Totales")),
        emisor=_emisor(_section(doc, "c:Encabezado/c:Emisor")),
        receiver=_receiver(doc.find("c:Encabezado/c:Receptor", _NS)),
        lines=tuple(_line(item) for item in doc.findall("c:Detalle/c:Item", _NS)),
        adjustments=_adjustments(doc),
        payments=_payments(doc),
        references=_references(doc),
        cae=None if preview else _cae(doc.find("c:CAEData", _NS)),
        settings=settings,
        adenda=adenda,
        preview=preview,
        mandante=_mandante(doc.find("c:Compl_Fiscal/c:Compl_Fiscal_Data", _NS)),
    )
    if preview:
        return printable
    digest = root.findtext(".//ds:SignedInfo/ds:Reference/ds:DigestValue", namespaces=_NS)
    if security_code and qr_link:
        return replace(printable, security_code=security_code, qr_url=qr_link)
    if not digest:
        raise ValueError("Un comprobante firmado necesita su firma (DigestValue) para el QR.")
    return replace(
        printable, security_code=security_code or digest[:6], qr_url=qr_link or _qr_link(printable, doc, digest)
    )


def _id_doc(id_doc: etree._Element, preview: bool) -> dict[str, Any]:
    """Zona A's IdDoc: type, number (none on a preview), dates, terms, indicators, third-party goods."""
    owner = None
    if _int(id_doc, "IndPropiedad") == 1:
        owner = (_text(id_doc, "RznSocProp") or "", _text(id_doc, "DocProp") or _text(id_doc, "DocPropExt") or "")
    return {
        "export_terms": (_text(id_doc, "ClauVenta"), _int(id_doc, "ModVenta"), _int(id_doc, "ViaTransp")),
        "tipo_cfe": _required_int(id_doc, "TipoCFE"),
        "serie": None if preview else _text(id_doc, "Serie"),
        "nro": None if preview else _int(id_doc, "Nro"),
        "fch_emis": _date(id_doc, "FchEmis"),
        "fma_pago": _int(id_doc, "FmaPago"),
        "fch_venc": _date(id_doc, "FchVenc"),
        "mnt_bruto": _int(id_doc, "MntBruto"),
        "info_adicional": _text(id_doc, "InfoAdicionalDoc"),
        "tipo_traslado": _int(id_doc, "TipoTraslado"),
        "fch_valor": _date(id_doc, "FchValor"),
        "iva_al_dia_code": _int(id_doc, "IVAalDia"),
        "pagos_terceros": _int(id_doc, "IndPagCta3ros") == 1,
        "cobranza": _int(id_doc, "IndCobPropia") == 1,
        "bienes_terceros": owner,
    }


def _emisor(emisor: etree._Element) -> Party:
    """Zona A's Emisor, as signed."""
    return Party(
        rut=_required(emisor, "RUCEmisor"),
        razon_social=_required(emisor, "RznSoc"),
        nombre_comercial=_text(emisor, "NomComercial"),
        giro=_text(emisor, "GiroEmis"),
        telefono=_text(emisor, "Telefono"),
        correo=_text(emisor, "CorreoEmisor"),
        sucursal=_text(emisor, "EmiSucursal"),
        domicilio=_required(emisor, "DomFiscal"),
        ciudad=_required(emisor, "Ciudad"),
        departamento=_required(emisor, "Departamento"),
    )


def _totales(totales: etree._Element) -> dict[str, Any]:
    """Zona C: currency and rate, every amount by its tag, the retentions' totals, the line count."""
    return {
        "tpo_moneda": _text(totales, "TpoMoneda"),
        "tpo_cambio": _dec(totales, "TpoCambio"),
        "totals": {
            _local(child): Decimal(child.text or "0")
            for child in totales
            if _local(child) not in ("TpoMoneda", "TpoCambio", "CantLinDet", "RetencPercep")
        },
        "retentions_total": tuple(
            (_text(group, "CodRet"), _dec(group, "ValRetPerc")) for group in totales.findall("c:RetencPercep", _NS)
        ),
        "cant_lin_det": _int(totales, "CantLinDet") or 0,
    }


def _adjustments(doc: etree._Element) -> tuple[Adjustment, ...]:
    """Zona D: global discounts and surcharges."""
    return tuple(
        Adjustment(
            kind=_required(dr, "TpoMovDR"),
            glosa=_text(dr, "GlosaDR") or "",
            value=_required_dec(dr, "ValorDR"),
            ind_fact=_int(dr, "IndFactDR"),
        )
        for dr in doc.findall("c:DscRcgGlobal/c:DRG_Item", _NS)
    )


def _payments(doc: etree._Element) -> tuple[tuple[str, Decimal], ...]:
    """Zona E: the means of payment."""
    return tuple(
        (_text(mp, "GlosaMP") or "", _required_dec(mp, "ValorPago"))
        for mp in doc.findall("c:MediosPago/c:MedioPago", _NS)
    )


def _references(doc: etree._Element) -> tuple[Reference, ...]:
    """Zona F: the receipts a note refers to."""
    return tuple(
        Reference(
            ind_global=_int(ref, "IndGlobal") == 1,
            tipo=_int(ref, "TpoDocRef"),
            serie=_text(ref, "Serie"),
            nro=_int(ref, "NroCFERef"),
            razon=_text(ref, "RazonRef"),
            fecha=_date(ref, "FechaCFEref"),
        )
        for ref in doc.findall("c:Referencia/c:Referencia", _NS)
    )


def _qr_link(doc: Printable, node: etree._Element, digest: str) -> str:
    """DGI's link, as `build_signed_cfe` makes it, from the XML alone (for records stored without it)."""
    amount = {
        "eRem": Decimal(0),
        "eResg": doc.totals.get("MntTotRetenido", Decimal(0)),
        "eRem_Exp": doc.totals.get("MntTotal", Decimal(0)),
    }.get(doc.element, doc.totals.get("MntPagar", Decimal(0)))
    if doc.serie is None or doc.nro is None:
        raise ValueError("Un comprobante firmado tiene serie y número.")
    return qr_url(doc.emisor.rut, doc.tipo_cfe, doc.serie, doc.nro, amount, doc.fch_emis, digest)


def _mandante(node: etree._Element | None) -> tuple[str, int, str, str] | None:
    if node is None:
        return None
    return (
        _text(node, "NombreMdte") or "",
        _int(node, "TipoDocMdte") or 0,
        _text(node, "DocMdte") or "",
        _text(node, "Pais") or "",
    )


def _local(node: etree._Element) -> str:
    return etree.QName(node).localname


def _text(node: etree._Element | None, tag: str) -> str | None:
    if node is None:
        return None
    found = node.find(f"c:{tag}", _NS)
    return found.text if found is not None else None


def _section(doc: etree._Element, path: str) -> etree._Element:
    """A section every CFE has (the XSD requires it): missing, the document is not a CFE."""
    found = doc.find(path, _NS)
    if found is None:
        raise ValueError(f"El CFE no tiene {path.replace('c:', '')}.")
    return found


def _required(node: etree._Element, tag: str) -> str:
    """An element the XSD requires in its section."""
    value = _text(node, tag)
    if value is None:
        raise ValueError(f"El CFE no tiene {_local(node)}/{tag}.")
    return value


def _required_int(node: etree._Element, tag: str) -> int:
    return int(_required(node, tag))


def _required_dec(node: etree._Element, tag: str) -> Decimal:
    return Decimal(_required(node, tag))


def _required_date(node: etree._Element, tag: str) -> date:
    return date.fromisoformat(_required(node, tag)[:10])


def _int(node: etree._Element | None, tag: str) -> int | None:
    value = _text(node, tag)
    return int(value) if value not in (None, "") else None


def _dec(node: etree._Element | None, tag: str) -> Decimal | None:
    value = _text(node, tag)
    return Decimal(value) if value not in (None, "") else None


def _date(node: etree._Element | None, tag: str) -> date | None:
    value = _text(node, tag)
    return date.fromisoformat(value[:10]) if value else None


def _receiver(node: etree._Element | None) -> Receiver | None:
    if node is None:
        return None
    return Receiver(
        tipo_doc=_int(node, "TipoDocRecep"),
        pais=_text(node, "CodPaisRecep"),
        doc=_text(node, "DocRecep") or _text(node, "DocRecepExt"),
        nombre=_text(node, "RznSocRecep"),
        direccion=_text(node, "DirRecep"),
        ciudad=_text(node, "CiudadRecep"),
        depto=_text(node, "DeptoRecep"),
        pais_nombre=_text(node, "PaisRecep"),
        compra_id=_text(node, "CompraID"),
    )


def _line(item: etree._Element) -> Line:
    return Line(
        number=_int(item, "NroLinDet") or 0,
        ind_fact=_int(item, "IndFact"),
        name=_text(item, "NomItem") or "",
        description=_text(item, "DscItem"),
        codes=tuple(f"{_text(code, 'TpoCod')} {_text(code, 'Cod')}" for code in item.findall("c:CodItem", _NS)),
        quantity=_dec(item, "Cantidad"),
        unit=_text(item, "UniMed"),
        unit_price=_dec(item, "PrecioUnitario"),
        discount=_dec(item, "DescuentoMonto"),
        surcharge=_dec(item, "RecargoMnt"),
        amount=_dec(item, "MontoItem"),
        retentions=tuple(
            Retention(
                code=_required(ret, "CodRet"),
                rate=_dec(ret, "Tasa"),
                base=_dec(ret, "MntSujetoaRet"),
                value=_required_dec(ret, "ValRetPerc"),
            )
            for ret in item.findall("c:RetencPercep", _NS)
        ),
    )


def _cae(node: etree._Element | None) -> Cae | None:
    if node is None:
        return None
    return Cae(
        cae_id=_required_int(node, "CAE_ID"),
        dnro=_required_int(node, "DNro"),
        hnro=_required_int(node, "HNro"),
        fec_venc=_required_date(node, "FecVenc"),
        especial=_int(node, "CAEEspecial"),
    )


def texts(value: object) -> Iterator[str]:
    """Every text a Printable (or any part of one) holds, for the font that must draw them (fonts.for_texts)."""
    if isinstance(value, str):
        yield value
    elif is_dataclass(value) and not isinstance(value, type):
        for field in fields(value):
            yield from texts(getattr(value, field.name))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from texts(item)
