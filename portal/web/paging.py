"""The one paged-view helper of the portal's list pages: a page of a service list (`portal.client.pages.Page`)
and the links to the next page and back to the first, with the page's filters kept in the URL."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from flask import request, url_for

from portal.client.errors import ValidationError
from portal.client.pages import Page

T = TypeVar("T")
MAX_CURSOR = 200


@dataclass(frozen=True)
class PagedView(Generic[T]):  # noqa: UP046 - Python 3.11 has no class type parameters
    """What a list template shows: the page (None when the query was refused), `next_url` (None on the last
    page) and `first_url` (None on the first page)."""

    page: Page[T] | None
    next_url: str | None
    first_url: str | None

    @property
    def items(self) -> tuple[T, ...]:
        return self.page.items if self.page else ()

    @property
    def total(self) -> int:
        return (self.page.total or 0) if self.page else 0


def requested_cursor(param: str = "cursor") -> str | None:
    """The page the URL asks for: its cursor (`param`), or None for the first page (an overlong one is none)."""
    cursor = request.args.get(param) or None
    return cursor if cursor is None or len(cursor) <= MAX_CURSOR else None


def load(
    endpoint: str,
    fetch: Callable[[str | None], Page[T]],
    filters: Mapping[str, str] | None = None,
    *,
    param: str = "cursor",
) -> PagedView[T]:
    """The page the URL asks for of a list with no filters of its own to validate: `fetch(cursor)` asks the
    service; a cursor the service refuses (an old or hand-edited link) gives the first page. `param` names
    the URL's cursor, for a page that shows several lists."""
    cursor = requested_cursor(param)
    try:
        page = fetch(cursor)
    except ValidationError:
        cursor, page = None, fetch(None)
    return paged_view(endpoint, page, filters or {}, cursor, param=param)


def paged_view(
    endpoint: str, page: Page[T] | None, filters: Mapping[str, str], cursor: str | None, *, param: str = "cursor"
) -> PagedView[T]:
    """The view of `page`, asked for with `cursor`, of the list at `endpoint` narrowed by `filters` (URL args)."""
    args: dict[str, Any] = dict(filters)
    following = url_for(endpoint, **{**args, param: page.next_cursor}) if page and page.next_cursor else None
    return PagedView(page, following, url_for(endpoint, **args) if cursor else None)
