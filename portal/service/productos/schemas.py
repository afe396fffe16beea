"""Request and response schemas of the productos group."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from portal.domain.prices import PRICE_BOUND
from portal.service.cfe.xmlchars import PrintedText
from portal.service.productos.catalog import CURRENCIES, IND_FACTS

IndFact = Literal[1, 2, 3, 4, 5, 6, 7, 10, 16]
Moneda = Literal["UYU", "USD", "EUR", "ARS", "BRL"]
# The schema's choices are the catalogue's (one list each, checked where both are read).
assert set(get_args(IndFact)) == set(IND_FACTS) and set(get_args(Moneda)) == set(CURRENCIES)
_EXAMPLE: dict[str, Any] = {
    "codigo": "CAF-250",
    "nombre": "Café en grano 250 g",
    "unidad": "un",
    "precio": "320.00",
    "precioConIva": True,
    "indFact": 3,
    "moneda": "UYU",
}


class _Body(PrintedText):
    """Its texts go on the receipts: refused or normalised as a CFE's are, and the schema says so."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=True)


class NuevoProducto(_Body):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE]})

    codigo: str = Field(min_length=1, max_length=35, description="Código del producto (B-C7), único en la empresa.")
    nombre: str = Field(min_length=1, max_length=80, description="Nombre (B-C8), como va en la línea.")
    unidad: str | None = Field(None, max_length=4, description="Unidad de medida (B-C10): kg, h, un.")
    precio: Decimal = Field(ge=0, lt=PRICE_BOUND, decimal_places=6, description="Precio unitario (B-C11).")
    precio_con_iva: bool = Field(False, alias="precioConIva", description="Si el precio incluye IVA.")
    ind_fact: IndFact = Field(3, alias="indFact", description="Indicador de facturación (B-C4): 3 IVA básica.")
    moneda: Moneda = "UYU"


class CambioProducto(_Body):
    """The fields to change; what is left out stays as it is."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"precio": "340.00"}]})

    codigo: str | None = Field(None, min_length=1, max_length=35)
    nombre: str | None = Field(None, min_length=1, max_length=80)
    unidad: str | None = Field(None, max_length=4)
    precio: Decimal | None = Field(None, ge=0, lt=PRICE_BOUND, decimal_places=6)
    precio_con_iva: bool | None = Field(None, alias="precioConIva")
    ind_fact: IndFact | None = Field(None, alias="indFact")
    moneda: Moneda | None = None


class ProductosQuery(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    q: str | None = Field(
        None,
        min_length=1,
        max_length=80,
        pattern=r"\S",  # a text of only spaces is empty once stripped: the schema says so
        description="Comienzo de una palabra del nombre, o del código.",
    )
    cursor: str | None = Field(None, max_length=400)
    limite: int = Field(50, ge=1, le=200)


class Producto(BaseModel):
    id: int
    codigo: str
    nombre: str
    unidad: str | None
    precio: Decimal
    precioConIva: bool  # noqa: N815 - the API's names
    precioOtro: Decimal = Field(  # noqa: N815
        description=(
            "El precio al revés, para una línea de un comprobante cuyos precios van del otro modo (mntBruto): sin "
            "IVA si `precio` lo incluye, con IVA si no, a la tasa de `indFact` (2 mínima, 3 básica), redondeado "
            "a 4 decimales (la mitad hacia arriba). Igual a `precio` con un indicador sin tasa de IVA (exento, "
            "otra tasa, exportación...)."
        ),
        examples=["262.2951"],
    )
    indFact: int  # noqa: N815
    moneda: str


class PaginaProductos(BaseModel):
    items: list[Producto]
    siguienteCursor: str | None  # noqa: N815


class ResultadoImportacion(BaseModel):
    """A price list applied whole: how many products it added and how many it changed (by code)."""

    creados: int
    actualizados: int
