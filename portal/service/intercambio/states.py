"""The states of a receipt at its electronic receiver, and the receiver's motive codes in words: DGI's own
S and E codes (envios.states) and the commercial ones a receiver may use, E20-E60 (CFE-URUGUAY.md §12; their
glosa and words are portal.domain.commercial_motives, the receiver's side's too)."""

from __future__ import annotations

from portal.domain.commercial_motives import AGREED_GLOSA, MOTIVES, is_agreed, is_commercial
from portal.service.envios.states import CFE_MOTIVES, ENVELOPE_MOTIVES, in_words
from portal.service.platform.i18n import Text, _, commercial_motive, say

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


def motive_words(code: str) -> Text | None:
    """Our text for a receiver's motive code, a message (said in the reader's language by `in_words`); None for
    E27-E60, whose text is the receiver's own, and for codes no one defines."""
    if is_commercial(code):
        return None if is_agreed(code) else commercial_motive(code)
    return CFE_MOTIVES.get(code) or RECEIVER_ENVELOPE_MOTIVES.get(code)


def motive_text(code: str) -> str:
    """The glosa a motive is stored with when the receiver wrote none: DGI's, the one it would have signed."""
    if is_commercial(code):
        return MOTIVES[code].glosa
    known = motive_words(code)
    return str(known) if known else ""


# The standard glosas of an agreed motive (E27-E60): the catalogue's, which this product signs as a receiver and
# stores when a receiver wrote none, and the one this side stored for that before the catalogue. A motive carrying
# one of them holds no words of the receiver's own in its glosa: it is said in the reader's language, and the
# receiver's words are its detail.
AGREED_TEXTS = frozenset({AGREED_GLOSA, "Motivo comercial acordado entre las partes"})


def said_motives(entries: list[dict] | None) -> list[dict]:
    """A receiver's motives as the API answers them, each with `texto` in the request's language (by its code; an
    agreed motive's standard text too)."""
    return [
        {**m, "texto": say(commercial_motive(m["codigo"]))}
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
