"""Products (GET/POST /productos, GET/PATCH/DELETE /productos/{id}, POST /productos/importar), typed."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from portal.client import errors
from portal.client.models import JsonObject
from portal.client.transport import Transport

BASE = "/api/v1/productos"
FIELDS = {
    "codigo": "code",
    "nombre": "name",
    "unidad": "unit",
    "precio": "price",
    "precioConIva": "price_includes_tax",
    "indFact": "ind_fact",
    "moneda": "currency",
    "q": "query",
}


@dataclass(frozen=True)
class Product:
    id: int
    code: str
    name: str
    unit: str | None
    price: Decimal
    price_includes_tax: bool
    ind_fact: int
    currency: str
    # The price the other way round (without IVA when `price` includes it, with IVA when not), as the service
    # computes it with its IVA rates and rounding.
    other_price: Decimal

    @classmethod
    def from_json(cls, data: JsonObject) -> Product:
        return cls(
            id=int(data["id"]),
            code=data["codigo"],
            name=data["nombre"],
            unit=data.get("unidad"),
            price=Decimal(data["precio"]),
            price_includes_tax=bool(data["precioConIva"]),
            ind_fact=int(data["indFact"]),
            currency=data["moneda"],
            other_price=Decimal(data["precioOtro"]),
        )


@dataclass(frozen=True)
class ProductPage:
    items: tuple[Product, ...]
    next_cursor: str | None


@dataclass(frozen=True)
class ProductFields:
    """A product as a form sends it: every field, for a new product or a change."""

    code: str
    name: str
    price: Decimal
    unit: str | None = None
    price_includes_tax: bool = False
    ind_fact: int = 3
    currency: str = "UYU"

    def to_json(self) -> JsonObject:
        return {
            "codigo": self.code,
            "nombre": self.name,
            "unidad": self.unit or None,
            "precio": str(self.price),
            "precioConIva": self.price_includes_tax,
            "indFact": self.ind_fact,
            "moneda": self.currency,
        }


@dataclass(frozen=True)
class ImportResult:
    added: int
    updated: int


class ProductosApi(Transport):
    def list_products(self, query: str | None = None, *, cursor: str | None = None, limit: int = 50) -> ProductPage:
        """A page of the company's products by name; with `query`, those with a word of the name or the code that
        starts so."""
        params = {"limite": limit, **({"q": query} if query else {}), **({"cursor": cursor} if cursor else {})}
        with errors.fields_named(FIELDS):
            data = self._json("GET", BASE, params=params)
        return ProductPage(tuple(Product.from_json(p) for p in data["items"]), data.get("siguienteCursor"))

    def get_product(self, product_id: int) -> Product:
        return Product.from_json(self._json("GET", f"{BASE}/{product_id}"))

    def create_product(self, product: ProductFields) -> Product:
        with errors.fields_named(FIELDS):
            return Product.from_json(self._json("POST", BASE, json=product.to_json()))

    def update_product(self, product_id: int, product: ProductFields) -> Product:
        with errors.fields_named(FIELDS):
            return Product.from_json(self._json("PATCH", f"{BASE}/{product_id}", json=product.to_json()))

    def delete_product(self, product_id: int) -> None:
        self._request("DELETE", f"{BASE}/{product_id}")

    def import_price_list(self, csv_data: bytes) -> ImportResult:
        """The CSV applied whole; ValidationError names each refused row's column (`filas[3].precio`)."""
        answer = self._request(
            "POST", f"{BASE}/importar", data=csv_data, headers_extra={"Content-Type": "text/csv"}
        ).json()
        return ImportResult(int(answer["creados"]), int(answer["actualizados"]))
