"""What the smart-issuance pages show of a request: labelled rows built from the service's answer, so the
templates stay free of DGI's field names and code tables."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import current_app, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.client.inteligente import SmartRequest
from portal.client.totals import Totals
from portal.domain.identifiers import DocType, format_rut
from portal.domain.uruguay_time import montevideo_time
from portal.web.comprobantes.choices import IND_FACT as IND_FACT_CHOICES
from portal.web.comprobantes.choices import type_name

DOC_TYPES = {1: "NIE", 2: "RUT", 3: _l("Cédula"), 4: _l("Otro"), 5: _l("Pasaporte"), 6: "DNI", 7: "NIFE"}
# The portal's one table of IVA indicator labels (the issuing form's), keyed by portal.domain.cfe_types.
IND_FACT = dict(IND_FACT_CHOICES)
# Money totals in DGI's order (fields of the client's Totals); zero amounts are left out, except the two a
# clerk always reads.
TOTALS = (
    ("untaxed", _l("No gravado")),
    ("export", _l("Exportación y asimiladas")),
    ("net_minimum_rate", _l("Neto tasa mínima")),
    ("net_basic_rate", _l("Neto tasa básica")),
    ("net_other_rate", _l("Neto otra tasa")),
    ("iva_minimum_rate", _l("IVA tasa mínima")),
    ("iva_basic_rate", _l("IVA tasa básica")),
    ("iva_other_rate", _l("IVA otra tasa")),
    ("total", _l("Total")),
    ("withheld", _l("Retenido / percibido")),
    ("not_billable", _l("No facturable")),
    ("to_pay", _l("Total a pagar")),
)
ALWAYS_SHOWN = {"total", "to_pay"}
# The receiver fields the service fills from DGI's registry (its inferences say so, field by field).
FROM_DGI = {"receptor.rznSocRecep", "receptor.dirRecep"}
STATE_BADGES = {"issued": "ok", "failed": "bad", "expired": "bad", "confirmed": "warn", "preview": "neutral"}
STATE_LABELS = {
    "preview": _l("Previsualizada"),
    "confirmed": _l("Confirmada"),
    "issued": _l("Emitida"),
    "failed": _l("Falló"),
    "expired": _l("Vencida"),
}


@dataclass(frozen=True)
class Row:
    label: object
    value: object
    reason: str | None = None
    from_dgi: bool = False
    key: str = ""


def reason(req: SmartRequest, field: str) -> str | None:
    """Why the service inferred `field` (None when it was given, not inferred)."""
    return next((i.reason for i in req.inferences if i.field == field), None)


def receiver_rows(req: SmartRequest) -> list[Row]:
    receiver = req.draft.receiver
    if not receiver:
        return []
    why = {i.field: i.reason for i in req.inferences}
    kind, number = receiver.doc_type, receiver.document or ""
    shown = format_rut(number) if kind == DocType.RUT else number
    address = ", ".join(p for p in (receiver.address, receiver.city, receiver.department) if p)
    kind_name = DOC_TYPES.get(kind, kind) if kind is not None else None
    rows = [Row(_l("Documento"), f"{kind_name} {shown}", why.get("receptor.tipoDocRecep"))]
    for field, label, value in (
        ("receptor.rznSocRecep", _l("Nombre"), receiver.name),
        ("receptor.dirRecep", _l("Dirección"), address),
    ):
        if value:
            rows.append(Row(label, value, why.get(field), from_dgi=field in FROM_DGI and field in why))
    return rows


def item_rows(req: SmartRequest) -> list[dict]:
    why = {i.field: i.reason for i in req.inferences}
    amounts = req.totals.line_amounts
    return [
        {
            "description": line.name,
            "quantity": line.quantity,
            "price": line.unit_price,
            "rate": IND_FACT.get(line.ind_fact, line.ind_fact) if line.ind_fact is not None else None,
            "reason": why.get(f"items[{n}].indFact"),
            "amount": amounts[n] if n < len(amounts) else None,
        }
        for n, line in enumerate(req.draft.lines)
    ]


def total_rows(totals: Totals) -> list[Row]:
    return [
        Row(label, totals.amount(key), key=key) for key, label in TOTALS if key in ALWAYS_SHOWN or totals.amount(key)
    ]


def inference_rows(req: SmartRequest) -> list[Row]:
    return [Row(_field_label(i.field), _value_text(i.field, i.value), i.reason) for i in req.inferences]


def _field_label(field: str) -> object:
    labels = {
        "tipoCFE": _l("Tipo de comprobante"),
        "receptor.tipoDocRecep": _l("Tipo de documento del receptor"),
        "receptor.rznSocRecep": _l("Nombre del receptor"),
        "receptor.dirRecep": _l("Dirección del receptor"),
        "receptor.electronico": _l("Receptor electrónico"),
    }
    if field in labels:
        return labels[field]
    if field.startswith("items[") and field.endswith("].indFact"):
        return _("Línea %(n)s: tasa de IVA", n=int(field[6 : field.index("]")]) + 1)
    return field


def _value_text(field: str, value) -> object:
    if field == "tipoCFE":
        return type_name(value)
    if field == "receptor.tipoDocRecep":
        return DOC_TYPES.get(value, value)
    if field.endswith(".indFact"):
        return IND_FACT.get(value, value)
    if field == "receptor.electronico":
        return _("Sí") if value else _("No")
    return value


def receipt_url(receipt_id: str) -> str:
    """The receipt's page in the Comprobantes area (its route is another area's; the path is the contract)."""
    endpoint = "comprobantes.receipt"
    if endpoint in current_app.view_functions:
        rule = next(current_app.url_map.iter_rules(endpoint))
        argument = next(iter(rule.arguments), None)
        if argument:
            values: dict[str, Any] = {argument: receipt_id}
            return url_for(endpoint, **values)
    return f"/comprobantes/{receipt_id}"


def _iso(moment: datetime | None) -> str:
    """Montevideo time, as every time the portal shows (with its offset, so a ticket is exact)."""
    return montevideo_time(moment).isoformat(timespec="seconds") if moment else "-"


def _state_words(state: str) -> str:
    return f"{STATE_LABELS[state]} ({state})" if state in STATE_LABELS else state


def support_text(req: SmartRequest, now: datetime | None = None) -> str:
    """What support needs to find this request in the logs, as plain text to paste into a ticket."""
    label = {
        "request": _("Solicitud"),
        "state": _("Estado"),
        "mode": _("Modo"),
        "created": _("Creada"),
        "by": _("por"),
        "receipts": _("Comprobantes"),
        "code": _("código de seguridad"),
        "dgi": _("Estado DGI"),
        "warnings": _("Advertencias"),
        "error": _("Error"),
        "timeline": _("Línea de tiempo"),
        "looked_up": _("Consultada"),
    }
    lines = [
        f"{label['request']}: {req.id}",
        f"{label['state']}: {_state_words(req.state)}" + (" · final" if req.final else ""),
        f"{label['mode']}: {req.mode}",
        f"{label['created']}: {_iso(req.created_at)} {label['by']} {req.created_by}",
        f"{label['receipts']}: {', '.join(req.receipt_ids) or '-'}",
    ]
    if req.receipt:
        lines.append(f"CFE: {req.receipt.tipo_cfe} {req.receipt.number} · {label['code']} {req.receipt.security_code}")
    if req.dgi_status:
        lines.append(f"{label['dgi']}: {req.dgi_status}")
    if req.warnings:
        lines.append(f"{label['warnings']}: {'; '.join(f'{w.message} ({w.code})' for w in req.warnings)}")
    if req.error_code:
        lines.append(f"{label['error']}: {req.error_code} — {req.error_message}")
    lines.append(f"{label['timeline']}:")
    lines += [
        f"  {_iso(e.at)}  {_state_words(e.state)}  {e.by}" + (f"  {e.detail}" if e.detail else "") for e in req.timeline
    ]
    lines.append(f"{label['looked_up']}: {_iso(now or datetime.now(UTC))}")
    return "\n".join(lines)
