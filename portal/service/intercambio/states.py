"""The states of a receipt at its electronic receiver, and the receiver's motive codes in words: DGI's own
S and E codes (envios.states) and the commercial ones a receiver may use, E20-E60 (CFE-URUGUAY.md §12)."""

from __future__ import annotations

from portal.service.envios.states import CFE_MOTIVES, ENVELOPE_MOTIVES
from portal.service.platform.i18n import _

STATES = {
    "pendiente": _("Pendiente de entrega al receptor electrónico (después de registrarse para DGI)."),
    "en_sobre": _("En un sobre de intercambio armado; entregándose al receptor."),
    "enviado": _("Entregado al receptor electrónico; esperando su acuse de recibo del sobre."),
    "sobre_recibido": _("El receptor acusó recibo del sobre (AS); esperando su respuesta sobre el comprobante."),
    "sobre_rechazado": _("El receptor rechazó el sobre (BS)."),
    "aceptado": _("El receptor aceptó el comprobante (AE)."),
    "rechazado": _("El receptor rechazó el comprobante (BE)."),
    "anulado": _("DGI rechazó el comprobante antes de la entrega: no se entrega al receptor."),
    "error": _("No se pudo entregar al receptor electrónico; requiere revisión de soporte."),
}
FINAL_STATES = frozenset({"aceptado", "rechazado", "sobre_rechazado", "anulado", "error"})

RECEIVER_ENVELOPE_MOTIVES = {**ENVELOPE_MOTIVES, "S20": "Sobre ya recibido por el receptor (duplicado)"}
COMMERCIAL_MOTIVES = {
    "E20": "Orden de compra vencida",
    "E21": "Mercadería en mal estado",
    "E22": "Proveedor inhabilitado por organismo de contralor",
    "E23": "Contraprestación no recibida",
    "E24": "Diferencia de precios y/o descuentos",
    "E25": "Factura con error de cálculos",
    "E26": "Diferencia con plazos",
}


def is_commercial(code: str) -> bool:
    """E20-E60: a receiver's commercial rejection (the CFE stays valid before DGI: it takes a credit note)."""
    return len(code) == 3 and code[0] == "E" and code[1:].isdigit() and 20 <= int(code[1:]) <= 60


def motive_text(code: str) -> str:
    if code in COMMERCIAL_MOTIVES:
        return COMMERCIAL_MOTIVES[code]
    if is_commercial(code):
        return "Motivo comercial acordado entre las partes"
    return CFE_MOTIVES.get(code) or RECEIVER_ENVELOPE_MOTIVES.get(code, "")


def motive(code: str, glosa: str | None = None, detail: str | None = None) -> dict:
    """A receiver's motive as stored and shown: the code, the receiver's own words (or ours), its detail."""
    entry = {"codigo": code, "glosa": (glosa or "").strip() or motive_text(code)}
    if detail:
        entry["detalle"] = detail[:500]
    return entry
