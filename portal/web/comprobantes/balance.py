"""What is left of a receipt after its partial credit notes, as lines: the credit note that cancels the rest."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from decimal import Decimal

from portal.client.cfe import Line


def _key(line: Line) -> tuple:
    return (line.name, line.unit_price, line.ind_fact, line.unit)


def _plain(line: Line) -> bool:
    """A line whose amount is its quantity times its price (a percentage discount or surcharge scales with it)."""
    return not (line.discount or line.surcharge or line.retentions)


def rest_lines(original: tuple[Line, ...], credited: Iterable[tuple[Line, ...]]) -> tuple[Line, ...] | None:
    """The original's lines less what each credit note took (a note's line matched to an original line of the
    same item, price, IVA indicator and unit; its quantity taken off). None when that cannot be said for sure: a
    line of a note that matches none with enough quantity left, or a line with an amount discount, a surcharge
    or retentions (then a person says what is left, in the partial note form)."""
    if not all(_plain(line) for line in original):
        return None
    left = [line.quantity or Decimal(0) for line in original]
    for note_lines in credited:
        for taken in note_lines:
            wanted = taken.quantity or Decimal(0)
            match = next(
                (i for i, line in enumerate(original) if _key(line) == _key(taken) and left[i] >= wanted), None
            )
            if match is None or not _plain(taken):
                return None
            left[match] -= wanted
    return tuple(
        replace(line, quantity=quantity) for line, quantity in zip(original, left, strict=True) if quantity > 0
    )
