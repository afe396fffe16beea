"""Request and response schemas of the informes group."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from portal.service.cfe.model_parts import Day

# A book longer than a year is not a book anyone files; it is also the bound on what one request reads.
MAX_DAYS = 366


class VentasQuery(BaseModel):
    """The period of the sales book, both days included, and the file format."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=True)

    desde: Day = Field(description="Primer día del período (AAAA-MM-DD).")
    hasta: Day = Field(description="Último día del período (AAAA-MM-DD), a lo sumo 366 días después de desde.")
    formato: Literal["json", "csv", "xlsx"] | None = Field(
        None, description="json, csv o xlsx; sin él decide el encabezado Accept (JSON por defecto)."
    )

    @field_validator("hasta")
    @classmethod
    def _period(cls, value: date, info: ValidationInfo) -> date:
        start = info.data.get("desde")
        if start is not None and start > value:
            raise PydanticCustomError("rango_invalido", "La fecha desde es posterior a la fecha hasta.")
        if start is not None and (value - start).days >= MAX_DAYS:
            raise PydanticCustomError("periodo_demasiado_largo", "El período abarca a lo sumo 366 días.")
        return value


class _Camel(BaseModel):
    """The API's camelCase names over Python's snake_case fields (documentation only: views write the JSON)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class Importes(_Camel):
    """Net, IVA, perceptions, retentions and total of a line or a total, as the signed CFE's Zona A has them."""

    no_gravado: Decimal
    exportacion: Decimal
    iva_suspenso: Decimal
    neto_tasa_minima: Decimal
    neto_tasa_basica: Decimal
    neto_otra_tasa: Decimal
    iva_tasa_minima: Decimal
    iva_tasa_basica: Decimal
    iva_otra_tasa: Decimal
    percepciones: Decimal
    retenciones: Decimal
    total: Decimal


class FilaVentas(_Camel):
    id: str
    fecha: date
    tipo_cfe: int = Field(alias="tipoCFE")
    serie: str
    nro: int
    doc_receptor: str | None
    nombre_receptor: str | None
    moneda: str
    tipo_cambio: Decimal
    estado_dgi: str
    importes: Importes = Field(description="En la moneda del comprobante; las notas de crédito, negativas.")
    importes_pesos: Importes = Field(description="Los mismos importes en pesos (por el tipo de cambio del CFE).")


class TotalTipo(_Camel):
    tipo_cfe: int = Field(alias="tipoCFE")
    cantidad: int
    importes_pesos: Importes


class TotalMoneda(_Camel):
    moneda: str
    cantidad: int
    importes: Importes
    importes_pesos: Importes


class Declaracion(_Camel):
    """Las cifras de ventas de la declaración de IVA del período, en pesos."""

    ventas_tasa_basica: Decimal
    iva_tasa_basica: Decimal
    ventas_tasa_minima: Decimal
    iva_tasa_minima: Decimal
    ventas_otra_tasa: Decimal
    iva_otra_tasa: Decimal
    ventas_exentas_o_no_gravadas: Decimal
    exportaciones: Decimal
    iva_en_suspenso: Decimal
    iva_debito_fiscal: Decimal
    percepciones: Decimal
    retenciones: Decimal


class LibroVentas(_Camel):
    """El libro de ventas (IVA) de un período."""

    desde: date
    hasta: date
    filas: list[FilaVentas]
    rechazados: list[FilaVentas] = Field(description="Rechazados por DGI: fuera del libro y de los totales.")
    cantidad: int
    totales_pesos: Importes
    por_tipo: list[TotalTipo]
    por_moneda: list[TotalMoneda]
    declaracion: Declaracion
