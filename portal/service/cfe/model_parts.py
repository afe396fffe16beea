"""The parts of a CFE request: receiver, detail lines, global discounts, payment methods and references.

JSON names mirror DGI's element names in lower camel case (`nomItem` for NomItem), so an integrator who
knows DGI's "Formato de los CFE" knows the API. Lengths, digits and ranges are the XSD 1.44.2 facets; rules
that depend on the CFE type live in rules.py.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from portal.domain.cfe_types import NO_UNIT
from portal.domain.prices import PRICE_BOUND
from portal.service.cfe.xmlchars import PrintedText, xml_text

# MontoType / Monto_admite_negType: 15 integer digits and 2 decimals (rules.py holds computed amounts to it too).
MAX_AMOUNT = Decimal("999999999999999.99")
# The same bound as the fields state it: below 10^15, which with 2 decimals is at most MAX_AMOUNT. The OpenAPI
# document writes a bound as a JSON number, and MAX_AMOUNT as one is 1e15 itself (a double has no 17 digits):
# `le=MAX_AMOUNT` published a maximum that let 10^15 through a schema the server then refused it by.
AMOUNT_BOUND = Decimal(10) ** 15
Monto = Annotated[Decimal, Field(max_digits=17, decimal_places=2, gt=-AMOUNT_BOUND, lt=AMOUNT_BOUND)]
MontoPositivo = Annotated[Decimal, Field(max_digits=17, decimal_places=2, ge=0, lt=AMOUNT_BOUND)]
# PctType: 3 integer digits and 3 decimals.
Pct = Annotated[Decimal, Field(max_digits=6, decimal_places=3, ge=0, le=Decimal("999.999"))]
Serie = Annotated[str, Field(pattern=r"^([A-Z]{1,2}|[1-9][A-Z])$", description="Serie: A-Z, AA-ZZ o 1A-9Z.")]

_WRITTEN_DAY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def _written_day(value: object) -> object:
    # pydantic's lax mode reads a number, or text of digits, as a Unix time: {"fecha": 0} was 1970-01-01.
    if isinstance(value, int | float) or (isinstance(value, str) and not _WRITTEN_DAY.match(value)):
        raise PydanticCustomError("date_type", "Fecha no válida: se escribe AAAA-MM-DD.")
    return value


# A calendar day as a request writes it, AAAA-MM-DD: every date a request body or query carries.
Day = Annotated[date, BeforeValidator(_written_day)]


def reject_control_chars(value: object) -> object:
    """What cannot be printed and signed in a CFE (portal.service.cfe.xmlchars): refused or normalised at the door."""
    return xml_text(value)


def json_title(name: str, info) -> str:
    """OpenAPI titles in the JSON names integrators use (tipoCFE), not the Python ones (tipo_cfe)."""
    return info.alias or name


class _Part(PrintedText):
    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, frozen=True, str_strip_whitespace=True, field_title_generator=json_title
    )


class Receptor(_Part):
    """Receptor (zona A, campos A-C60 a A-C70)."""

    tipo_doc_recep: Literal[1, 2, 3, 4, 5, 6, 7] | None = Field(
        None,
        alias="tipoDocRecep",
        description="Tipo de documento (A-C60): 1 NIE, 2 RUT, 3 C.I., 4 Otros, 5 Pasaporte, "
        "6 DNI (AR, BR, CL, PY), 7 NIFE. e-Factura y sus notas exigen 2 (RUT).",
    )
    cod_pais_recep: str | None = Field(
        None,
        alias="codPaisRecep",
        pattern=r"^([A-Z]{2}|99)$",
        description="País del documento, ISO 3166-1 alfa-2 (A-C61); UY para NIE, RUT y C.I. (se asume si "
        "falta); AR, BR, CL o PY para DNI; 99 si el país no está en la tabla.",
    )
    doc_recep: str | None = Field(
        None,
        alias="docRecep",
        min_length=1,
        max_length=20,
        description="Número de documento. Para NIE, RUT y C.I. se aceptan puntos y guiones, que se quitan, "
        "y se controla el dígito verificador (va en DocRecep); los demás van en DocRecepExt.",
    )
    rzn_soc_recep: str | None = Field(
        None, alias="rznSocRecep", max_length=150, description="Nombre o denominación (A-C63)."
    )
    dir_recep: str | None = Field(None, alias="dirRecep", max_length=70, description="Dirección (A-C64).")
    ciudad_recep: str | None = Field(None, alias="ciudadRecep", max_length=30, description="Ciudad (A-C65).")
    depto_recep: str | None = Field(
        None, alias="deptoRecep", max_length=30, description="Departamento, provincia o estado (A-C66)."
    )
    pais_recep: str | None = Field(None, alias="paisRecep", max_length=30, description="Nombre del país (A-C66.1).")
    cp: int | None = Field(None, ge=0, le=99999, description="Código postal (A-C67).")
    compra_id: str | None = Field(
        None, alias="compraId", max_length=50, description="Número de pedido u orden de compra del receptor (A-C70)."
    )

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "tipoDocRecep": 2,
                    "codPaisRecep": "UY",
                    "docRecep": "214844360018",
                    "rznSocRecep": "DGI",
                    "dirRecep": "Fernandez Crespo 1534",
                    "ciudadRecep": "Montevideo",
                    "deptoRecep": "Montevideo",
                }
            ]
        }
    )


class CodItem(_Part):
    """Código del ítem (B-C2, B-C3)."""

    tpo_cod: str = Field(
        alias="tpoCod",
        min_length=1,
        max_length=10,
        description="Tipo de código: GTIN8, GTIN12, GTIN13, GTIN14, PLU, INT1, INT2, ARCE.",
    )
    cod: str = Field(min_length=1, max_length=35, description="El código, según el tipo.")

    model_config = ConfigDict(json_schema_extra={"examples": [{"tpoCod": "INT1", "cod": "BAN-001"}]})


class RetencPercep(_Part):
    """Retención, percepción o crédito fiscal de un ítem (B-C20 a B-C23)."""

    cod_ret: str = Field(
        alias="codRet",
        pattern=r"^[0-9]{1,8}$",
        description="Código DGI: formulario y línea, por ejemplo 2183165; 2181xxx son "
        "créditos fiscales; 9999001-9999999 impuestos no administrados por DGI.",
    )
    tasa: Pct | None = Field(None, description="Tasa en % (B-C21).")
    mnt_sujetoa_ret: MontoPositivo | None = Field(
        None, alias="mntSujetoaRet", description="Monto sujeto a retención (B-C22); obligatorio en e-Resguardo."
    )
    val_ret_perc: MontoPositivo = Field(alias="valRetPerc", description="Valor retenido o percibido (B-C23).")

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"codRet": "2183165", "tasa": "50", "mntSujetoaRet": "22000.00", "valRetPerc": "11000.00"}]
        }
    )


class Item(_Part):
    """Una línea de detalle (zona B). En e-Resguardo solo lleva retenciones."""

    ind_fact: int | None = Field(
        None,
        alias="indFact",
        ge=1,
        le=17,
        description="Indicador de facturación (B-C4): 1 exento, 2 IVA mínima, 3 IVA básica, 4 otra tasa, "
        "5 entrega gratuita, 6 no facturable, 7 no facturable negativo, 10 exportación, "
        "11 impuesto percibido, 12 IVA en suspenso, 16 IVA mínimo/monotributo; en la e-Boleta de entrada "
        "13 vendedor no contribuyente, 14 vendedor IVA mínimo o Monotributo, 15 vendedor de IMEBA, 17 compra "
        "de moneda extranjera para reventa. Obligatorio "
        "salvo en e-Remito (solo 8: ítem a rebajar) y e-Resguardo (solo 9: ítem a anular).",
    )
    ind_agente_resp: Literal["R", "A"] | None = Field(
        None,
        alias="indAgenteResp",
        description="Agente o responsable (B-C6): R sobre el producto vendido, A sobre un concepto asociado. "
        "Obligatorio si el ítem lleva retencPercep (salvo e-Resguardo).",
    )
    nom_item: str | None = Field(
        None,
        alias="nomItem",
        min_length=1,
        max_length=80,
        description="Nombre del producto o servicio (B-C7); no aplica a e-Resguardo.",
    )
    dsc_item: str | None = Field(None, alias="dscItem", max_length=1000, description="Descripción adicional (B-C8).")
    cantidad: Decimal | None = Field(
        None,
        max_digits=17,
        decimal_places=3,
        description="Cantidad, hasta 3 decimales (B-C9); negativa solo para anular un ítem del mismo CFE.",
    )
    uni_med: str = Field(
        NO_UNIT,
        alias="uniMed",
        min_length=1,
        max_length=4,
        description="Unidad de medida (B-C10); N/A si no corresponde.",
    )
    precio_unitario: Decimal | None = Field(
        None,
        alias="precioUnitario",
        ge=0,
        lt=PRICE_BOUND,
        max_digits=17,
        decimal_places=6,
        description="Precio unitario, hasta 6 decimales (B-C11), mayor que 0 salvo en entregas gratuitas "
        "(indFact 5), que valen 0; incluye IVA si mntBruto es 1. "
        "No aplica a e-Remito ni e-Resguardo.",
    )
    descuento_pct: Pct | None = Field(
        None, alias="descuentoPct", description="Descuento en % (B-C12), informativo; exige descuentoMonto."
    )
    descuento_monto: MontoPositivo | None = Field(
        None, alias="descuentoMonto", description="Monto del descuento del ítem (B-C13)."
    )
    recargo_pct: Pct | None = Field(
        None, alias="recargoPct", description="Recargo en % (B-C16), informativo; exige recargoMnt."
    )
    recargo_mnt: MontoPositivo | None = Field(
        None, alias="recargoMnt", description="Monto del recargo del ítem (B-C17)."
    )
    cod_item: list[CodItem] = Field(
        default_factory=list, alias="codItem", max_length=5, description="Hasta 5 códigos del ítem."
    )
    retenc_percep: list[RetencPercep] = Field(
        default_factory=list,
        alias="retencPercep",
        max_length=5,
        description="Hasta 5 retenciones o percepciones; al menos una en e-Resguardo.",
    )

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"indFact": 3, "nomItem": "Bananas", "cantidad": "40", "uniMed": "kg", "precioUnitario": "4200"}
            ]
        }
    )


class DscRcgGlobal(_Part):
    """Descuento o recargo global (zona D); cambia la base imponible del indicador que se indique."""

    tpo_mov_dr: Literal["D", "R"] = Field(alias="tpoMovDR", description="D descuento, R recargo (D-C2).")
    tpo_dr: Literal[1, 2] = Field(
        1,
        alias="tpoDR",
        description="Cómo se expresó (D-C3): 1 en $, 2 en %. Es informativo: "
        "valorDR es siempre el monto, como en las fórmulas de DGI.",
    )
    cod_dr: int | None = Field(None, alias="codDR", ge=0, le=999, description="Código propio (D-C4).")
    glosa_dr: str = Field(alias="glosaDR", min_length=1, max_length=100, description="Concepto (D-C5).")
    valor_dr: MontoPositivo = Field(
        alias="valorDR",
        description="Monto en la moneda del comprobante (D-C6); con mntBruto 1 incluye IVA, como los precios.",
    )
    ind_fact_dr: Literal[1, 2, 3, 4, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17] = Field(
        alias="indFactDR", description="Indicador de facturación al que se aplica (D-C7)."
    )

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"tpoMovDR": "D", "tpoDR": 1, "glosaDR": "Descuento contado", "valorDR": "100.00", "indFactDR": 3}
            ]
        }
    )


class MedioPago(_Part):
    """Medio de pago (zona E), informativo."""

    cod_mp: int | None = Field(None, alias="codMP", ge=0, le=999, description="Código propio (E-C2).")
    glosa_mp: str = Field(
        alias="glosaMP", min_length=1, max_length=100, description="Medio de pago, por ejemplo 'Efectivo' (E-C3)."
    )
    valor_pago: Monto = Field(alias="valorPago", description="Importe pagado con este medio (E-C5).")

    model_config = ConfigDict(json_schema_extra={"examples": [{"glosaMP": "Efectivo", "valorPago": "500.00"}]})


class Contingencia(_Part):
    """The paper contingency receipt (CFC) being keyed in: the serie and number printed on it (its date is
    fchEmis). Only with a CFC tipoCFE (2xx, portal.domain.cfe_types.CFC_TYPES)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"serie": "B", "nro": 7}]})
    serie: Serie = Field(description="Serie impresa en el papel (la de la libreta de contingencia).")
    nro: int = Field(ge=1, le=9_999_999, description="Número impreso en el papel.")


class Referencia(_Part):
    """Comprobante referenciado (zona F): obligatorio en notas de crédito y débito."""

    ind_global: Literal[1] | None = Field(
        None,
        alias="indGlobal",
        description="1 si no se puede identificar el comprobante (F-C2); entonces razonRef es obligatoria "
        "y no van tpoDocRef, serie ni nroCFERef.",
    )
    tpo_doc_ref: int | None = Field(
        None, alias="tpoDocRef", ge=101, le=999, description="Tipo de CFE o CFC referenciado (F-C3)."
    )
    serie: Serie | None = Field(None, description="Serie del comprobante referenciado (F-C4).")
    nro_cfe_ref: int | None = Field(
        None, alias="nroCFERef", ge=1, le=9999999, description="Número del comprobante referenciado (F-C5)."
    )
    razon_ref: str | None = Field(None, alias="razonRef", max_length=90, description="Razón (F-C6).")
    fecha_cfe_ref: Day | None = Field(
        None, alias="fechaCFEref", description="Fecha del comprobante referenciado (F-C7)."
    )
    mnt_cfe_ref: MontoPositivo | None = Field(
        None,
        alias="mntCFEref",
        description="Monto total del comprobante referenciado (MntCFEref, "
        "XSD 1.44); el servicio lo completa si lo emitió él.",
    )
    tpo_moneda_ref: str | None = Field(
        None,
        alias="tpoMonedaRef",
        pattern=r"^[A-Z]{3}$",
        description="Moneda del comprobante referenciado (TpoMonedaRef).",
    )
    tpo_cambio_ref: Decimal | None = Field(
        None,
        alias="tpoCambioRef",
        gt=0,
        le=Decimal("9999.999"),
        max_digits=7,
        decimal_places=3,
        description="Tipo de cambio del comprobante referenciado (TpoCambioRef).",
    )

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"tpoDocRef": 101, "serie": "A", "nroCFERef": 2, "razonRef": "Devolución", "fechaCFEref": "2024-05-02"}
            ]
        }
    )


class ComplFiscal(_Part):
    """Complemento fiscal (zona K) of a sale on behalf of others (131-133, 141-143): the principal (mandante)
    for whom the issuer sells. The issuer's own RUT (RUCEmisor of Compl_Fiscal_Data) is written by the service,
    as in DGI's sample envelopes; the principal's document goes in docMdte."""

    tipo_doc_mdte: Literal[1, 2, 3, 4, 5, 6, 7] = Field(
        alias="tipoDocMdte",
        description="Tipo de documento del mandante (K-C2): 1 NIE, 2 RUT, 3 C.I., 4 Otros, 5 Pasaporte, 6 DNI, 7 NIFE.",
    )
    pais: str = Field(
        "UY",
        pattern=r"^([A-Z]{2}|99)$",
        description="País del documento, ISO 3166-1 alfa-2 (K-C3); UY para NIE, RUT y C.I.",
    )
    doc_mdte: str = Field(
        alias="docMdte",
        min_length=1,
        max_length=20,
        description="Documento del mandante (K-C4); para NIE, RUT y C.I. se aceptan puntos y guiones y se "
        "controla el dígito verificador.",
    )
    nombre_mdte: str = Field(
        alias="nombreMdte", min_length=1, max_length=150, description="Nombre o denominación del mandante (K-C5)."
    )

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"tipoDocMdte": 2, "pais": "UY", "docMdte": "219000090011", "nombreMdte": "DGI PRUEBA"}]
        }
    )
