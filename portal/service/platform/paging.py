"""The one list contract of the API: `cursor` and `limite` in; `items` and `siguienteCursor` (and totals where
the list has them) out; newest first; keyset pagination.

A cursor is the sort key of the last row of a page (its values, each tagged with its kind, as url-safe base64
of JSON), so a row written while someone pages can only appear before the page they are on: the rest never
shifts or repeats. Every list sorts descending on columns whose last one is unique.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Select, tuple_
from sqlalchemy.orm import Session

from portal.service.platform.errors import FieldError, ValidationFailed
from portal.service.platform.pydantic_errors import PARAMETERS

CURSOR_PATTERN = r"^[A-Za-z0-9_-]{1,200}$"
CURSOR_DESCRIPTION = "El `siguienteCursor` de la página anterior; sin él, la primera página."
T = TypeVar("T")


class PageQuery(BaseModel):
    """`cursor` and `limite`: a list's own query subclasses this and may narrow `limite`."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    cursor: str | None = Field(None, max_length=200, pattern=CURSOR_PATTERN, description=CURSOR_DESCRIPTION)
    limite: int = Field(50, ge=1, le=200, description="Cuántos por página (50 si no se indica, hasta 200).")


class Page(BaseModel, Generic[T]):  # noqa: UP046 - pydantic generics, Python 3.11
    """A page of a list, newest first. Subclass it with the item type, so OpenAPI names the list."""

    model_config = ConfigDict(populate_by_name=True)

    items: list[T]
    # Required, so that the last page answers it null (responses.dump) rather than leaving it out: a client reads
    # one key on every list.
    siguiente_cursor: str | None = Field(
        alias="siguienteCursor",
        description="Pasalo como `cursor` para la página siguiente; null en la última.",
    )


def _tagged(value: Any) -> list:
    if isinstance(value, datetime):
        return ["t", value.isoformat()]
    if isinstance(value, date):
        return ["d", value.isoformat()]
    if isinstance(value, bool | int):
        return ["i", int(value)]
    return ["s", str(value)]


_READERS: dict[str, Callable[[str], Any]] = {"t": datetime.fromisoformat, "d": date.fromisoformat, "i": int, "s": str}


def _untagged(pair: list[str]) -> Any:
    kind, raw = pair
    return _READERS[kind](raw)


def encode_cursor(key: Sequence[Any]) -> str:
    raw = json.dumps([_tagged(v) for v in key], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, length: int) -> tuple:
    """The sort key a cursor names; ValueError if encode_cursor did not make it for a key of `length`."""
    try:
        values = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        key = tuple(_untagged(pair) for pair in values)
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError, KeyError) as exc:
        raise ValueError(cursor) from exc
    if len(key) != length:
        raise ValueError(cursor)
    return key


def invalid_cursor() -> ValidationFailed:
    """A cursor that fits the pattern but was not made by this list: what any other bad cursor answers."""
    code, message = PARAMETERS["cursor"]
    return ValidationFailed([FieldError("cursor", code, message)])


def keyset(
    session: Session,
    query: Select,
    order: Sequence[Any],
    cursor: str | None,
    limite: int,
    key: Callable[[Any], Sequence[Any]],
    *,
    ascending: bool = False,
) -> tuple[list, str | None]:
    """One page of `query` sorted by `order` descending (`ascending`: for a list read in its own order, such as
    people by role and name), and the next page's cursor (None on the last). `key(row)` gives a row's values of
    `order`. A cursor that is not ours is a 422 on `cursor`. The row-value comparison lets SQLite and PostgreSQL
    start the walk of an index on `order` at the cursor."""
    if cursor:
        try:
            bound = decode_cursor(cursor, len(order))
        except ValueError as exc:
            raise invalid_cursor() from exc
        query = query.where(tuple_(*order) > bound if ascending else tuple_(*order) < bound)
    sort = [column.asc() if ascending else column.desc() for column in order]
    rows = session.execute(query.order_by(*sort).limit(limite + 1)).all()
    if len(rows) <= limite:
        return list(rows), None
    return list(rows[:limite]), encode_cursor(key(rows[limite - 1]))
