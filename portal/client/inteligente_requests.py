"""What smart issuance takes: a receiver's document and lines, from which the service infers the whole CFE."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from portal.client.cfe import FieldNames, renamed_path
from portal.client.cfe import field_path as cfe_field_path
from portal.client.models import JsonObject, json_object


@dataclass(frozen=True)
class SmartLine:
    """A line as a clerk says it. `rate` ("basica", "minima", "exenta", "no_facturable") or `category`
    (portal.domain.iva_categories) chooses the IVA; with neither the service infers it."""

    description: str
    quantity: Decimal
    price: Decimal
    unit: str | None = None
    rate: str | None = None
    category: str | None = None
    discount_pct: Decimal | None = None

    def to_json(self) -> JsonObject:
        return json_object(
            (
                ("descripcion", self.description),
                ("cantidad", self.quantity),
                ("precio", self.price),
                ("unidad", self.unit),
                ("tasa", self.rate),
                ("categoria", self.category),
                ("descuentoPct", self.discount_pct),
            )
        )


@dataclass(frozen=True)
class SmartReceiver:
    """Who buys: a RUT, a cédula or another document; the service looks up the rest in DGI's registry."""

    document: str
    doc_type: int | None = None
    country: str | None = None
    name: str | None = None
    address: str | None = None
    city: str | None = None
    department: str | None = None

    def to_json(self) -> JsonObject:
        return json_object(
            (
                ("documento", self.document),
                ("tipoDoc", self.doc_type),
                ("pais", self.country),
                ("nombre", self.name),
                ("direccion", self.address),
                ("ciudad", self.city),
                ("departamento", self.department),
            )
        )


@dataclass(frozen=True)
class SmartReference:
    """The receipt a credit ("credito") or debit ("debito") note adjusts, and why."""

    receipt_id: str
    reason: str
    kind: str = "credito"

    def to_json(self) -> JsonObject:
        return {"idCfeEmitido": self.receipt_id, "tipo": self.kind, "razon": self.reason}


@dataclass(frozen=True)
class SmartIssueRequest:
    """The body of previsualizar-emision-inteligente and emitir-inteligente. `tipo_cfe` forces the type
    instead of letting the service infer it."""

    lines: tuple[SmartLine, ...]
    receiver: SmartReceiver | None = None
    prices_include_tax: bool = True
    currency: str = "UYU"
    exchange_rate: Decimal | None = None
    payment_form: int = 1
    reference: SmartReference | None = None
    adenda: str | None = None
    tipo_cfe: int | None = None

    def to_json(self) -> JsonObject:
        body = json_object(
            (
                ("preciosIncluyenIva", self.prices_include_tax),
                ("moneda", self.currency),
                ("tipoCambio", self.exchange_rate),
                ("formaPago", self.payment_form),
                ("adenda", self.adenda),
            )
        )
        body["lineas"] = [line.to_json() for line in self.lines]
        if self.receiver is not None:
            body["receptor"] = self.receiver.to_json()
        if self.reference is not None:
            body["referencia"] = self.reference.to_json()
        if self.tipo_cfe is not None:
            body["pistas"] = {"tipoCFE": self.tipo_cfe}
        return body


# The service's names of smart issuance's input -> SmartIssueRequest's, part by part (as in portal/client/cfe.py).
_FIELD_NAMES: FieldNames = {
    "lineas": (
        "lines",
        {
            "descripcion": "description",
            "cantidad": "quantity",
            "precio": "price",
            "unidad": "unit",
            "tasa": "rate",
            "categoria": "category",
            "descuentoPct": "discount_pct",
        },
    ),
    "receptor": (
        "receiver",
        {
            "documento": "document",
            "tipoDoc": "doc_type",
            "pais": "country",
            "nombre": "name",
            "direccion": "address",
            "ciudad": "city",
            "departamento": "department",
        },
    ),
    "preciosIncluyenIva": "prices_include_tax",
    "moneda": "currency",
    "tipoCambio": "exchange_rate",
    "formaPago": "payment_form",
    "adenda": "adenda",
    "referencia": ("reference", {"idCfeEmitido": "receipt_id", "tipo": "kind", "razon": "reason"}),
}


def field_path(path: str) -> str:
    """A smart issuance field error's path in SmartIssueRequest's names ("lineas[0].precio" ->
    "lines[0].price"), or, when it is about the CFE the service inferred, in CfeRequest's ("items[0].indFact"
    -> "lines[0].ind_fact": the draft's item i is the request's line i)."""
    return renamed_path(path, _FIELD_NAMES) or cfe_field_path(path)
