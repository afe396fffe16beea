"""A receipt's number as DGI prints it and as people type it: a serie of one or two letters and a number
of up to seven digits ("A-0000015"). One grammar for every place that reads one (the receipt list, smart
issuance's requests) and one way to write it."""

from __future__ import annotations

import re
from dataclasses import dataclass

# What a person may type: an optional serie ("A", "AB", or DGI's "1A" form), then a dash, spaces or nothing,
# then the number with or without DGI's leading zeros: "A-15", "a 0000015", "A15", "1A 15", or only "15". A number
# is 1 to 9,999,999, so "A-0000000" is none (the OpenAPI document says so with this same pattern).
PATTERN = r"^\s*(?:([A-Za-z]{1,2}|[1-9][A-Za-z])\s*-?\s*)?0*([1-9][0-9]{0,6})\s*$"
MAX_TYPED = 40
_TYPED = re.compile(PATTERN)
# A number as `printed` writes it, inside a text ("Nota de crédito de e-Factura A-0000001"): its serie, a dash and
# its digits, fewer than seven in a received CFE's number as its issuer sent it ("A-15"), standing on their own.
PRINTED_IN_TEXT = re.compile(r"(?<![\w.-])(?:[A-Z]{1,2}|[1-9][A-Z])-[0-9]{1,7}(?![\w-])")


@dataclass(frozen=True, order=True)
class ReceiptNumber:
    """`serie` None means "any serie" (a number typed without one); `number` is 1 to 9,999,999."""

    serie: str | None
    number: int

    @classmethod
    def parse(cls, text: str) -> ReceiptNumber:
        """The number a person typed; ValueError if it is not one."""
        match = _TYPED.match(text or "")
        if not match or len(text) > MAX_TYPED:
            raise ValueError(text)
        return cls(match[1].upper() if match[1] else None, int(match[2]))

    def __str__(self) -> str:
        return printed(self.serie, self.number) if self.serie else str(self.number)


def printed(serie: str, number: int) -> str:
    """How DGI prints a receipt's number: "A-0000015"."""
    return f"{serie}-{number:07d}"


def is_receipt_number(text: str) -> bool:
    try:
        ReceiptNumber.parse(text)
    except ValueError:
        return False
    return True
