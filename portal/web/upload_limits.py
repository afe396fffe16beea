"""Upload forms that say in place that a file is too large.

A request over MAX_CONTENT_LENGTH (2 MB and a little, the portal's default) is refused before any view runs,
with the generic "too large" page: what the user typed beside the file is lost. A form whose file field checks
its own size (wtforms' FileSize) marks its view with `checks_file_sizes`: its requests may be as large as
FILE_CHECK_CEILING, so a wrong file (a 5 MB PDF picked instead of the .p12) reaches the form, which names the
field and keeps the rest. Larger requests still get the generic page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import Flask, request

FILE_CHECK_CEILING = 16 * 1024 * 1024

View = TypeVar("View", bound=Callable)


def checks_file_sizes(view: View) -> View:
    """Mark a view whose form checks each file's size itself (put it right under the route decorator)."""
    view.checks_file_sizes = True  # type: ignore[attr-defined]
    return view


def init_app(app: Flask) -> None:
    """Call before CSRFProtect's init_app: its check reads the form, and with it the whole body."""

    @app.before_request
    def _raise_the_limit_for_forms_that_check_sizes() -> None:
        view = app.view_functions.get(request.endpoint or "")
        if view is not None and getattr(view, "checks_file_sizes", False):
            request.max_content_length = FILE_CHECK_CEILING
