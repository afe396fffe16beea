"""What the smart-issuance pages show of a request: labelled rows built from the service's answer, so the
templates stay free of DGI's field names and code tables."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from flask import current_app, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.client.inteligente import SmartRequest
from portal.domain.cfe_types import CFE_TYPES
from portal.domain.identifiers import format_rut

DOC_TYPES = {1: "NIE", 2: "RUT", 3: _l("Cédula"), 4: _l("Otro"), 5: _l("Pasaporte"), 6: "DNI", 7: "NIFE"}
IND_FACT = {
    1: _l("Exento"),
    2: _l("Mínima 10%"),
    3: _l("Básica 22%"),
    4: _l("Otra tasa"),
    5: _l("Entrega gratuita"),
    6: _l("No facturable"),
    7: _l("No facturable negativo"),
}
# Money totals in DGI's order; zero amounts are left out, except the two a clerk always reads.
TOTALS = (
    ("mntNoGrv", _l("No gravado")),
    ("mntExpoyAsim", _l("Exportación y asimiladas")),
    ("mntNetoIvaTasaMin", _l("Neto tasa mínima")),
    ("mntNetoIVATasaBasica", _l("Neto tasa básica")),
    ("mntNetoIVAOtra", _l("Neto otra tasa")),
    ("mntIVATasaMin", _l("IVA tasa mínima")),
    ("mntIVATasaBasica", _l("IVA tasa básica")),
    ("mntIVAOtra", _l("IVA otra tasa")),
    ("mntTotal", _l("Total")),
    ("mntTotRetenido", _l("Retenido / percibido")),
    ("montoNF", _l("No facturable")),
    ("mntPagar", _l("Total a pagar")),
)
ALWAYS_SHOWN = {"mntTotal", "mntPagar"}
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


def type_name(code: int | None) -> str:
    kind = CFE_TYPES.get(int(code)) if code is not None else None
    return kind.name_es if kind else str(code or "")


def reason(req: SmartRequest, field: str) -> str | None:
    """Why the service inferred `field` (None when it was given, not inferred)."""
    return next((i.reason for i in req.inferences if i.field == field), None)


def receiver_rows(req: SmartRequest) -> list[Row]:
    receiver = req.draft.get("receptor")
    if not receiver:
        return []
    why = {i.field: i.reason for i in req.inferences}
    kind, number = receiver.get("tipoDocRecep"), receiver.get("docRecep", "")
    shown = format_rut(number) if kind == 2 else number
    address = ", ".join(p for p in (receiver.get(k) for k in ("dirRecep", "ciudadRecep", "deptoRecep")) if p)
    rows = [Row(_l("Documento"), f"{DOC_TYPES.get(kind, kind)} {shown}", why.get("receptor.tipoDocRecep"))]
    for field, label, value in (
        ("receptor.rznSocRecep", _l("Nombre"), receiver.get("rznSocRecep")),
        ("receptor.dirRecep", _l("Dirección"), address),
    ):
        if value:
            rows.append(Row(label, value, why.get(field), from_dgi=field in FROM_DGI and field in why))
    return rows


def item_rows(req: SmartRequest) -> list[dict]:
    why = {i.field: i.reason for i in req.inferences}
    amounts = req.totals.get("montosItems") or []
    return [
        {
            "description": item.get("nomItem"),
            "quantity": item.get("cantidad"),
            "price": item.get("precioUnitario"),
            "rate": IND_FACT.get(item.get("indFact"), item.get("indFact")),
            "reason": why.get(f"items[{n}].indFact"),
            "amount": amounts[n] if n < len(amounts) else None,
        }
        for n, item in enumerate(req.draft.get("items") or [])
    ]


def total_rows(totals: dict) -> list[Row]:
    return [
        Row(label, totals[key], key=key)
        for key, label in TOTALS
        if key in totals and (key in ALWAYS_SHOWN or _nonzero(totals[key]))
    ]


def _nonzero(value) -> bool:
    try:
        return float(value) != 0
    except (TypeError, ValueError):
        return False


def inference_rows(req: SmartRequest) -> list[Row]:
    return [Row(_field_label(i.field), _value_text(i.field, i.value), i.reason) for i in req.inferences]


def _field_label(field: str) -> object:
    labels = {
        "tipoCFE": _l("Tipo de comprobante"),
        "receptor.tipoDocRecep": _l("Tipo de documento del receptor"),
        "receptor.rznSocRecep": _l("Nombre del receptor"),
        "receptor.dirRecep": _l("Dirección del receptor"),
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
    return value


def receipt_url(receipt_id: str) -> str:
    """The receipt's page in the Comprobantes area (its route is another area's; the path is the contract)."""
    endpoint = "comprobantes.receipt"
    if endpoint in current_app.view_functions:
        rule = next(current_app.url_map.iter_rules(endpoint))
        argument = next(iter(rule.arguments), None)
        if argument:
            return url_for(endpoint, **{argument: receipt_id})
    return f"/comprobantes/{receipt_id}"


def _iso(moment: datetime | None) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z") if moment else "-"


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
        f"{label['state']}: {req.state}" + (" (final)" if req.final else ""),
        f"{label['mode']}: {req.mode}",
        f"{label['created']}: {_iso(req.created_at)} {label['by']} {req.created_by}",
        f"{label['receipts']}: {', '.join(req.receipt_ids) or '-'}",
    ]
    if req.receipt:
        lines.append(f"CFE: {req.receipt.tipo_cfe} {req.receipt.number} · {label['code']} {req.receipt.security_code}")
    if req.dgi_status:
        lines.append(f"{label['dgi']}: {req.dgi_status}")
    if req.warnings:
        lines.append(f"{label['warnings']}: {', '.join(w.code for w in req.warnings)}")
    if req.error_code:
        lines.append(f"{label['error']}: {req.error_code} — {req.error_message}")
    lines.append(f"{label['timeline']}:")
    lines += [f"  {_iso(e.at)}  {e.state}  {e.by}" + (f"  {e.detail}" if e.detail else "") for e in req.timeline]
    lines.append(f"{label['looked_up']}: {_iso(now or datetime.now(UTC))}")
    return "\n".join(lines)
