"""The states of a receipt at its electronic receiver, and the receiver's motive codes in words: DGI's own
S and E codes (envios.states) and the commercial ones a receiver may use, E20-E60 (CFE-URUGUAY.md §12)."""

from __future__ import annotations

from portal.service.envios.states import CFE_MOTIVES, ENVELOPE_MOTIVES, in_words
from portal.service.platform.i18n import Text, _, say

STATES = {
    "pendiente": _("Pendiente de entrega al receptor electrónico (después de registrarse para DGI)."),
    "en_sobre": _("En un sobre de intercambio armado; entregándose al receptor."),
    "enviado": _("Entregado al receptor electrónico; esperando su acuse de recibo del sobre."),
    "sobre_recibido": _("El receptor acusó recibo del sobre (AS); esperando su respuesta sobre el comprobante."),
    "sobre_rechazado": _("El receptor rechazó el sobre (BS)."),
    "aceptado": _("El receptor aceptó el comprobante (AE)."),
    "rechazado": _("El receptor rechazó el comprobante (BE)."),
    "anulado": _("DGI rechazó el comprobante antes de la entrega: no se entrega al receptor."),
    "error": _(
        "No se pudo entregar al receptor electrónico; quien emite puede reintentar la entrega desde la página del "
        "comprobante o por la API."
    ),
}
FINAL_STATES = frozenset({"aceptado", "rechazado", "sobre_rechazado", "anulado", "error"})

RECEIVER_ENVELOPE_MOTIVES = {**ENVELOPE_MOTIVES, "S20": _("Sobre ya recibido por el receptor (duplicado)")}
COMMERCIAL_MOTIVES = {
    "E20": _("Orden de compra vencida"),
    "E21": _("Mercadería en mal estado"),
    "E22": _("Proveedor inhabilitado por organismo de contralor"),
    "E23": _("Contraprestación no recibida"),
    "E24": _("Diferencia de precios y/o descuentos"),
    "E25": _("Factura con error de cálculos"),
    "E26": _("Diferencia con plazos"),
}


def is_commercial(code: str) -> bool:
    """E20-E60: a receiver's commercial rejection (the CFE stays valid before DGI: it takes a credit note)."""
    return len(code) == 3 and code[0] == "E" and code[1:].isdigit() and 20 <= int(code[1:]) <= 60


AGREED_MOTIVE = _("Motivo comercial acordado entre las partes")


def motive_words(code: str) -> Text | None:
    """Our text for a receiver's motive code, a catalogue message (said in the reader's language by `in_words`);
    None for E27-E60, whose text is the receiver's own, and for codes no one defines."""
    if code in COMMERCIAL_MOTIVES:
        return COMMERCIAL_MOTIVES[code]
    if is_commercial(code):
        return None
    return CFE_MOTIVES.get(code) or RECEIVER_ENVELOPE_MOTIVES.get(code)


def motive_text(code: str) -> str:
    """The text a motive is stored with when the receiver wrote none."""
    known = motive_words(code)
    return str(known) if known else (str(AGREED_MOTIVE) if is_commercial(code) else "")


# The standard texts of an agreed motive (E27-E60): ours when a receiver wrote none, and the one this product sends
# as a receiver. A motive carrying one of them holds no words of the receiver's own in its glosa: it is said in
# the reader's language, and the receiver's words are its detail.
AGREED_TEXTS = {str(text): text for text in (AGREED_MOTIVE, _("Otro motivo acordado entre las partes"))}


def said_motives(entries: list[dict] | None) -> list[dict]:
    """A receiver's motives as the API answers them, each with `texto` in the request's language (by its code; an
    agreed motive's standard text too)."""
    return [
        {**m, "texto": say(AGREED_TEXTS[m["glosa"]])}
        if is_commercial(m.get("codigo") or "") and m.get("glosa") in AGREED_TEXTS
        else m
        for m in in_words(entries, motive_words)
    ]


def motive(code: str, glosa: str | None = None, detail: str | None = None) -> dict:
    """A receiver's motive as stored and shown: the code, the receiver's own words (or ours), its detail."""
    entry = {"codigo": code, "glosa": (glosa or "").strip() or motive_text(code)}
    if detail:
        entry["detalle"] = detail[:500]
    return entry
