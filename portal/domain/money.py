"""How an amount's currency is written for people in Uruguay: "$" for pesos, "U$S" for dollars, the ISO code
for any other. One table for the portal's and the service's formatters."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

CURRENCY_SIGNS: dict[str, str] = {"UYU": "$", "USD": "U$S"}


def currency_sign(currency: str | None) -> str:
    return CURRENCY_SIGNS.get(currency or "", currency or "")


def cfe_rate(value: Decimal) -> Decimal:
    """A day's exchange rate as a CFE carries it (TpoCambio, A-C111: 3 decimals, DGI's TipCambioType), rounded
    half-up: what the issuing form and smart issuance propose, never a rate the receipt would be refused for."""
    return value.quantize(Decimal("0.001"), ROUND_HALF_UP)
