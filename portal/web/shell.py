"""The site's header and footer, rendered once per user, area and language and kept.

Every page of the portal draws the same header (skip link, the areas the role may see, the company switch,
the language switch, sign-out) and footer: about a sixth of a receipt page's CPU when rendered on every request
(docs/PERFORMANCE.md, target 5). What they show is a pure function of the session's user (identity, companies,
chosen company), the language and the page's area, which is the key here, so a change to any of them is a new
entry, never a stale one. Two things differ from one page to the next within that: the page's own address (where
the switches come back to) and the session's CSRF token. The kept text holds slots for them, filled per request.

Anonymous pages (the landing page, sign-in) are rendered every time: their language link carries the address in
its query, and they are few.
"""

from __future__ import annotations

import hashlib

from flask import current_app, request, session
from flask_babel import get_locale
from flask_login import current_user
from flask_wtf.csrf import generate_csrf
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from portal.lru import LruStore

PARTS = ("header", "footer")
# Control characters: never in a template's text, a translation or a name the session holds (the service refuses
# them); an address may spell one (its path is decoded), so the address is filled last.
_NEXT_SLOT = Markup("\x00next\x00")
_CSRF_SLOT = Markup("\x00csrf\x00")


def _kept() -> LruStore[tuple[str, ...], str]:
    store = current_app.extensions.get("site_parts")
    if store is None:
        store = current_app.extensions.setdefault("site_parts", LruStore(1024))
    return store


def _area() -> str:
    return request.endpoint.split(".")[0] if request.endpoint else ""


def _kept_here() -> bool:
    """Signed in, and templates not reloaded from disk as they change (development)."""
    return bool(current_user.is_authenticated) and not current_app.jinja_env.auto_reload


@pass_context
def site_part(context: Context, part: str) -> Markup:
    """templates/_site_<part>.html for this request: kept per user, area and language when signed in."""
    template = current_app.jinja_env.get_template(f"_site_{part}.html")
    if not _kept_here():
        html = template.render(context.get_all(), shell_next=request.full_path, shell_csrf=None)
    else:
        # The user as the session holds them, as a digest: a member of hundreds of companies must not make each
        # key as long as their list.
        who = repr((session.get("user"), session.get("company_id"))).encode()
        key = (part, str(get_locale() or "es"), _area(), hashlib.blake2b(who, digest_size=16).hexdigest())
        kept = _kept().get(key)
        if kept is None:
            kept = template.render(context.get_all(), shell_next=_NEXT_SLOT, shell_csrf=_CSRF_SLOT)
            _kept().put(key, kept)
        # The token first, then the address: an address that spells a slot (its path is decoded, so "%00csrf%00"
        # is one) must stay what it is, never become the session's token.
        html = kept.replace(_CSRF_SLOT, generate_csrf()) if _CSRF_SLOT in kept else kept
        html = html.replace(_NEXT_SLOT, escape(request.full_path)) if _NEXT_SLOT in html else html
    # An autoescaped template's output (and, in its slots, the escaped address and a token of URL-safe characters).
    return Markup(html)  # noqa: S704
