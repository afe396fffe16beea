"""The parts of a CFE (zonas A to F of DGI's format) as `CfeRequest` carries them: receiver, lines with their
codes and retentions, global discounts and surcharges, means of payment, references. Each writes the
service's JSON (`to_json`, leaving out what is not set) and reads it back (`from_json`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from portal.client.models import JsonObject, json_object, optional_date


def decimal_or_none(value: str | int | float | Decimal | None) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))


@dataclass(frozen=True)
class Receiver:
    """The receiver (Receptor, A-C60 to A-C70). `doc_type` is DGI's code (2 RUT, 3 C.I., ...)."""

    doc_type: int | None = None
    country: str | None = None
    document: str | None = None
    name: str | None = None
    address: str | None = None
    city: str | None = None
    department: str | None = None
    country_name: str | None = None
    postal_code: int | None = None
    purchase_order: str | None = None

    def to_json(self) -> JsonObject:
        return json_object(
            (
                ("tipoDocRecep", self.doc_type),
                ("codPaisRecep", self.country),
                ("docRecep", self.document),
                ("rznSocRecep", self.name),
                ("dirRecep", self.address),
                ("ciudadRecep", self.city),
                ("deptoRecep", self.department),
                ("paisRecep", self.country_name),
                ("cp", self.postal_code),
                ("compraId", self.purchase_order),
            )
        )

    @classmethod
    def from_json(cls, data: JsonObject) -> Receiver:
        doc_type = data.get("tipoDocRecep")
        return cls(
            doc_type=int(doc_type) if doc_type is not None else None,
            country=data.get("codPaisRecep"),
            document=data.get("docRecep"),
            name=data.get("rznSocRecep"),
            address=data.get("dirRecep"),
            city=data.get("ciudadRecep"),
            department=data.get("deptoRecep"),
            country_name=data.get("paisRecep"),
            postal_code=data.get("cp"),
            purchase_order=data.get("compraId"),
        )


@dataclass(frozen=True)
class ItemCode:
    """A code of the line (CodItem): `kind` GTIN13, PLU, INT1, ..."""

    kind: str
    code: str


@dataclass(frozen=True)
class Retention:
    """A retention or perception of a line (RetencPercep): DGI's code, rate, base and amount."""

    code: str
    amount: Decimal | None = None
    rate: Decimal | None = None
    base: Decimal | None = None

    def to_json(self) -> JsonObject:
        return json_object(
            (("codRet", self.code), ("tasa", self.rate), ("mntSujetoaRet", self.base), ("valRetPerc", self.amount))
        )

    @classmethod
    def from_json(cls, data: JsonObject) -> Retention:
        return cls(
            code=str(data.get("codRet", "")),
            amount=decimal_or_none(data.get("valRetPerc")),
            rate=decimal_or_none(data.get("tasa")),
            base=decimal_or_none(data.get("mntSujetoaRet")),
        )


@dataclass(frozen=True)
class Line:
    """A detail line (Item, zona B). `ind_fact` is the IVA indicator (portal.domain.cfe_types IND_FACT_*)."""

    name: str | None = None
    quantity: Decimal | None = None
    unit_price: Decimal | None = None
    ind_fact: int | None = None
    unit: str | None = None
    description: str | None = None
    discount_pct: Decimal | None = None
    discount: Decimal | None = None
    surcharge_pct: Decimal | None = None
    surcharge: Decimal | None = None
    agent: str | None = None  # IndAgenteResp: "R" responsible, "A" agent
    codes: tuple[ItemCode, ...] = ()
    retentions: tuple[Retention, ...] = ()

    def to_json(self) -> JsonObject:
        body = json_object(
            (
                ("indFact", self.ind_fact),
                ("indAgenteResp", self.agent),
                ("nomItem", self.name),
                ("dscItem", self.description),
                ("cantidad", self.quantity),
                ("uniMed", self.unit),
                ("precioUnitario", self.unit_price),
                ("descuentoPct", self.discount_pct),
                ("descuentoMonto", self.discount),
                ("recargoPct", self.surcharge_pct),
                ("recargoMnt", self.surcharge),
            )
        )
        if self.codes:
            body["codItem"] = [{"tpoCod": c.kind, "cod": c.code} for c in self.codes]
        if self.retentions:
            body["retencPercep"] = [r.to_json() for r in self.retentions]
        return body

    @classmethod
    def from_json(cls, data: JsonObject) -> Line:
        ind_fact = data.get("indFact")
        return cls(
            name=data.get("nomItem"),
            quantity=decimal_or_none(data.get("cantidad")),
            unit_price=decimal_or_none(data.get("precioUnitario")),
            ind_fact=int(ind_fact) if ind_fact is not None else None,
            unit=data.get("uniMed"),
            description=data.get("dscItem"),
            discount_pct=decimal_or_none(data.get("descuentoPct")),
            discount=decimal_or_none(data.get("descuentoMonto")),
            surcharge_pct=decimal_or_none(data.get("recargoPct")),
            surcharge=decimal_or_none(data.get("recargoMnt")),
            agent=data.get("indAgenteResp"),
            codes=tuple(ItemCode(c["tpoCod"], c["cod"]) for c in data.get("codItem") or ()),
            retentions=tuple(Retention.from_json(r) for r in data.get("retencPercep") or ()),
        )


@dataclass(frozen=True)
class Adjustment:
    """A global discount ("D") or surcharge ("R") (DscRcgGlobal, zona D); `kind` 1 amount, 2 percentage."""

    movement: str
    description: str
    amount: Decimal
    ind_fact: int
    kind: int = 1
    code: int | None = None

    def to_json(self) -> JsonObject:
        return json_object(
            (
                ("tpoMovDR", self.movement),
                ("tpoDR", self.kind),
                ("codDR", self.code),
                ("glosaDR", self.description),
                ("valorDR", self.amount),
                ("indFactDR", self.ind_fact),
            )
        )

    @property
    def is_discount(self) -> bool:
        return self.movement == "D"

    @classmethod
    def from_json(cls, data: JsonObject) -> Adjustment:
        return cls(
            movement=data["tpoMovDR"],
            description=data.get("glosaDR", ""),
            amount=Decimal(str(data["valorDR"])),
            ind_fact=int(data.get("indFactDR") or 0),
            kind=int(data.get("tpoDR") or 1),
            code=data.get("codDR"),
        )


@dataclass(frozen=True)
class Payment:
    """A means of payment (MedioPago, zona E)."""

    description: str
    amount: Decimal
    code: int | None = None

    def to_json(self) -> JsonObject:
        return json_object((("codMP", self.code), ("glosaMP", self.description), ("valorPago", self.amount)))

    @classmethod
    def from_json(cls, data: JsonObject) -> Payment:
        return cls(description=data.get("glosaMP", ""), amount=Decimal(str(data["valorPago"])), code=data.get("codMP"))


@dataclass(frozen=True)
class Reference:
    """A receipt a note refers to (Referencia, zona F); `global_reference` refers to many, by `reason`."""

    tipo_cfe: int | None = None
    serie: str | None = None
    number: int | None = None
    reason: str | None = None
    issue_date: date | None = None
    amount: Decimal | None = None
    global_reference: bool = False

    def to_json(self) -> JsonObject:
        return json_object(
            (
                ("indGlobal", 1 if self.global_reference else None),
                ("tpoDocRef", self.tipo_cfe),
                ("serie", self.serie),
                ("nroCFERef", self.number),
                ("razonRef", self.reason),
                ("fechaCFEref", self.issue_date),
                ("mntCFEref", self.amount),
            )
        )

    @classmethod
    def from_json(cls, data: JsonObject) -> Reference:
        return cls(
            tipo_cfe=data.get("tpoDocRef"),
            serie=data.get("serie"),
            number=data.get("nroCFERef"),
            reason=data.get("razonRef"),
            issue_date=optional_date(data.get("fechaCFEref")),
            amount=decimal_or_none(data.get("mntCFEref")),
            global_reference=data.get("indGlobal") == 1,
        )


@dataclass(frozen=True)
class Principal:
    """The principal (mandante) of a sale on behalf of others (zona K, Compl_Fiscal): 131-133, 141-143."""

    doc_type: int
    document: str
    name: str
    country: str = "UY"

    def to_json(self) -> JsonObject:
        return {"tipoDocMdte": self.doc_type, "pais": self.country, "docMdte": self.document, "nombreMdte": self.name}

    @classmethod
    def from_json(cls, data: JsonObject) -> Principal:
        return cls(
            doc_type=int(data["tipoDocMdte"]),
            document=data["docMdte"],
            name=data["nombreMdte"],
            country=data.get("pais") or "UY",
        )
