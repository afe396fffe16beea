"""The motive codes a receiver answers with (ACKSobre.xsd, ACKCFE_Partes.xsd; CFE-URUGUAY.md section 12)."""

from __future__ import annotations

from portal.service.envios.states import CFE_MOTIVES, ENVELOPE_MOTIVES
from portal.service.platform.i18n import said, stored

SOBRE_MOTIVES = {**ENVELOPE_MOTIVES, "S20": "Sobre enviado ya existe en los registros del receptor"}

# The commercial motives (RESP19): a receiver's own reasons to reject a CFE that DGI may well accept.
COMMERCIAL_MOTIVES = {
    "E20": "Orden de compra vencida",
    "E21": "Mercadería en mal estado",
    "E22": "Proveedor inhabilitado por organismo de contralor",
    "E23": "Contraprestación no recibida",
    "E24": "Diferencia precios y/o descuentos",
    "E25": "Factura con error cálculos",
    "E26": "Diferencia con plazos",
    **{f"E{n}": "Otro motivo acordado entre las partes" for n in range(27, 61)},
}
# E27-E60 are defined between the parties: the text is the motive, so it is required.
FREE_TEXT_MOTIVES = frozenset(f"E{n}" for n in range(27, 61))


def motive(code: str, detail: str | None = None) -> dict:
    """A motive as stored and answered: the code, DGI's text, our detail. The detail is kept as `i18n.stored`
    keeps a message: its Spanish under "detalle" (what the signed ACKSobre and ACKCFE carry, as DGI defines
    them) and, for our own messages, its catalogue entry and values, so that `said_detail` tells it to each
    reader in their language. A commercial motive's detail is the user's own words, kept as typed."""
    glosa = SOBRE_MOTIVES.get(code) or CFE_MOTIVES.get(code) or COMMERCIAL_MOTIVES.get(code, "")
    entry = {"codigo": code, "glosa": glosa}
    if detail:
        entry |= stored(detail, "detalle")
        entry["detalle"] = " ".join(entry["detalle"].split())[:500]
    return entry


def said_detail(entry: dict) -> str | None:
    """A stored motive's detail in the request's language (DGI's glosa is never translated)."""
    return said(entry, "detalle") if entry.get("detalle") else None
