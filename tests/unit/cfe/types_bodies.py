"""Realistic requests of the export types (121-124), shared by their audit tests and benchmarks."""

from __future__ import annotations

from portal.service.cfe.model import CfeInput
from tests.unit.cfe.conftest import REALISTIC

# The receivers of the OpenAPI examples (CfeInput's), so that what the documentation shows is what is tested.
_EXAMPLES = {example["tipoCFE"]: example for example in CfeInput.model_config["json_schema_extra"]["examples"]}
FOREIGN_BUYER = _EXAMPLES[121]["receptor"]
BRAZILIAN_IMPORTER = _EXAMPLES[124]["receptor"]

EXPORT = {
    # Services (software) to the United States, one line, in dollars.
    "121-services": {
        "tipoCFE": 121,
        "fchEmis": "2024-05-11",
        "fmaPago": 2,
        "fchVenc": "2024-06-10",
        "tpoMoneda": "USD",
        "tpoCambio": "39.250",
        "clauVenta": "N/A",
        "modVenta": 90,
        "viaTransp": 8,
        "receptor": FOREIGN_BUYER,
        "items": [
            {
                "indFact": 10,
                "nomItem": "Desarrollo de software",
                "cantidad": "120",
                "uniMed": "h",
                "precioUnitario": "45",
            }
        ],
    },
    # Goods to Brazil by road, several lines, in euros: a discount, a free sample, a non-billable deposit.
    "121-goods": {
        "tipoCFE": 121,
        "fchEmis": "2024-05-11",
        "fmaPago": 1,
        "tpoMoneda": "EUR",
        "tpoCambio": "42.375",
        "clauVenta": "FOB",
        "modVenta": 1,
        "viaTransp": 3,
        "receptor": BRAZILIAN_IMPORTER,
        "items": [
            {
                "indFact": 10,
                "nomItem": "Lana lavada",
                "cantidad": "2000",
                "uniMed": "kg",
                "precioUnitario": "6.105",
                "descuentoPct": "2",
                "descuentoMonto": "244.20",
                "codItem": [{"tpoCod": "INT1", "cod": "LANA-21"}],
            },
            {
                "indFact": 10,
                "nomItem": "Cuero vacuno",
                "cantidad": "35.5",
                "uniMed": "m2",
                "precioUnitario": "18.333333",
            },
            {"indFact": 5, "nomItem": "Muestra sin cargo", "cantidad": "1", "precioUnitario": "0"},
            {"indFact": 6, "nomItem": "Depósito por pallets", "cantidad": "4", "precioUnitario": "25"},
        ],
        "dscRcgGlobal": [{"tpoMovDR": "D", "tpoDR": 1, "glosaDR": "Bonificación", "valorDR": "100", "indFactDR": 10}],
        "mediosPago": [{"glosaMP": "Carta de crédito", "valorPago": "12500.00"}],
    },
    # Services billed in pesos to an Argentine client.
    "121-pesos": {
        "tipoCFE": 121,
        "fchEmis": "2024-05-11",
        "fmaPago": 1,
        "clauVenta": "N/A",
        "modVenta": 90,
        "viaTransp": 8,
        "receptor": {
            "tipoDocRecep": 6,
            "codPaisRecep": "AR",
            "docRecep": "30123456",
            "rznSocRecep": "Estudio Rivas",
            "dirRecep": "Av. Corrientes 1234",
            "paisRecep": "Argentina",
        },
        "items": [
            {"indFact": 10, "nomItem": "Asesoramiento contable", "cantidad": "1", "precioUnitario": "25000"},
            {"indFact": 10, "nomItem": "Traducción", "cantidad": "12", "uniMed": "pág", "precioUnitario": "850.5"},
        ],
    },
    "122": {
        "tipoCFE": 122,
        "fchEmis": "2024-05-20",
        "fmaPago": 2,
        "tpoMoneda": "USD",
        "tpoCambio": "39.300",
        "clauVenta": "N/A",
        "viaTransp": 8,
        "receptor": FOREIGN_BUYER,
        "items": [
            {"indFact": 10, "nomItem": "Horas no prestadas", "cantidad": "10", "uniMed": "h", "precioUnitario": "45"}
        ],
        "referencias": [
            {
                "tpoDocRef": 121,
                "serie": "A",
                "nroCFERef": 1,
                "razonRef": "Horas no prestadas",
                "fechaCFEref": "2024-05-11",
            }
        ],
    },
    "123": {
        "tipoCFE": 123,
        "fchEmis": "2024-05-20",
        "fmaPago": 1,
        "tpoMoneda": "EUR",
        "tpoCambio": "42.400",
        "clauVenta": "FOB",
        "viaTransp": 3,
        "receptor": BRAZILIAN_IMPORTER,
        "items": [{"indFact": 10, "nomItem": "Diferencia de precio", "cantidad": "1", "precioUnitario": "150.75"}],
        "referencias": [{"tpoDocRef": 121, "serie": "A", "nroCFERef": 2, "fechaCFEref": "2024-05-11"}],
    },
    "124": {
        "tipoCFE": 124,
        "fchEmis": "2024-05-11",
        "tipoTraslado": 1,
        "tpoMoneda": "USD",
        "tpoCambio": "39.250",
        "clauVenta": "CIF",
        "modVenta": 1,
        "viaTransp": 1,
        "receptor": BRAZILIAN_IMPORTER,
        "items": [
            {"nomItem": "Lana lavada", "cantidad": "2000", "uniMed": "kg", "precioUnitario": "6.10"},
            {"nomItem": "Cuero vacuno", "cantidad": "35.5", "uniMed": "m2", "precioUnitario": "18.333333"},
            {"indFact": 5, "nomItem": "Muestra", "cantidad": "1", "uniMed": "u", "precioUnitario": "0"},
        ],
    },
}

SELLER = _EXAMPLES[151]["receptor"]
SELLER_RUT = {
    "tipoDocRecep": 2,
    "docRecep": "214844360018",
    "rznSocRecep": "Granja La Esperanza",
    "dirRecep": "Camino Maldonado km 22",
    "ciudadRecep": "Canelones",
}

BOLETA = {
    # Cattle from an IMEBA taxpayer, IMEBA included in the price (MntBruto 2), one line.
    "151-imeba": {
        "tipoCFE": 151,
        "fchEmis": "2024-05-11",
        "fmaPago": 2,
        "fchVenc": "2024-06-10",
        "mntBruto": 2,
        "receptor": SELLER,
        "items": [
            {
                "indFact": 15,
                "nomItem": "Novillos gordos",
                "cantidad": "12",
                "uniMed": "cab",
                "precioUnitario": "1850.50",
            }
        ],
    },
    # Several purchases from a non-taxpayer and an IVA mínimo seller, in dollars, with a global discount.
    "151-several": {
        "tipoCFE": 151,
        "fchEmis": "2024-05-11",
        "fmaPago": 1,
        "tpoMoneda": "USD",
        "tpoCambio": "39.250",
        "receptor": SELLER_RUT,
        "items": [
            {"indFact": 13, "nomItem": "Leña", "cantidad": "3.5", "uniMed": "t", "precioUnitario": "120"},
            {"indFact": 14, "nomItem": "Huevos", "cantidad": "60", "uniMed": "doc", "precioUnitario": "2.333333"},
            {
                "indFact": 12,
                "nomItem": "Trigo (IVA en suspenso)",
                "cantidad": "10",
                "uniMed": "t",
                "precioUnitario": "230",
            },
            {"indFact": 6, "nomItem": "Flete pagado por cuenta del vendedor", "cantidad": "1", "precioUnitario": "35"},
        ],
        "dscRcgGlobal": [{"tpoMovDR": "D", "tpoDR": 1, "glosaDR": "Merma", "valorDR": "20", "indFactDR": 13}],
        "mediosPago": [{"glosaMP": "Transferencia", "valorPago": "2875.00"}],
    },
    "152": {
        "tipoCFE": 152,
        "fchEmis": "2024-05-20",
        "fmaPago": 1,
        "mntBruto": 2,
        "receptor": SELLER,
        "items": [
            {
                "indFact": 15,
                "nomItem": "Novillo devuelto",
                "cantidad": "1",
                "uniMed": "cab",
                "precioUnitario": "1850.50",
            }
        ],
        "referencias": [
            {
                "tpoDocRef": 151,
                "serie": "A",
                "nroCFERef": 1,
                "razonRef": "Animal rechazado",
                "fechaCFEref": "2024-05-11",
            }
        ],
    },
    "153": {
        "tipoCFE": 153,
        "fchEmis": "2024-05-20",
        "fmaPago": 1,
        "receptor": SELLER_RUT,
        "items": [{"indFact": 13, "nomItem": "Diferencia de peso", "cantidad": "1", "precioUnitario": "75"}],
        "referencias": [{"tpoDocRef": 151, "serie": "A", "nroCFERef": 2}],
    },
}

PRINCIPAL = {"tipoDocMdte": 2, "pais": "UY", "docMdte": "21-900009-001-1", "nombreMdte": "DGI PRUEBA"}
EFACTURA_BUYER = {**REALISTIC[111]["receptor"]}  # DGI as buyer, as the other types' tests have it

CUENTA_AJENA = {
    # DGI's sample 141 (Sob_219999830019_fac-Cta_Ajena-no-enc.xml): its lines and principal, with the amounts
    # DGI's formulas give for them (the sample's own totals put the taxed lines in MntNoGrv).
    "141-dgi-sample": {
        "tipoCFE": 141,
        "fchEmis": "2024-05-11",
        "fmaPago": 1,
        "receptor": EFACTURA_BUYER,
        "items": [
            {"indFact": 3, "nomItem": "MASAS", "cantidad": "20", "uniMed": "KG", "precioUnitario": "230"},
            {"indFact": 3, "nomItem": "MANTEL", "cantidad": "15", "uniMed": "Un", "precioUnitario": "12"},
            {"indFact": 1, "nomItem": "VASOS", "cantidad": "20", "uniMed": "Un", "precioUnitario": "25"},
        ],
        "complFiscal": PRINCIPAL,
    },
    # A consignee's e-Ticket in pesos, prices with IVA, for a principal abroad.
    "131": {
        "tipoCFE": 131,
        "fchEmis": "2024-05-11",
        "fmaPago": 1,
        "mntBruto": 1,
        "items": [
            {"indFact": 3, "nomItem": "Campera de cuero", "cantidad": "1", "precioUnitario": "4880"},
            {"indFact": 2, "nomItem": "Libro", "cantidad": "2", "precioUnitario": "550"},
        ],
        "complFiscal": {"tipoDocMdte": 7, "pais": "AR", "docMdte": "30-71234567-1", "nombreMdte": "Cueros del Sur SA"},
    },
    "132": {
        "tipoCFE": 132,
        "fchEmis": "2024-05-12",
        "fmaPago": 1,
        "mntBruto": 1,
        "items": [{"indFact": 2, "nomItem": "Libro devuelto", "cantidad": "1", "precioUnitario": "550"}],
        "referencias": [{"tpoDocRef": 131, "serie": "A", "nroCFERef": 1, "fechaCFEref": "2024-05-11"}],
        "complFiscal": {"tipoDocMdte": 7, "pais": "AR", "docMdte": "30-71234567-1", "nombreMdte": "Cueros del Sur SA"},
    },
    "133": {
        "tipoCFE": 133,
        "fchEmis": "2024-05-12",
        "fmaPago": 1,
        "items": [{"indFact": 3, "nomItem": "Envío", "cantidad": "1", "precioUnitario": "200"}],
        "referencias": [{"indGlobal": 1, "razonRef": "Envíos de mayo"}],
        "complFiscal": PRINCIPAL,
    },
    "142": {
        "tipoCFE": 142,
        "fchEmis": "2024-05-20",
        "fmaPago": 2,
        "tpoMoneda": "USD",
        "tpoCambio": "39.250",
        "receptor": EFACTURA_BUYER,
        "items": [{"indFact": 3, "nomItem": "Bonificación", "cantidad": "1", "precioUnitario": "12.5"}],
        "referencias": [{"tpoDocRef": 141, "serie": "A", "nroCFERef": 1, "razonRef": "Bonificación"}],
        "complFiscal": PRINCIPAL,
    },
    "143": {
        "tipoCFE": 143,
        "fchEmis": "2024-05-20",
        "fmaPago": 1,
        "receptor": EFACTURA_BUYER,
        "items": [
            {"indFact": 3, "nomItem": "Flete", "cantidad": "1", "precioUnitario": "300"},
            {"indFact": 2, "nomItem": "Seguro", "cantidad": "1", "precioUnitario": "120"},
        ],
        "referencias": [{"tpoDocRef": 141, "serie": "A", "nroCFERef": 1}],
        "complFiscal": PRINCIPAL,
    },
}


def amount(node, tag: str):
    """A Decimal of the signed XML (0 when the element is absent)."""
    from decimal import Decimal

    return Decimal(node.findtext(f"c:{tag}", default="0", namespaces={"c": "http://cfe.dgi.gub.uy"}))


def signed_valid_verified(body: dict, name: str, sign, xmlsec1_verify):
    """The audit's first steps for one request: no rule broken, signed, valid against CFEDGI.xsd and verified by
    xmlsec1. Returns (the SignedCfe, its <CFE> root, the type's element)."""
    from datetime import date

    from lxml import etree

    from portal.service.cfe import parse_cfe_input
    from portal.service.cfe.rules import validate
    from portal.service.cfe.rules_dgi import Emission
    from portal.service.cfe.schema import validate_cfe
    from tests.unit.cfe.conftest import UI_VALUE

    emission = Emission(signing_date=date(2024, 5, 11))
    assert validate(parse_cfe_input(body), ui_value=UI_VALUE, emission=emission).errors == []
    signed = sign(body)
    assert validate_cfe(signed.xml) == []
    ok, output = xmlsec1_verify(signed.xml, f"{name}.xml")
    assert ok, output
    root = etree.fromstring(signed.xml)
    return signed, root, root[0]


def changed(bodies: dict, name: str, **changes) -> dict:
    """A copy of bodies[name] with `changes` to its top-level fields (None drops the field)."""
    import copy

    body = copy.deepcopy(bodies[name])
    for key, value in changes.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return body
