"""What a CFE line's PrecioUnitario (B-C11) can carry: 17 digits, 6 of them decimals (DGI's PrecioUnitarioType), which
the product catalogue's price column (numeric(17, 6)) holds too."""

from __future__ import annotations

from decimal import Decimal

MAX_PRICE = Decimal("99999999999.999999")
# The same bound as the fields state it: below 10^11, which with 6 decimals is at most MAX_PRICE. As a JSON number
# (the OpenAPI document's) MAX_PRICE is 1e11 itself, so `le=MAX_PRICE` published a maximum the server refused.
PRICE_BOUND = Decimal(10) ** 11
