"""How an amount's currency is written for people in Uruguay: "$" for pesos, "U$S" for dollars, the ISO code
for any other. One table for the portal's and the service's formatters."""

from __future__ import annotations

CURRENCY_SIGNS: dict[str, str] = {"UYU": "$", "USD": "U$S"}


def currency_sign(currency: str | None) -> str:
    return CURRENCY_SIGNS.get(currency or "", currency or "")
