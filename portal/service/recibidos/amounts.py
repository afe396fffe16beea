"""A received CFE's amounts, read from its signed XML's Zona A totals as its issuer signed them: what the IVA
purchases book (informes/compras.py) and the received CFEs' CSV (listing.csv_chunks) both read, one way."""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from portal.service.comprobante.amounts import AMOUNT_COLUMNS
from portal.service.recibidos.checks import NS

# The Zona A element of each amount column: the stored totals' name with a capital (mntNoGrv -> MntNoGrv).
_TAGS = tuple(source[0].upper() + source[1:] for _name, source in AMOUNT_COLUMNS)
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


@dataclass(frozen=True)
class SignedTotals:
    """The CFE's currency and rate as it wrote them (None when absent), and its amount columns' texts in
    AMOUNT_COLUMNS' order (None for an amount it does not carry)."""

    currency: str | None
    rate: str | None
    texts: tuple[str | None, ...]


def signed_totals(xml: bytes) -> SignedTotals:
    """The totals of a received CFE's signed XML (already checked against DGI's schema on arrival)."""
    totals = etree.fromstring(xml, _PARSER).find(".//d:Encabezado/d:Totales", NS)

    def text(tag: str) -> str | None:
        value = totals.findtext(f"d:{tag}", namespaces=NS) if totals is not None else None
        return value.strip() if value else None

    return SignedTotals(text("TpoMoneda"), text("TpoCambio"), tuple(text(tag) for tag in _TAGS))
