"""Customers (GET/POST /clientes, GET/PATCH /clientes/{id}), typed: the company's customers, kept from its
receipts' receivers and editable, with each one's balance of credit sales and latest receipts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from portal.client import errors
from portal.client.models import JsonObject, json_object, optional_datetime
from portal.client.transport import Transport

BASE = "/api/v1/clientes"
# The service's field -> the request's, for errors (NewCustomer and CustomerChanges).
FIELDS = {
    "tipoDocRecep": "doc_type",
    "codPaisRecep": "country",
    "docRecep": "document",
    "rznSocRecep": "name",
    "dirRecep": "address",
    "ciudadRecep": "city",
    "deptoRecep": "department",
    "correo": "email",
    "moneda": "currency",
    "fmaPago": "payment_terms",
    "diasCredito": "credit_days",
    "q": "query",
}


@dataclass(frozen=True)
class Customer:
    id: int
    doc_type: int
    country: str
    document: str
    name: str
    address: str | None
    city: str | None
    department: str | None
    email: str | None
    currency: str
    payment_terms: int  # 1 cash, 2 credit
    credit_days: int | None
    source: str  # "comprobante" or "manual"
    last_receipt_at: datetime | None

    @classmethod
    def from_json(cls, data: JsonObject) -> Customer:
        return cls(
            id=int(data["id"]),
            doc_type=int(data["tipoDocRecep"]),
            country=data["codPaisRecep"],
            document=data["docRecep"],
            name=data["rznSocRecep"],
            address=data.get("dirRecep"),
            city=data.get("ciudadRecep"),
            department=data.get("deptoRecep"),
            email=data.get("correo"),
            currency=data["moneda"],
            payment_terms=int(data["fmaPago"]),
            credit_days=data.get("diasCredito"),
            source=data["origen"],
            last_receipt_at=optional_datetime(data.get("ultimoComprobante")),
        )


@dataclass(frozen=True)
class CustomerPage:
    items: tuple[Customer, ...]
    next_cursor: str | None


@dataclass(frozen=True)
class CreditBalance:
    currency: str
    amount: Decimal
    receipts: int


@dataclass(frozen=True)
class CustomerReceipt:
    id: str
    cfe_type: int
    serie: str
    number: int
    issued_on: date
    currency: str
    amount: Decimal  # as the receipt list shows it: negative for a credit note, an e-Resguardo's total withheld
    dgi_status: str


@dataclass(frozen=True)
class CustomerCard:
    customer: Customer
    balances: tuple[CreditBalance, ...]
    receipts: tuple[CustomerReceipt, ...]

    @classmethod
    def from_json(cls, data: JsonObject) -> CustomerCard:
        return cls(
            customer=Customer.from_json(data),
            balances=tuple(
                CreditBalance(b["moneda"], Decimal(b["saldo"]), int(b["comprobantes"])) for b in data["saldos"]
            ),
            receipts=tuple(
                CustomerReceipt(
                    id=r["id"],
                    cfe_type=int(r["tipoCFE"]),
                    serie=r["serie"],
                    number=int(r["nro"]),
                    issued_on=date.fromisoformat(r["fchEmis"]),
                    currency=r["moneda"],
                    amount=Decimal(r["importe"]),
                    dgi_status=r["estadoDgi"],
                )
                for r in data["comprobantes"]
            ),
        )


@dataclass(frozen=True)
class CustomerChanges:
    """What a person keeps about a customer; None leaves a field as it is (an empty text clears it)."""

    name: str | None = None
    address: str | None = None
    city: str | None = None
    department: str | None = None
    email: str | None = None
    currency: str | None = None
    payment_terms: int | None = None
    credit_days: int | None = None

    def to_json(self) -> JsonObject:
        pairs = (
            ("rznSocRecep", self.name),
            ("dirRecep", self.address),
            ("ciudadRecep", self.city),
            ("deptoRecep", self.department),
            ("correo", self.email),
            ("moneda", self.currency),
            ("fmaPago", self.payment_terms),
            ("diasCredito", self.credit_days),
        )
        # Unlike json_object, an empty text is sent: it clears the field.
        return {name: value for name, value in pairs if value is not None}


@dataclass(frozen=True)
class NewCustomer:
    doc_type: int
    document: str
    name: str
    country: str = "UY"
    details: CustomerChanges = CustomerChanges()

    def to_json(self) -> JsonObject:
        identity = json_object(
            (("tipoDocRecep", self.doc_type), ("codPaisRecep", self.country), ("docRecep", self.document))
        )
        return {**self.details.to_json(), **identity, "rznSocRecep": self.name}


class ClientesApi(Transport):
    def list_customers(self, query: str | None = None, *, cursor: str | None = None, limit: int = 50) -> CustomerPage:
        """A page of the company's customers by name; with `query`, those whose name or document starts so."""
        params = {"limite": limit, **({"q": query} if query else {}), **({"cursor": cursor} if cursor else {})}
        with errors.fields_named(FIELDS):
            data = self._json("GET", BASE, params=params)
        return CustomerPage(tuple(Customer.from_json(c) for c in data["items"]), data.get("siguienteCursor"))

    def get_customer(self, customer_id: int) -> CustomerCard:
        return CustomerCard.from_json(self._json("GET", f"{BASE}/{customer_id}"))

    def create_customer(self, customer: NewCustomer) -> Customer:
        with errors.fields_named(FIELDS):
            return Customer.from_json(self._json("POST", BASE, json=customer.to_json()))

    def update_customer(self, customer_id: int, changes: CustomerChanges) -> Customer:
        with errors.fields_named(FIELDS):
            return Customer.from_json(self._json("PATCH", f"{BASE}/{customer_id}", json=changes.to_json()))
