"""Request and response schemas of the cotizaciones group."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from portal.service.cfe.model_parts import Day
from portal.service.informes.schemas import PeriodoQuery

Moneda = Literal["USD", "EUR", "ARS", "BRL", "UI"]
Fuente = Literal["bcu", "simulador", "operador"]  # models.RateSource, as the API names it
_FUENTE = (
    "bcu: publicada por el Banco Central del Uruguay; simulador: una cifra inventada por el simulador del BCU "
    "(desarrollo, demostración y pruebas; no es oficial); operador: la corrección de un operador."
)


class CotizacionQuery(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    moneda: Moneda = Field(description="USD, EUR, ARS, BRL o UI.")
    fecha: Day | None = Field(None, description="Día del comprobante (AAAA-MM-DD); hoy si falta.")


class Cotizacion(BaseModel):
    """La cotización que corresponde a un comprobante del día pedido: la última publicada ese día o antes (a lo
    sumo 10 días antes)."""

    moneda: Moneda
    fecha: date = Field(description="El día de la cotización (puede ser anterior al pedido: fines de semana).")
    compra: Decimal
    venta: Decimal = Field(description="La que se propone como TpoCambio del CFE.")
    fuente: Fuente = Field(description=_FUENTE)


class CotizacionesQuery(PeriodoQuery):
    """A currency and a period, both days included (at most a year, as every period the service reads)."""

    moneda: Moneda = Field(description="USD, EUR, ARS, BRL o UI.", examples=["USD"])


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class DiaCotizacion(_Camel):
    """One day of the period: what was published that day (null on weekends and holidays, when the BCU publishes
    nothing) and the rate a receipt of that day takes."""

    fecha: date
    compra: Decimal | None = Field(description="Compra publicada ese día; null si ese día no hay cotización.")
    venta: Decimal | None = Field(description="Venta publicada ese día; null si ese día no hay cotización.")
    fuente: Fuente | None = Field(description=_FUENTE + " null si ese día no hay cotización.")
    tipo_cambio: Decimal | None = Field(
        description="El TpoCambio que se propone a un comprobante de ese día: la venta de la última cotización "
        "publicada ese día o antes (a lo sumo 10 días antes), con 3 decimales; null si no hay ninguna."
    )
    fecha_tipo_cambio: date | None = Field(
        description="El día de la cotización de la que sale tipoCambio (anterior a fecha en fines de semana y "
        "feriados); null si no hay ninguna."
    )


class Cotizaciones(_Camel):
    """The rates of a currency day by day, newest first: one item per day of the period, days without a rate
    included. Not paged: the period (at most 366 days) bounds it."""

    moneda: Moneda
    desde: date
    hasta: date
    publicadas: Literal["bcu", "simulador"] = Field(
        description="De dónde carga el servicio las cotizaciones ahora: el BCU, o el simulador del BCU (desarrollo, "
        "demostración y pruebas; sus cifras no son oficiales). Cada día dice la suya en `fuente`."
    )
    dias_atras: int = Field(description="Cuántos días antes puede ser la cotización que toma un comprobante (10).")
    items: list[DiaCotizacion]
