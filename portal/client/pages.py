"""One page of any list of the service (its list contract: `cursor` and `limite` in; `items`,
`siguienteCursor` and, where the list has them, totals out; newest first)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, TypeVar

from portal.client.models import JsonObject

T = TypeVar("T")


@dataclass(frozen=True)
class CurrencyTotal:
    """How many of a list's rows are in `currency`, and their amounts added (credit notes subtract)."""

    currency: str
    count: int
    total: Decimal


@dataclass(frozen=True)
class Page(Generic[T]):  # noqa: UP046 - Python 3.11 has no class type parameters
    """A page of a list: its items, the cursor of the next page (None on the last) and, where the list
    counts them, how many match in all (`total`), per currency (`totals`) and how many are late (`overdue`).
    `total_bounded`: more than `total` match, and `totals` is empty (the list adds up only so many)."""

    items: tuple[T, ...]
    next_cursor: str | None = None
    total: int | None = None
    totals: tuple[CurrencyTotal, ...] = ()
    overdue: int | None = None
    total_bounded: bool = False

    @classmethod
    def from_json(cls, data: JsonObject, item: Callable[[JsonObject], T]) -> Page[T]:
        def count(key: str) -> int | None:
            return int(data[key]) if data.get(key) is not None else None

        return cls(
            items=tuple(item(i) for i in data["items"]),
            next_cursor=data.get("siguienteCursor"),
            total=count("total"),
            totals=tuple(
                CurrencyTotal(t["moneda"], int(t["cantidad"]), Decimal(t["mntTotal"])) for t in data.get("totales", ())
            ),
            overdue=count("demorados"),
            total_bounded=bool(data.get("totalAcotado")),
        )


def page_params(cursor: str | None, limit: int | None) -> dict[str, str | int]:
    """The query parameters that ask for a page."""
    return {k: v for k, v in (("cursor", cursor), ("limite", limit)) if v is not None}
