"""The JSON body of "issue a CFE": pydantic v2 models whose names mirror DGI's elements in lower camel case.

Only the shape lives here (types, lengths, digits); rules that depend on the CFE type are in rules.py.
Export types (121-124: clauVenta, modVenta, viaTransp) and cuenta ajena (131-143: a `complFiscal` part) are
meant to arrive as new optional fields plus new codes in `SupportedCfeType`; nothing here assumes the set
of types is closed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator
from pydantic.json_schema import JsonDict

from portal.domain.identifiers import URUGUAYAN_DOC_TYPES
from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.errors import CfeValidationError, FieldError
from portal.service.cfe.model_parts import (
    CodItem,
    ComplFiscal,
    Contingencia,
    Day,
    DscRcgGlobal,
    Item,
    MedioPago,
    MontoPositivo,
    Receptor,
    Referencia,
    RetencPercep,
    json_title,
)
from portal.service.cfe.xmlchars import PrintedText
from portal.service.platform import pydantic_errors

__all__ = [
    "CfeInput",
    "CodItem",
    "ComplFiscal",
    "DscRcgGlobal",
    "Item",
    "MedioPago",
    "Receptor",
    "Referencia",
    "RetencPercep",
    "SupportedCfeType",
    "parse_cfe_input",
]

SupportedCfeType = Literal[
    101,
    102,
    103,
    111,
    112,
    113,
    121,
    122,
    123,
    124,
    131,
    132,
    133,
    141,
    142,
    143,
    151,
    152,
    153,
    181,
    182,
    # The paper contingency receipts keyed in (CFC): every 1xx above + 100 (portal.domain.cfe_types.CFC_TYPES,
    # which a test holds this list to).
    201,
    202,
    203,
    211,
    212,
    213,
    221,
    222,
    223,
    224,
    231,
    232,
    233,
    241,
    242,
    243,
    251,
    252,
    253,
    281,
    282,
]


_ETICKET_EXAMPLE: JsonDict = {
    "tipoCFE": 101,
    "fmaPago": 1,
    "mntBruto": 1,
    "tpoMoneda": "UYU",
    "items": [
        {"indFact": 3, "nomItem": "Bananas", "cantidad": "40", "uniMed": "kg", "precioUnitario": "4200"},
        {"indFact": 2, "nomItem": "Manzanas", "cantidad": "18", "uniMed": "kg", "precioUnitario": "22"},
        {"indFact": 1, "nomItem": "Papas", "cantidad": "12", "uniMed": "kg", "precioUnitario": "35"},
    ],
    "receptor": {"tipoDocRecep": 3, "codPaisRecep": "UY", "docRecep": "1.335.321-4", "rznSocRecep": "Juan Perez"},
    "mediosPago": [{"glosaMP": "Efectivo", "valorPago": "168816.00"}],
}
_EFACTURA_EXAMPLE: JsonDict = {
    "tipoCFE": 111,
    "fmaPago": 2,
    "tpoMoneda": "USD",
    "tpoCambio": "39.250",
    "receptor": {
        "tipoDocRecep": 2,
        "docRecep": "214844360018",
        "rznSocRecep": "DGI",
        "dirRecep": "Fernandez Crespo 1534",
        "ciudadRecep": "Montevideo",
    },
    "items": [
        {
            "indFact": 3,
            "nomItem": "Consultoría",
            "cantidad": "10",
            "uniMed": "h",
            "precioUnitario": "85.50",
            "codItem": [{"tpoCod": "INT1", "cod": "CONS-H"}],
        }
    ],
    "adenda": "Orden de compra 4512. Gracias por su compra.",
}
_NOTE_EXAMPLE: JsonDict = {
    "tipoCFE": 112,
    "fmaPago": 1,
    "receptor": {
        "tipoDocRecep": 2,
        "docRecep": "214844360018",
        "rznSocRecep": "DGI",
        "dirRecep": "Fernandez Crespo 1534",
        "ciudadRecep": "Montevideo",
    },
    "items": [{"indFact": 3, "nomItem": "Devolución consultoría", "cantidad": "1", "precioUnitario": "85.50"}],
    "referencias": [{"indGlobal": 1, "razonRef": "Hora no prestada, facturas de consultoría de mayo"}],
}
_EXPORT_SERVICES_EXAMPLE: dict[str, Any] = {
    "tipoCFE": 121,
    "fmaPago": 2,
    "tpoMoneda": "USD",
    "tpoCambio": "39.250",
    "clauVenta": "N/A",
    "modVenta": 90,
    "viaTransp": 8,
    "receptor": {
        "tipoDocRecep": 4,
        "codPaisRecep": "US",
        "docRecep": "98-7654321",
        "rznSocRecep": "Acme Software Inc.",
        "dirRecep": "500 Market Street",
        "ciudadRecep": "San Francisco",
        "paisRecep": "Estados Unidos",
    },
    "items": [
        {"indFact": 10, "nomItem": "Desarrollo de software", "cantidad": "120", "uniMed": "h", "precioUnitario": "45"}
    ],
}
_EXPORT_REMITO_EXAMPLE: dict[str, Any] = {
    "tipoCFE": 124,
    "tipoTraslado": 1,
    "tpoMoneda": "USD",
    "tpoCambio": "39.250",
    "clauVenta": "FOB",
    "modVenta": 1,
    "viaTransp": 1,
    "receptor": {
        "tipoDocRecep": 7,
        "codPaisRecep": "BR",
        "docRecep": "12.345.678/0001-90",
        "rznSocRecep": "Importadora Sul Ltda.",
        "dirRecep": "Rua das Flores 100",
        "ciudadRecep": "Porto Alegre",
        "paisRecep": "Brasil",
    },
    "items": [{"nomItem": "Lana lavada", "cantidad": "2000", "uniMed": "kg", "precioUnitario": "6.10"}],
}

_EXPORT_NOTE_EXAMPLE: dict[str, Any] = {
    "tipoCFE": 122,
    "fmaPago": 2,
    "tpoMoneda": "USD",
    "tpoCambio": "39.250",
    "clauVenta": "N/A",
    "viaTransp": 8,
    "receptor": _EXPORT_SERVICES_EXAMPLE["receptor"],
    "items": [{"indFact": 10, "nomItem": "Horas no prestadas", "cantidad": "4", "uniMed": "h", "precioUnitario": "45"}],
    "referencias": [{"indGlobal": 1, "razonRef": "Horas no prestadas en las facturas de exportación de mayo"}],
}
_BOLETA_EXAMPLE: dict[str, Any] = {
    "tipoCFE": 151,
    "fmaPago": 1,
    "mntBruto": 2,
    "receptor": {
        "tipoDocRecep": 3,
        "codPaisRecep": "UY",
        "docRecep": "1.335.321-4",
        "rznSocRecep": "Juan Pérez (productor)",
        "dirRecep": "Ruta 5 km 120",
        "ciudadRecep": "Durazno",
    },
    "items": [
        {"indFact": 15, "nomItem": "Novillos gordos", "cantidad": "12", "uniMed": "cab", "precioUnitario": "1850"}
    ],
}
_CUENTA_AJENA_EXAMPLE: dict[str, Any] = {
    "tipoCFE": 141,
    "fmaPago": 1,
    "receptor": _EFACTURA_EXAMPLE["receptor"],
    "items": [
        {"indFact": 3, "nomItem": "Masas", "cantidad": "20", "uniMed": "kg", "precioUnitario": "230"},
        {"indFact": 1, "nomItem": "Vasos", "cantidad": "20", "uniMed": "Un", "precioUnitario": "25"},
    ],
    "complFiscal": {"tipoDocMdte": 2, "pais": "UY", "docMdte": "219000090011", "nombreMdte": "DGI PRUEBA"},
}
# One working example per type not shown above (notes with a global reference: they stand on their own).
_GLOBAL_REFERENCE = [{"indGlobal": 1, "razonRef": "Ajuste de los comprobantes del mes"}]
_PRINCIPAL = _CUENTA_AJENA_EXAMPLE["complFiscal"]
_FOREIGN = _EXPORT_SERVICES_EXAMPLE["receptor"]
_EFACT_RECEIVER = _EFACTURA_EXAMPLE["receptor"]
_LINE_22 = [{"indFact": 3, "nomItem": "Ajuste", "cantidad": "1", "precioUnitario": "100"}]
_OTHER_EXAMPLES: list[dict[str, Any]] = [
    {"tipoCFE": 102, "fmaPago": 1, "items": _LINE_22, "referencias": _GLOBAL_REFERENCE},
    {"tipoCFE": 103, "fmaPago": 1, "items": _LINE_22, "referencias": _GLOBAL_REFERENCE},
    {"tipoCFE": 113, "fmaPago": 1, "receptor": _EFACT_RECEIVER, "items": _LINE_22, "referencias": _GLOBAL_REFERENCE},
    {
        "tipoCFE": 123,
        "fmaPago": 1,
        "tpoMoneda": "USD",
        "tpoCambio": "39.250",
        "clauVenta": "N/A",
        "viaTransp": 8,
        "receptor": _FOREIGN,
        "items": [{"indFact": 10, "nomItem": "Horas adicionales", "cantidad": "2", "precioUnitario": "45"}],
        "referencias": _GLOBAL_REFERENCE,
    },
    {"tipoCFE": 131, "fmaPago": 1, "mntBruto": 1, "items": _LINE_22, "complFiscal": _PRINCIPAL},
    {"tipoCFE": 132, "fmaPago": 1, "items": _LINE_22, "referencias": _GLOBAL_REFERENCE, "complFiscal": _PRINCIPAL},
    {"tipoCFE": 133, "fmaPago": 1, "items": _LINE_22, "referencias": _GLOBAL_REFERENCE, "complFiscal": _PRINCIPAL},
    *(
        {
            "tipoCFE": tipo,
            "fmaPago": 1,
            "receptor": _EFACT_RECEIVER,
            "items": _LINE_22,
            "referencias": _GLOBAL_REFERENCE,
            "complFiscal": _PRINCIPAL,
        }
        for tipo in (142, 143)
    ),
    *(
        {
            "tipoCFE": tipo,
            "fmaPago": 1,
            "receptor": _BOLETA_EXAMPLE["receptor"],
            "items": [{"indFact": 13, "nomItem": "Ajuste de peso", "cantidad": "1", "precioUnitario": "250"}],
            "referencias": _GLOBAL_REFERENCE,
        }
        for tipo in (152, 153)
    ),
    {
        "tipoCFE": 181,
        "tipoTraslado": 1,
        "receptor": _EFACT_RECEIVER,
        "items": [{"nomItem": "Manzanas", "cantidad": "10", "uniMed": "kg"}],
    },
    {
        "tipoCFE": 182,
        "receptor": _EFACT_RECEIVER,
        "items": [
            {"retencPercep": [{"codRet": "2183165", "tasa": "50", "mntSujetoaRet": "22000", "valRetPerc": "11000"}]}
        ],
    },
]


class CfeInput(PrintedText):
    """A receipt to issue: e-Ticket, e-Factura, their notes, e-Remito or e-Resguardo.

    Serie, number, CAE and the signature time are not part of the input: the service assigns them. A
    receipt DGI would reject is answered 422 before any number is taken, with one entry per problem in
    error.fields (field path, stable code, Spanish message); docs/DGI-RULES.md lists each of DGI's rules.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        frozen=True,
        str_strip_whitespace=True,
        field_title_generator=json_title,
        json_schema_extra={
            "examples": [
                _ETICKET_EXAMPLE,
                _EFACTURA_EXAMPLE,
                _NOTE_EXAMPLE,
                _EXPORT_SERVICES_EXAMPLE,
                _EXPORT_NOTE_EXAMPLE,
                _EXPORT_REMITO_EXAMPLE,
                _BOLETA_EXAMPLE,
                _CUENTA_AJENA_EXAMPLE,
                *_OTHER_EXAMPLES,
            ]
        },
    )

    tipo_cfe: SupportedCfeType = Field(
        alias="tipoCFE",
        description="Tipo de CFE (A-C2): 101 e-Ticket, 102/103 NC/ND de e-Ticket, 111 e-Factura, "
        "112/113 NC/ND de e-Factura, 121 e-Factura de Exportación, 122/123 sus NC/ND, 124 e-Remito de "
        "Exportación, 131-133 e-Ticket y sus notas y 141-143 e-Factura y sus notas de venta por cuenta ajena, "
        "151 e-Boleta de entrada, 152/153 sus NC/ND, 181 e-Remito, 182 e-Resguardo. Comprobantes de "
        "contingencia en papel que se ingresan (CFC, solo a DGI): el tipo electrónico + 100 (201-203, 211-213, "
        "221-224, 231-233, 241-243, 251-253, 281, 282), con `contingencia` y `fchEmis` (la fecha del papel).",
    )
    fch_emis: Day = Field(
        default_factory=today_montevideo,
        alias="fchEmis",
        description="Fecha del comprobante (A-C5); por defecto hoy en Montevideo.",
    )
    fma_pago: Literal[1, 2] | None = Field(
        None,
        alias="fmaPago",
        description="Forma de pago (A-C11): 1 contado, 2 crédito. Obligatoria en e-Ticket, e-Factura y sus "
        "notas; no aplica a e-Remito ni e-Resguardo.",
    )
    fch_venc: Day | None = Field(
        None, alias="fchVenc", description="Fecha de vencimiento del pago (A-C12); no anterior a fchEmis."
    )
    mnt_bruto: Literal[1, 2, 3] | None = Field(
        None,
        alias="mntBruto",
        description="Indicador de montos brutos (A-C10): 1 los precios incluyen IVA; 2 incluyen IMEBA y "
        "adicionales (solo e-Boleta de entrada con compras a contribuyentes de IMEBA, indFact 15); "
        "3 ventas de un contribuyente IVA mínimo, Monotributo o Monotributo Social MIDES (obligatorio para "
        "ellos). Ausente: precios sin IVA. Por compatibilidad se acepta true como 1 y false como ausente.",
    )
    tpo_moneda: str = Field(
        "UYU",
        alias="tpoMoneda",
        pattern=r"^[A-Z]{3}$",
        description="Moneda, ISO 4217 más UYI (Unidad Indexada) y UYR (Unidad "
        "Reajustable) (A-C110). No aplica a e-Remito.",
    )
    tpo_cambio: Decimal | None = Field(
        None,
        alias="tpoCambio",
        gt=0,
        le=Decimal("9999.999"),
        max_digits=7,
        decimal_places=3,
        description="Pesos uruguayos por unidad de la moneda, hasta 3 decimales (A-C111); obligatorio si "
        "tpoMoneda no es UYU.",
    )
    info_adicional_doc: str | None = Field(
        None, alias="infoAdicionalDoc", max_length=150, description="Información adicional del comprobante (A-C16)."
    )
    receptor: Receptor | None = Field(
        None,
        description="Receptor. Obligatorio en e-Factura, e-Remito, e-Resguardo y en e-Tickets cuyo "
        "neto supera el tope en UI de la tabla E de DGI o que documentan retenciones.",
    )
    items: list[Item] = Field(
        min_length=1,
        max_length=700,
        description="Líneas de detalle: hasta 700 en e-Ticket y sus notas, 200 en el resto.",
    )
    dsc_rcg_global: list[DscRcgGlobal] = Field(
        default_factory=list,
        alias="dscRcgGlobal",
        max_length=20,
        description="Descuentos y recargos globales (zona D).",
    )
    medios_pago: list[MedioPago] = Field(
        default_factory=list, alias="mediosPago", max_length=40, description="Medios de pago (zona E)."
    )
    referencias: list[Referencia] = Field(
        default_factory=list,
        max_length=40,
        description="Comprobantes referenciados (zona F); al menos uno en notas de crédito y débito.",
    )
    tipo_traslado: Literal[1, 2] | None = Field(
        None,
        alias="tipoTraslado",
        description="Solo e-Remito y e-Remito de Exportación, obligatorio: 1 venta, 2 traslado interno (A-C13).",
    )
    clau_venta: str | None = Field(
        None,
        alias="clauVenta",
        pattern=r"^([A-Za-z]{1,3}|N/A)$",
        description="Solo exportación: cláusula de venta, un Incoterm (FOB, CIF, EXW, ...) o N/A en la "
        "exportación de servicios (A-C13). Obligatoria en 121, 122 y 123.",
    )
    mod_venta: Literal[1, 2, 3, 4, 80, 90, 91, 99] | None = Field(
        None,
        alias="modVenta",
        description="Solo exportación: modalidad de venta (A-C14): 1 régimen general, 2 consignación, 3 precio "
        "revisable, 4 bienes propios a exclaves aduaneros, 80 Tax Free, 90 exportación de servicios, 91 "
        "exportación mandante, 99 otras transacciones. Obligatoria en 121 y 124.",
    )
    via_transp: Literal[1, 2, 3, 8, 9] | None = Field(
        None,
        alias="viaTransp",
        description="Solo exportación, obligatoria: vía de transporte (A-C15): 1 marítimo, 2 aéreo, 3 terrestre, "
        "8 no aplica (servicios), 9 otro.",
    )
    fch_valor: Day | None = Field(None, alias="fchValor", description="Solo e-Resguardo: fecha valor (A-C5.1).")
    mnt_iva_otra: MontoPositivo | None = Field(
        None,
        alias="mntIVAOtra",
        description="IVA a otra tasa o sobre fictos (A-C123); obligatorio si hay ítems con indFact 4, "
        "porque DGI no fija esa tasa.",
    )
    compl_fiscal: ComplFiscal | None = Field(
        None,
        alias="complFiscal",
        description="Solo venta por cuenta ajena (131-133, 141-143), obligatorio: el mandante por cuenta de quien "
        "se vende (zona K, Compl_Fiscal).",
    )
    adenda: str | None = Field(
        None, max_length=10000, description="Texto libre impreso en la zona ADENDA; no se firma ni va a DGI."
    )
    cdg_dgi_sucur: int | None = Field(
        None,
        alias="cdgDGISucur",
        ge=0,
        le=9999,
        description="Código de DGI de la sucursal que emite (A-C47), una de las de la empresa; por defecto la "
        "predeterminada.",
    )
    contingencia: Contingencia | None = Field(
        None,
        description="Solo para un comprobante de contingencia en papel (tipoCFE 2xx): la serie y el número "
        "impresos, dentro de una libreta registrada (/empresa/contingencia). Se firma con esos datos y se envía "
        "solo a DGI.",
    )
    corrige_a: str | None = Field(
        None,
        alias="corrigeA",
        pattern=r"^[0-9a-f]{32}$",
        description="Solo al corregir: el idCfeEmitido del comprobante que DGI rechazó "
        "y que este reemplaza (quedan vinculados). No va en el CFE.",
    )

    @field_validator("mnt_bruto", mode="before")
    @classmethod
    def _legacy_boolean(cls, value: object) -> object:
        # Before DGI's three values were supported mntBruto was a boolean: true meant 1, false absent.
        if value is True:
            return 1
        if value is False:
            return None
        return value

    @field_validator("compl_fiscal")
    @classmethod
    def _normalize_principal_doc(cls, part: ComplFiscal | None) -> ComplFiscal | None:
        # As for the receiver: 21-900009-001-1 is typed, 219000090011 is what DGI wants.
        if (
            part
            and part.tipo_doc_mdte in URUGUAYAN_DOC_TYPES
            and all(ch.isdigit() or ch in ".- " for ch in part.doc_mdte)
        ):
            cleaned = "".join(ch for ch in part.doc_mdte if ch.isdigit()) or part.doc_mdte
            if cleaned != part.doc_mdte:
                return part.model_copy(update={"doc_mdte": cleaned})
        return part

    @field_validator("receptor")
    @classmethod
    def _normalize_doc(cls, receptor: Receptor | None) -> Receptor | None:
        # Uruguayan documents are often typed as 1.234.567-2 or 21-100342-001-7; DGI wants the digits only.
        if receptor and receptor.doc_recep and receptor.tipo_doc_recep in URUGUAYAN_DOC_TYPES:
            cleaned = receptor.doc_recep
            if all(ch.isdigit() or ch in ".- " for ch in cleaned):
                cleaned = "".join(ch for ch in cleaned if ch.isdigit()) or cleaned
            if cleaned != receptor.doc_recep:
                return receptor.model_copy(update={"doc_recep": cleaned})
        return receptor


def field_errors_from_pydantic(error: ValidationError) -> list[FieldError]:
    """Pydantic's errors as FieldErrors with JSON paths, the engine's codes and Spanish messages."""
    return [FieldError(p.field, p.code, p.message) for p in pydantic_errors.problems(error)]


def parse_cfe_input(data: dict | bytes | str) -> CfeInput:
    """Validate a request body (a dict, or JSON text for exact decimals) into a CfeInput.

    Raises CfeValidationError with one FieldError per problem.
    """
    try:
        if isinstance(data, (bytes, str)):
            return CfeInput.model_validate_json(data)
        return CfeInput.model_validate(data)
    except ValidationError as exc:
        raise CfeValidationError(field_errors_from_pydantic(exc)) from None
