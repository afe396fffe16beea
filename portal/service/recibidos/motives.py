"""The motive codes a receiver answers with (ACKSobre.xsd, ACKCFE_Partes.xsd; CFE-URUGUAY.md section 12): DGI's S and
E codes, and the commercial ones (E20-E60) from portal.domain.commercial_motives, the issuer's side's too."""

from __future__ import annotations

from portal.domain.commercial_motives import MOTIVES, is_commercial
from portal.service.envios.states import CFE_MOTIVES, ENVELOPE_MOTIVES
from portal.service.platform.i18n import Text, _, commercial_motive, said, say, stored

SOBRE_MOTIVES = {**ENVELOPE_MOTIVES, "S20": _("Sobre enviado ya existe en los registros del receptor")}


def motive(code: str, detail: str | None = None) -> dict:
    """A motive as stored and answered: the code, DGI's text, our detail. The detail is kept as `i18n.stored`
    keeps a message: its Spanish under "detalle" (what the signed ACKSobre and ACKCFE carry, as DGI defines
    them) and, for our own messages, its catalogue entry and values, so that `said_detail` tells it to each
    reader in their language. A commercial motive's detail is the user's own words, kept as typed."""
    entry = {"codigo": code, "glosa": MOTIVES[code].glosa if is_commercial(code) else str(_dgis_words(code) or "")}
    if detail:
        entry |= stored(detail, "detalle")
        entry["detalle"] = " ".join(entry["detalle"].split())[:500]
    return entry


def _dgis_words(code: str) -> Text | None:
    return SOBRE_MOTIVES.get(code) or CFE_MOTIVES.get(code)


def said_motive(code: str, glosa: str) -> str:
    """A motive's text in the request's language, by its code (DGI's glosa stays Spanish in what is signed and
    stored); the glosa as it came for a code we have no text for."""
    known = commercial_motive(code) if is_commercial(code) else _dgis_words(code)
    return say(known) if known else glosa


def said_detail(entry: dict) -> str | None:
    """A stored motive's detail in the request's language (DGI's glosa is never translated)."""
    return said(entry, "detalle") if entry.get("detalle") else None
