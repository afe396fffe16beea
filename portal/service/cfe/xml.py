"""The unsigned CFE XML of CFEDGI.xsd 1.44.2, element by element in the XSD's sequence order.

Decimals are written with exactly the fraction digits the XSD allows (amounts 2, quantities 3, unit prices
6, rates and percentages 3) and never in exponent notation. The tree is compact (no indentation): whatever
whitespace is inside <CFE> is signed, so it is better to have none.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal

from lxml import etree

from portal.domain.cfe_types import cfe_type
from portal.domain.identifiers import URUGUAYAN_DOC_TYPES
from portal.domain.uruguay_time import montevideo_time
from portal.service.cfe.amounts import Totals
from portal.service.cfe.codes import CREDITO_FISCAL_PREFIX
from portal.service.cfe.emission import Issuer, Numbering
from portal.service.cfe.model import CfeInput, Item, Receptor

CFE_NS = "http://cfe.dgi.gub.uy"
_Q = f"{{{CFE_NS}}}"

__all__ = ["CFE_NS", "build_cfe_xml", "format_decimal", "format_timestamp"]

# The elements whose receipts carry payment terms, global discounts and payment methods.
_INVOICE_ELEMENTS = ("eTck", "eFact", "eFact_Exp", "eBoleta")
# The IdDoc that has IVAalDia (A-C17): not the e-Boleta de entrada's (the buyer issues it).
_IVA_AL_DIA_ELEMENTS = ("eTck", "eFact", "eFact_Exp")
_EXPORT_ELEMENTS = ("eFact_Exp", "eRem_Exp")


def format_decimal(value: Decimal | int, places: int) -> str:
    """Fixed-point text with exactly `places` decimals: 168816 -> '168816.00', never '1.6E+5'."""
    quantized = Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return format(quantized.copy_abs() if quantized.is_zero() else quantized, "f")


def format_timestamp(moment: datetime) -> str:
    """xs:dateTime on Uruguay's clock with its offset, as TmstFirma wants it; a naive time is Montevideo's."""
    return montevideo_time(moment).replace(microsecond=0).isoformat()


def _sub(parent: etree._Element, tag: str, value: object = None) -> etree._Element:
    node = etree.SubElement(parent, _Q + tag)
    if value is not None:
        node.text = value.isoformat() if isinstance(value, date) else str(value)
    return node


def _opt(parent: etree._Element, tag: str, value: object) -> None:
    if value not in (None, ""):
        _sub(parent, tag, value)


def _money(value: Decimal) -> str:
    return format_decimal(value, 2)


def build_cfe_xml(
    cfe: CfeInput, issuer: Issuer, numbering: Numbering, totals: Totals, tmst_firma: datetime
) -> etree._Element:
    """The <CFE version="1.0"> element, ready to be signed; `tmst_firma` becomes TmstFirma."""
    element = cfe_type(cfe.tipo_cfe).element
    # None is lxml's default namespace; lxml-stubs type nsmap's keys as str
    root = etree.Element(_Q + "CFE", nsmap={None: CFE_NS}, version="1.0")  # type: ignore[dict-item]
    doc = _sub(root, element)
    _sub(doc, "TmstFirma", format_timestamp(tmst_firma))
    header = _sub(doc, "Encabezado")
    _id_doc(_sub(header, "IdDoc"), cfe, issuer, numbering, element)
    _emisor(_sub(header, "Emisor"), issuer)
    if cfe.receptor is not None and cfe.receptor.model_dump(exclude_none=True):
        _receptor(_sub(header, "Receptor"), cfe.receptor, element)
    _totales(_sub(header, "Totales"), cfe, totals, element)
    detail = _sub(doc, "Detalle")
    for number, (item, amount) in enumerate(zip(cfe.items, totals.line_amounts, strict=True), start=1):
        _item(_sub(detail, "Item"), number, item, amount, element)
    if cfe.dsc_rcg_global and element in _INVOICE_ELEMENTS:
        _discounts(_sub(doc, "DscRcgGlobal"), cfe)
    if cfe.medios_pago and element in _INVOICE_ELEMENTS:
        _payments(_sub(doc, "MediosPago"), cfe)
    if cfe.referencias:
        _references(_sub(doc, "Referencia"), cfe)
    _cae(_sub(doc, "CAEData"), numbering)
    if cfe.compl_fiscal is not None and element in ("eTck", "eFact"):
        _compl_fiscal(_sub(doc, "Compl_Fiscal"), cfe, issuer)
    return root


def _compl_fiscal(node: etree._Element, cfe: CfeInput, issuer: Issuer) -> None:
    """Zona K in clear (Compl_Fiscal_Data): RUCEmisor is the issuer's own RUT, as in DGI's sample envelopes
    Sob_219999830019_fac-Cta_Ajena-*.xml; the principal is TipoDocMdte, Pais, DocMdte and NombreMdte."""
    data, part = _sub(node, "Compl_Fiscal_Data"), cfe.compl_fiscal
    assert part is not None  # written only for the cuenta ajena types, whose rules require it
    _sub(data, "RUCEmisor", issuer.rut)
    _sub(data, "TipoDocMdte", part.tipo_doc_mdte)
    _sub(data, "Pais", part.pais)
    _sub(data, "DocMdte", part.doc_mdte)
    _sub(data, "NombreMdte", part.nombre_mdte)


def _id_doc(node: etree._Element, cfe: CfeInput, issuer: Issuer, numbering: Numbering, element: str) -> None:
    _sub(node, "TipoCFE", cfe.tipo_cfe)
    _sub(node, "Serie", numbering.serie)
    _sub(node, "Nro", numbering.nro)
    _sub(node, "FchEmis", cfe.fch_emis)
    if element in ("eRem", "eRem_Exp"):
        _sub(node, "TipoTraslado", cfe.tipo_traslado)
    elif element == "eResg":
        _opt(node, "FchValor", cfe.fch_valor)
    else:
        _opt(node, "MntBruto", cfe.mnt_bruto)
        _sub(node, "FmaPago", cfe.fma_pago)
        _opt(node, "FchVenc", cfe.fch_venc)
    if element in _EXPORT_ELEMENTS:  # A-C13 to A-C15
        _opt(node, "ClauVenta", cfe.clau_venta)
        _opt(node, "ModVenta", cfe.mod_venta)
        _sub(node, "ViaTransp", cfe.via_transp)
    _opt(node, "InfoAdicionalDoc", cfe.info_adicional_doc)
    if element in _IVA_AL_DIA_ELEMENTS and _lacks_iva_al_dia(issuer, numbering):
        _sub(node, "IVAalDia", 1)  # 1: the issuer has no IVA-al-día certificate (A-C17)


def _lacks_iva_al_dia(issuer: Issuer, numbering: Numbering) -> bool:
    """A-C17 is written only when the issuer is not up to date with IVA, and never by Monotributo issuers
    (DGI: "Si G-C5=3 o 4, no puede existir A-C17")."""
    monotributo = numbering.cae_especial in (3, 4) or issuer.regimen in ("monotributo", "monotributo_mides")
    return not issuer.iva_al_dia and not monotributo


def _emisor(node: etree._Element, issuer: Issuer) -> None:
    _sub(node, "RUCEmisor", issuer.rut)
    _sub(node, "RznSoc", issuer.razon_social)
    _opt(node, "NomComercial", issuer.nombre_comercial)
    _opt(node, "GiroEmis", issuer.giro)
    _opt(node, "Telefono", issuer.telefono)
    _opt(node, "CorreoEmisor", issuer.correo)
    _opt(node, "EmiSucursal", issuer.sucursal)
    _sub(node, "CdgDGISucur", issuer.cdg_dgi_sucursal)
    _sub(node, "DomFiscal", issuer.domicilio_fiscal)
    _sub(node, "Ciudad", issuer.ciudad)
    _sub(node, "Departamento", issuer.departamento)


def _receptor(node: etree._Element, receptor: Receptor, element: str) -> None:
    doc_type = receptor.tipo_doc_recep
    country = receptor.cod_pais_recep
    if country is None and doc_type in URUGUAYAN_DOC_TYPES:
        country = "UY"
    _opt(node, "TipoDocRecep", doc_type)
    _opt(node, "CodPaisRecep", country)
    # Uruguayan documents (NIE, RUT, C.I.) travel in DocRecep; the others in DocRecepExt (A-C62, A-C62.1).
    _opt(node, "DocRecep" if doc_type in URUGUAYAN_DOC_TYPES else "DocRecepExt", receptor.doc_recep)
    _opt(node, "RznSocRecep", receptor.rzn_soc_recep)
    _opt(node, "DirRecep", receptor.dir_recep)
    _opt(node, "CiudadRecep", receptor.ciudad_recep)
    _opt(node, "DeptoRecep", receptor.depto_recep)
    _opt(node, "PaisRecep", receptor.pais_recep)
    _opt(node, "CP", receptor.cp)
    if element != "eResg":
        _opt(node, "CompraID", receptor.compra_id)


def _totales(node: etree._Element, cfe: CfeInput, totals: Totals, element: str) -> None:
    if element == "eRem":
        _sub(node, "CantLinDet", totals.cant_lin_det)
        return
    _sub(node, "TpoMoneda", cfe.tpo_moneda)
    if cfe.tpo_cambio is not None:
        _sub(node, "TpoCambio", format_decimal(cfe.tpo_cambio, 3))
    if element in _EXPORT_ELEMENTS:
        _export_totals(node, cfe, totals, element)
        return
    if element == "eResg":
        _sub(node, "MntTotRetenido", _money(totals.mnt_tot_retenido))
        if totals.mnt_tot_cred_fisc:
            _sub(node, "MntTotCredFisc", _money(totals.mnt_tot_cred_fisc))
        _sub(node, "CantLinDet", totals.cant_lin_det)
        _retentions_total(node, totals)
        return
    optional_nets = (
        ("MntNoGrv", totals.mnt_no_grv),
        ("MntExpoyAsim", totals.mnt_expo_y_asim),
        ("MntImpuestoPerc", totals.mnt_impuesto_perc),
        ("MntIVaenSusp", totals.mnt_iva_en_susp),
        ("MntNetoIvaTasaMin", totals.mnt_neto_iva_tasa_min),
        ("MntNetoIVATasaBasica", totals.mnt_neto_iva_tasa_basica),
        ("MntNetoIVAOtra", totals.mnt_neto_iva_otra),
    )
    for tag, value in optional_nets:
        if value:
            _sub(node, tag, _money(value))
    # DGI's samples always state both rates, even when one is unused; sales of IVA mínimo and Monotributo
    # taxpayers (MntBruto 3) carry no IVA breakdown at all.
    if cfe.mnt_bruto != 3 and element != "eBoleta":  # Totales_Boleta has no IVA rates
        _sub(node, "IVATasaMin", format_decimal(totals.iva_tasa_min, 3))
        _sub(node, "IVATasaBasica", format_decimal(totals.iva_tasa_basica, 3))
    # Each IVA appears exactly when its net does (A-C116 > 0 requires A-C121, and so on).
    for tag, net, tax in (
        ("MntIVATasaMin", totals.mnt_neto_iva_tasa_min, totals.mnt_iva_tasa_min),
        ("MntIVATasaBasica", totals.mnt_neto_iva_tasa_basica, totals.mnt_iva_tasa_basica),
        ("MntIVAOtra", totals.mnt_neto_iva_otra, totals.mnt_iva_otra),
    ):
        if net:
            _sub(node, tag, _money(tax))
    _sub(node, "MntTotal", _money(totals.mnt_total))
    if any(not code.startswith(CREDITO_FISCAL_PREFIX) for code, _ in totals.retenc_percep):
        _sub(node, "MntTotRetenido", _money(totals.mnt_tot_retenido))
    if totals.mnt_tot_cred_fisc and element != "eBoleta":
        _sub(node, "MntTotCredFisc", _money(totals.mnt_tot_cred_fisc))
    _sub(node, "CantLinDet", totals.cant_lin_det)
    _retentions_total(node, totals)
    if totals.monto_nf or any(item.ind_fact in (6, 7) for item in cfe.items):
        _sub(node, "MontoNF", _money(totals.monto_nf))
    _sub(node, "MntPagar", _money(totals.mnt_pagar))


def _export_totals(node: etree._Element, cfe: CfeInput, totals: Totals, element: str) -> None:
    """Totales_Fact_Exp and Totales_Rem_Exp: no IVA; MntExpoyAsim is always written (1..1)."""
    _sub(node, "MntExpoyAsim", _money(totals.mnt_expo_y_asim))
    _sub(node, "MntTotal", _money(totals.mnt_total))
    _sub(node, "CantLinDet", totals.cant_lin_det)
    if element == "eRem_Exp":
        return
    if totals.monto_nf or any(item.ind_fact in (6, 7) for item in cfe.items):
        _sub(node, "MontoNF", _money(totals.monto_nf))
    _sub(node, "MntPagar", _money(totals.mnt_pagar))


def _retentions_total(node: etree._Element, totals: Totals) -> None:
    for code, value in totals.retenc_percep:
        group = _sub(node, "RetencPercep")
        _sub(group, "CodRet", code)
        _sub(group, "ValRetPerc", _money(value))


def _item(node: etree._Element, number: int, item: Item, amount: Decimal, element: str) -> None:
    _sub(node, "NroLinDet", number)
    if element != "eResg":
        for code in item.cod_item:
            group = _sub(node, "CodItem")
            _sub(group, "TpoCod", code.tpo_cod)
            _sub(group, "Cod", code.cod)
    _opt(node, "IndFact", item.ind_fact)
    if element == "eResg":
        _item_retentions(node, item)
        return
    if element not in ("eRem", "eRem_Exp", "eFact_Exp"):
        _opt(node, "IndAgenteResp", item.ind_agente_resp)
    _sub(node, "NomItem", item.nom_item)
    _opt(node, "DscItem", item.dsc_item)
    assert item.cantidad is not None  # the rules require it on every line that is written
    _sub(node, "Cantidad", format_decimal(item.cantidad, 3))
    _sub(node, "UniMed", item.uni_med)
    if element == "eRem":
        return
    assert item.precio_unitario is not None  # required where a price is written
    _sub(node, "PrecioUnitario", format_decimal(item.precio_unitario, 6))
    if element == "eRem_Exp":
        _sub(node, "MontoItem", _money(amount))
        return
    for tag, value, places in (
        ("DescuentoPct", item.descuento_pct, 3),
        ("DescuentoMonto", item.descuento_monto, 2),
        ("RecargoPct", item.recargo_pct, 3),
        ("RecargoMnt", item.recargo_mnt, 2),
    ):
        if value is not None:
            _sub(node, tag, format_decimal(value, places))
    _item_retentions(node, item)
    _sub(node, "MontoItem", _money(amount))


def _item_retentions(node: etree._Element, item: Item) -> None:
    for ret in item.retenc_percep:
        group = _sub(node, "RetencPercep")
        _sub(group, "CodRet", ret.cod_ret)
        if ret.tasa is not None:
            _sub(group, "Tasa", format_decimal(ret.tasa, 3))
        if ret.mnt_sujetoa_ret is not None:
            _sub(group, "MntSujetoaRet", _money(ret.mnt_sujetoa_ret))
        _sub(group, "ValRetPerc", _money(ret.val_ret_perc))


def _discounts(node: etree._Element, cfe: CfeInput) -> None:
    for number, dr in enumerate(cfe.dsc_rcg_global, start=1):
        line = _sub(node, "DRG_Item")
        _sub(line, "NroLinDR", number)
        _sub(line, "TpoMovDR", dr.tpo_mov_dr)
        _sub(line, "TpoDR", dr.tpo_dr)
        _opt(line, "CodDR", dr.cod_dr)
        _sub(line, "GlosaDR", dr.glosa_dr)
        _sub(line, "ValorDR", _money(dr.valor_dr))
        _sub(line, "IndFactDR", dr.ind_fact_dr)


def _payments(node: etree._Element, cfe: CfeInput) -> None:
    for number, payment in enumerate(cfe.medios_pago, start=1):
        line = _sub(node, "MedioPago")
        _sub(line, "NroLinMP", number)
        _opt(line, "CodMP", payment.cod_mp)
        _sub(line, "GlosaMP", payment.glosa_mp)
        _sub(line, "ValorPago", _money(payment.valor_pago))


def _references(node: etree._Element, cfe: CfeInput) -> None:
    for number, ref in enumerate(cfe.referencias, start=1):
        line = _sub(node, "Referencia")
        _sub(line, "NroLinRef", number)
        _opt(line, "IndGlobal", ref.ind_global)
        _opt(line, "TpoDocRef", ref.tpo_doc_ref)
        _opt(line, "Serie", ref.serie)
        _opt(line, "NroCFERef", ref.nro_cfe_ref)
        _opt(line, "RazonRef", ref.razon_ref)
        _opt(line, "FechaCFEref", ref.fecha_cfe_ref)
        _opt(line, "MntCFEref", None if ref.mnt_cfe_ref is None else _money(ref.mnt_cfe_ref))
        _opt(line, "TpoMonedaRef", ref.tpo_moneda_ref)
        _opt(line, "TpoCambioRef", None if ref.tpo_cambio_ref is None else format_decimal(ref.tpo_cambio_ref, 3))


def _cae(node: etree._Element, numbering: Numbering) -> None:
    _sub(node, "CAE_ID", numbering.cae_id)
    _sub(node, "DNro", numbering.dnro)
    _sub(node, "HNro", numbering.hnro)
    _sub(node, "FecVenc", numbering.fec_venc)
    _opt(node, "CAEEspecial", numbering.cae_especial)
    _opt(node, "CausalCAEEsp", numbering.causal_cae_esp)
