"""A CFE as the portal writes and reads it: what POST emitir takes (`CfeRequest`), with its parts from
cfe_parts.py.

The same classes describe a receipt the service issued (its receiver, lines, discounts, payments), a
note's draft and smart issuance's inferred draft, so the portal never reads or writes the service's
camelCase JSON. `to_json` leaves out what is not set, as the service's input does; `from_json` reads
what the service answers. Amounts are exact decimals, dates are dates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from portal.client.cfe_parts import (
    Adjustment,
    ItemCode,
    Line,
    Payment,
    Principal,
    Receiver,
    Reference,
    Retention,
    decimal_or_none,
)
from portal.client.models import JsonObject, json_object, optional_date

__all__ = [
    "PRICES_INCLUDE_IVA",
    "SMALL_TAXPAYER_SALES",
    "Adjustment",
    "CfeRequest",
    "ItemCode",
    "Line",
    "Payment",
    "Principal",
    "Receiver",
    "Reference",
    "Retention",
]

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
    sale_clause: str | None = None  # export (121-124): the Incoterm, or N/A (ClauVenta)
    sale_mode: int | None = None  # export: 1 general, 90 services, ... (ModVenta)
    transport: int | None = None  # export: 1 sea, 2 air, 3 land, 8 none, 9 other (ViaTransp)
    principal: Principal | None = None  # sales on behalf of others (131-133, 141-143)
    # A paper contingency receipt keyed in (tipo_cfe 2xx): the serie and number printed on it (its date is
    # issue_date). It goes to DGI only.
    paper: PaperNumber | None = None

    @property
    def prices_include_tax(self) -> bool:
        return self.gross_amounts == PRICES_INCLUDE_IVA

    def to_json(self) -> JsonObject:
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
                ("clauVenta", self.sale_clause),
                ("modVenta", self.sale_mode),
                ("viaTransp", self.transport),
            )
        )
        if self.receiver is not None:
            body["receptor"] = self.receiver.to_json()
        if self.principal is not None:
            body["complFiscal"] = self.principal.to_json()
        if self.paper is not None:
            body["contingencia"] = {"serie": self.paper.serie, "nro": self.paper.number}
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
    def from_json(cls, data: JsonObject) -> CfeRequest:
        gross = data.get("mntBruto")
        if isinstance(gross, bool):  # the service's older boolean form
            gross = PRICES_INCLUDE_IVA if gross else None
        return cls(
            tipo_cfe=int(data["tipoCFE"]),
            lines=tuple(Line.from_json(item) for item in data.get("items") or ()),
            receiver=Receiver.from_json(data["receptor"]) if data.get("receptor") else None,
            issue_date=optional_date(data.get("fchEmis")),
            payment_form=data.get("fmaPago"),
            due_date=optional_date(data.get("fchVenc")),
            gross_amounts=gross,
            currency=data.get("tpoMoneda"),
            exchange_rate=decimal_or_none(data.get("tpoCambio")),
            adjustments=tuple(Adjustment.from_json(a) for a in data.get("dscRcgGlobal") or ()),
            payments=tuple(Payment.from_json(p) for p in data.get("mediosPago") or ()),
            references=tuple(Reference.from_json(r) for r in data.get("referencias") or ()),
            transfer_kind=data.get("tipoTraslado"),
            value_date=optional_date(data.get("fchValor")),
            other_rate_iva=decimal_or_none(data.get("mntIVAOtra")),
            additional_info=data.get("infoAdicionalDoc"),
            adenda=data.get("adenda"),
            branch_code=data.get("cdgDGISucur"),
            corrects=data.get("corrigeA"),
            sale_clause=data.get("clauVenta"),
            sale_mode=data.get("modVenta"),
            transport=data.get("viaTransp"),
            principal=Principal.from_json(data["complFiscal"]) if data.get("complFiscal") else None,
            paper=PaperNumber(data["contingencia"]["serie"], int(data["contingencia"]["nro"]))
            if data.get("contingencia")
            else None,
        )


@dataclass(frozen=True)
class PaperNumber:
    """The serie and number printed on a paper contingency receipt (CFC)."""

    serie: str
    number: int


# The service's names -> CfeRequest's, part by part: (field, the part's own table) for a nested part.
_RETENTION_FIELDS = {"codRet": "code", "tasa": "rate", "mntSujetoaRet": "base", "valRetPerc": "amount"}
_FIELD_NAMES: FieldNames = {
    "tipoCFE": "tipo_cfe",
    "fchEmis": "issue_date",
    "fmaPago": "payment_form",
    "fchVenc": "due_date",
    "mntBruto": "gross_amounts",
    "tpoMoneda": "currency",
    "tpoCambio": "exchange_rate",
    "infoAdicionalDoc": "additional_info",
    "tipoTraslado": "transfer_kind",
    "fchValor": "value_date",
    "mntIVAOtra": "other_rate_iva",
    "adenda": "adenda",
    "cdgDGISucur": "branch_code",
    "corrigeA": "corrects",
    "clauVenta": "sale_clause",
    "modVenta": "sale_mode",
    "viaTransp": "transport",
    "contingencia": ("paper", {"serie": "serie", "nro": "number"}),
    "complFiscal": (
        "principal",
        {"tipoDocMdte": "doc_type", "pais": "country", "docMdte": "document", "nombreMdte": "name"},
    ),
    "receptor": (
        "receiver",
        {
            "tipoDocRecep": "doc_type",
            "codPaisRecep": "country",
            "docRecep": "document",
            "rznSocRecep": "name",
            "dirRecep": "address",
            "ciudadRecep": "city",
            "deptoRecep": "department",
            "paisRecep": "country_name",
            "cp": "postal_code",
            "compraId": "purchase_order",
        },
    ),
    "items": (
        "lines",
        {
            "indFact": "ind_fact",
            "indAgenteResp": "agent",
            "nomItem": "name",
            "dscItem": "description",
            "cantidad": "quantity",
            "uniMed": "unit",
            "precioUnitario": "unit_price",
            "descuentoPct": "discount_pct",
            "descuentoMonto": "discount",
            "recargoPct": "surcharge_pct",
            "recargoMnt": "surcharge",
            "codItem": ("codes", {"tpoCod": "kind", "cod": "code"}),
            "retencPercep": ("retentions", _RETENTION_FIELDS),
        },
    ),
    "dscRcgGlobal": (
        "adjustments",
        {
            "tpoMovDR": "movement",
            "tpoDR": "kind",
            "codDR": "code",
            "glosaDR": "description",
            "valorDR": "amount",
            "indFactDR": "ind_fact",
        },
    ),
    "mediosPago": ("payments", {"codMP": "code", "glosaMP": "description", "valorPago": "amount"}),
    "referencias": (
        "references",
        {
            "indGlobal": "global_reference",
            "tpoDocRef": "tipo_cfe",
            "serie": "serie",
            "nroCFERef": "number",
            "razonRef": "reason",
            "fechaCFEref": "issue_date",
            "mntCFEref": "amount",
        },
    ),
}
_SEGMENT = re.compile(r"^(?P<name>[A-Za-z_]+)(?P<index>(?:\[\d+\])*)$")


def field_path(path: str) -> str:
    """A field error's path in CfeRequest's names: "items[1].precioUnitario" -> "lines[1].unit_price",
    "receptor.docRecep" -> "receiver.document". What it does not know (such as "body") is left as it is."""
    return renamed_path(path, _FIELD_NAMES) or path


# The service's name of a field -> the request's, or (the request's, the part's own table) for a nested part.
FieldNames = Mapping[str, "str | tuple[str, FieldNames]"]


def renamed_path(path: str, names: FieldNames) -> str | None:
    """`path` in the names of `names` (the service's name -> the request's, or (the request's, the part's own
    table) for a nested part, like _FIELD_NAMES); None when a part of it is not in the table."""
    parts = []
    table: FieldNames | None = names
    for segment in path.split("."):
        match = _SEGMENT.match(segment)
        known = table.get(match["name"]) if match and table else None
        if match is None or known is None:
            return None
        field, table = known if isinstance(known, tuple) else (known, None)
        parts.append(field + match["index"])
    return ".".join(parts)
