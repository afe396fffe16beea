"""Request and response schemas of the cotizaciones group."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from portal.service.cfe.model_parts import Day

Moneda = Literal["USD", "EUR", "ARS", "BRL", "UI"]


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
    fuente: Literal["bcu", "operador"]
