"""A CFE as the portal writes and reads it: what POST emitir takes (`CfeRequest`) and its parts.

The same classes describe a receipt the service issued (its receiver, lines, discounts, payments), a
note's draft and smart issuance's inferred draft, so the portal never reads or writes the service's
camelCase JSON. `to_json` leaves out what is not set, as the service's input does; `from_json` reads
what the service answers. Amounts are exact decimals, dates are dates.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from portal.client.models import json_object, parse_date


def _decimal(value) -> Decimal | None:
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

    def to_json(self) -> dict:
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
    def from_json(cls, data: dict) -> Receiver:
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

    def to_json(self) -> dict:
        return json_object(
            (("codRet", self.code), ("tasa", self.rate), ("mntSujetoaRet", self.base), ("valRetPerc", self.amount))
        )

    @classmethod
    def from_json(cls, data: dict) -> Retention:
        return cls(
            code=str(data.get("codRet", "")),
            amount=_decimal(data.get("valRetPerc")),
            rate=_decimal(data.get("tasa")),
            base=_decimal(data.get("mntSujetoaRet")),
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

    def to_json(self) -> dict:
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
    def from_json(cls, data: dict) -> Line:
        ind_fact = data.get("indFact")
        return cls(
            name=data.get("nomItem"),
            quantity=_decimal(data.get("cantidad")),
            unit_price=_decimal(data.get("precioUnitario")),
            ind_fact=int(ind_fact) if ind_fact is not None else None,
            unit=data.get("uniMed"),
            description=data.get("dscItem"),
            discount_pct=_decimal(data.get("descuentoPct")),
            discount=_decimal(data.get("descuentoMonto")),
            surcharge_pct=_decimal(data.get("recargoPct")),
            surcharge=_decimal(data.get("recargoMnt")),
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

    def to_json(self) -> dict:
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
    def from_json(cls, data: dict) -> Adjustment:
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

    def to_json(self) -> dict:
        return json_object((("codMP", self.code), ("glosaMP", self.description), ("valorPago", self.amount)))

    @classmethod
    def from_json(cls, data: dict) -> Payment:
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

    def to_json(self) -> dict:
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
    def from_json(cls, data: dict) -> Reference:
        return cls(
            tipo_cfe=data.get("tpoDocRef"),
            serie=data.get("serie"),
            number=data.get("nroCFERef"),
            reason=data.get("razonRef"),
            issue_date=parse_date(data.get("fechaCFEref")),
            amount=_decimal(data.get("mntCFEref")),
            global_reference=data.get("indGlobal") == 1,
        )


# DGI's MntBruto (A-C10): 1 the prices include IVA; 3 sales of an IVA mínimo or Monotributo taxpayer.
PRICES_INCLUDE_IVA = 1
SMALL_TAXPAYER_SALES = 3


@dataclass(frozen=True)
class CfeRequest:
    """The body of POST emitir and previsualizar. The service assigns serie, number and CAE, computes every
    total and checks DGI's rules; what is None is left to its defaults (today, UYU, the default branch)."""

    tipo_cfe: int
    lines: tuple[Line, ...]
    receiver: Receiver | None = None
    issue_date: date | None = None
    payment_form: int | None = None  # 1 cash, 2 credit
    due_date: date | None = None
    gross_amounts: int | None = None  # PRICES_INCLUDE_IVA or SMALL_TAXPAYER_SALES; None: prices without IVA
    currency: str | None = None
    exchange_rate: Decimal | None = None
    adjustments: tuple[Adjustment, ...] = ()
    payments: tuple[Payment, ...] = ()
    references: tuple[Reference, ...] = ()
    transfer_kind: int | None = None  # e-Remito: 1 sale, 2 internal transfer
    value_date: date | None = None  # e-Resguardo
    other_rate_iva: Decimal | None = None
    additional_info: str | None = None
    adenda: str | None = None
    branch_code: int | None = None
    corrects: str | None = None  # the id of the rejected receipt this one replaces

    @property
    def prices_include_tax(self) -> bool:
        return self.gross_amounts == PRICES_INCLUDE_IVA

    def to_json(self) -> dict:
        body = json_object(
            (
                ("tipoCFE", self.tipo_cfe),
                ("fchEmis", self.issue_date),
                ("fmaPago", self.payment_form),
                ("fchVenc", self.due_date),
                ("mntBruto", self.gross_amounts),
                ("tpoMoneda", self.currency),
                ("tpoCambio", self.exchange_rate),
                ("infoAdicionalDoc", self.additional_info),
                ("tipoTraslado", self.transfer_kind),
                ("fchValor", self.value_date),
                ("mntIVAOtra", self.other_rate_iva),
                ("adenda", self.adenda),
                ("cdgDGISucur", self.branch_code),
                ("corrigeA", self.corrects),
            )
        )
        if self.receiver is not None:
            body["receptor"] = self.receiver.to_json()
        body["items"] = [line.to_json() for line in self.lines]
        for name, parts in (
            ("dscRcgGlobal", self.adjustments),
            ("mediosPago", self.payments),
            ("referencias", self.references),
        ):
            if parts:
                body[name] = [part.to_json() for part in parts]
        return body

    @classmethod
    def from_json(cls, data: dict) -> CfeRequest:
        gross = data.get("mntBruto")
        if isinstance(gross, bool):  # the service's older boolean form
            gross = PRICES_INCLUDE_IVA if gross else None
        return cls(
            tipo_cfe=int(data["tipoCFE"]),
            lines=tuple(Line.from_json(item) for item in data.get("items") or ()),
            receiver=Receiver.from_json(data["receptor"]) if data.get("receptor") else None,
            issue_date=parse_date(data.get("fchEmis")),
            payment_form=data.get("fmaPago"),
            due_date=parse_date(data.get("fchVenc")),
            gross_amounts=gross,
            currency=data.get("tpoMoneda"),
            exchange_rate=_decimal(data.get("tpoCambio")),
            adjustments=tuple(Adjustment.from_json(a) for a in data.get("dscRcgGlobal") or ()),
            payments=tuple(Payment.from_json(p) for p in data.get("mediosPago") or ()),
            references=tuple(Reference.from_json(r) for r in data.get("referencias") or ()),
            transfer_kind=data.get("tipoTraslado"),
            value_date=parse_date(data.get("fchValor")),
            other_rate_iva=_decimal(data.get("mntIVAOtra")),
            additional_info=data.get("infoAdicionalDoc"),
            adenda=data.get("adenda"),
            branch_code=data.get("cdgDGISucur"),
            corrects=data.get("corrigeA"),
        )
