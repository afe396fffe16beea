"""The one place that decides "fragment or full page" for htmx, and the helpers views use to answer.

A request made by htmx (and not boosted, and not a history restore) gets only the named block of the page
template (jinja2-fragments); everything else gets the full page. Responses vary on HX-Request so caches
never mix the two.
"""

from __future__ import annotations

from flask import get_flashed_messages, make_response, render_template, url_for
from flask_htmx import make_response as htmx_response
from jinja2_fragments.flask import render_block

from portal.web.extensions import htmx


def wants_fragment() -> bool:
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def render(template: str, block: str | None = None, *, status: int = 200, oob_blocks: tuple[str, ...] = (), **context):
    """Render `block` of `template` for htmx, the whole page otherwise. Flashes ride along out of band, and so
    do `oob_blocks` (other parts of the page the answer updates, rendered with `oob=True`)."""
    if block and wants_fragment():
        return fragment(template, block, status=status, oob_blocks=oob_blocks, **context)
    # A form sent back with its errors (422) says so in the page's title too (base.html), as GOV.UK services do.
    response = make_response(render_template(template, form_has_errors=status == 422, **context), status)
    response.vary.add("HX-Request")
    return response


def fragment(template: str, block: str, *, status: int = 200, oob_blocks: tuple[str, ...] = (), **context):
    """Only `block` of `template`, for endpoints that only ever answer a part of a page (the hint beside a
    field, a badge that polls itself), and for render's htmx answers."""
    body = render_block(template, block, **context)
    for name in oob_blocks:
        body += render_block(template, name, **{**context, "oob": True})
    if any(True for _ in get_flashed_messages(with_categories=True)):
        body += render_template("_flashes.html", oob=True)
    response = make_response(body, status)
    response.vary.add("HX-Request")
    return response


def redirect_after_post(endpoint: str, **values):
    """303 for a plain form post; HX-Redirect for htmx (the browser does a full navigation)."""
    target = url_for(endpoint, **values)
    if htmx:
        response = htmx_response("", 200, redirect=target)
    else:
        response = make_response("", 303)
        response.headers["Location"] = target
    response.vary.add("HX-Request")
    return response
