"""The motive codes a receiver answers with (ACKSobre.xsd, ACKCFE_Partes.xsd; CFE-URUGUAY.md section 12)."""

from __future__ import annotations

from portal.service.envios.states import CFE_MOTIVES, ENVELOPE_MOTIVES
from portal.service.platform.i18n import Text, _, said, say, stored

SOBRE_MOTIVES = {**ENVELOPE_MOTIVES, "S20": _("Sobre enviado ya existe en los registros del receptor")}

# The commercial motives (RESP19): a receiver's own reasons to reject a CFE that DGI may well accept.
COMMERCIAL_MOTIVES = {
    "E20": _("Orden de compra vencida"),
    "E21": _("Mercadería en mal estado"),
    "E22": _("Proveedor inhabilitado por organismo de contralor"),
    "E23": _("Contraprestación no recibida"),
    "E24": _("Diferencia precios y/o descuentos"),
    "E25": _("Factura con error cálculos"),
    "E26": _("Diferencia con plazos"),
    **{f"E{n}": _("Otro motivo acordado entre las partes") for n in range(27, 61)},
}
# E27-E60 are defined between the parties: the text is the motive, so it is required.
FREE_TEXT_MOTIVES = frozenset(f"E{n}" for n in range(27, 61))


def motive(code: str, detail: str | None = None) -> dict:
    """A motive as stored and answered: the code, DGI's text, our detail. The detail is kept as `i18n.stored`
    keeps a message: its Spanish under "detalle" (what the signed ACKSobre and ACKCFE carry, as DGI defines
    them) and, for our own messages, its catalogue entry and values, so that `said_detail` tells it to each
    reader in their language. A commercial motive's detail is the user's own words, kept as typed."""
    entry = {"codigo": code, "glosa": str(_words(code) or "")}
    if detail:
        entry |= stored(detail, "detalle")
        entry["detalle"] = " ".join(entry["detalle"].split())[:500]
    return entry


def _words(code: str) -> Text | None:
    return SOBRE_MOTIVES.get(code) or CFE_MOTIVES.get(code) or COMMERCIAL_MOTIVES.get(code)


def said_motive(code: str, glosa: str) -> str:
    """A motive's text in the request's language, by its code (DGI's glosa stays Spanish in what is signed and
    stored); the glosa as it came for a code we have no text for."""
    known = _words(code)
    return say(known) if known else glosa


def said_detail(entry: dict) -> str | None:
    """A stored motive's detail in the request's language (DGI's glosa is never translated)."""
    return said(entry, "detalle") if entry.get("detalle") else None
