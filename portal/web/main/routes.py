"""Home, company and language switches."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from flask import abort, current_app, flash, redirect, request, session, url_for
from flask_babel import format_number, format_time
from flask_babel import gettext as _
from flask_login import current_user
from werkzeug.exceptions import HTTPException

from portal.client.errors import CfeError, ServiceUnavailable
from portal.web.auth.session import member_required, safe_next, signed_in_required
from portal.web.backend import api
from portal.web.i18n import SUPPORTED_LOCALES, remember_language
from portal.web.main import bp
from portal.web.main.home import actions_for, home_view
from portal.web.rendering import render, wants_fragment

log = logging.getLogger(__name__)


@bp.get("/")
def home():
    """The company's day at a glance, and the main actions of the user's role."""
    if not current_user.is_authenticated:
        return render("public_home.html")
    return _home_page()


@bp.get("/resumen")
@member_required
def day_summary():
    """The day's summary, fresh from the service (the home page's refresh button swaps it in)."""
    return _home_page()


def _home_page():
    """With the service down the page still opens (the actions need no data) and says what to do;
    an htmx refresh instead keeps the summary on screen and shows the global banner."""
    try:
        view, status = home_view(api().get_day_summary()), 200
    except ServiceUnavailable:
        if wants_fragment():
            raise
        view, status = None, 503
    return render(
        "home.html",
        "summary",
        status=status,
        view=view,
        actions=actions_for(current_user.role),
        received=_received_summary() if view is not None else None,
        number=format_number,
        as_of=format_time(datetime.now(UTC), "HH:mm:ss"),
    )


def _received_summary():
    """The received CFEs' day at a glance; the home still opens without it (an older service, a hiccup)."""
    try:
        return api().received_summary()
    except CfeError:
        return None


@bp.post("/empresa")
@signed_in_required
def switch_company():
    """Work within another of the user's companies."""
    wanted = request.form.get("company_id", type=int)
    if wanted is None or not any(c.id == wanted for c in current_user.companies):
        abort(403)
    session["company_id"] = wanted
    company = next(c for c in current_user.companies if c.id == wanted)
    flash(_("%(name)s: ahora trabajás en esta empresa.", name=company.name), "info")
    return redirect(_same_page_for_another_company(safe_next(request.form.get("next"))), code=303)


def _same_page_for_another_company(path: str | None) -> str:
    """Back to the page the user was on; a record's page (its URL names an id of the other company) becomes
    its area's list, and anything unknown the home page."""
    if not path:
        return url_for("main.home")
    adapter = current_app.url_map.bind("")
    try:
        endpoint, arguments = adapter.match(path.split("?")[0], method="GET")
    except HTTPException:
        return url_for("main.home")
    if not arguments:
        return path
    index = f"{endpoint.split('.')[0]}.index"
    return url_for(index) if index in current_app.view_functions else url_for("main.home")


@bp.post("/idioma")
def switch_language():
    """Switch between Spanish (Uruguay) and English (signed-in users' form, CSRF-checked); remembered in the
    session and in the language cookie, so it outlives signing out."""
    lang = request.form.get("lang", "es")
    response = redirect(safe_next(request.form.get("next")) or url_for("main.home"), code=303)
    if lang in SUPPORTED_LOCALES:
        session["lang"] = lang
        remember_language(response, lang)
        if current_user.is_authenticated:
            _store_language(lang)
    return response


def _store_language(lang: str) -> None:
    """The user's language kept by the service too, as signing in keeps it: the e-mails it sends them (an admin's
    notices) follow the portal's switch, not only their last sign-in. Not kept is only logged: the portal is
    already in that language, and the next sign-in keeps it."""
    try:
        api().set_language(lang)
    except CfeError as exc:
        log.warning("language not kept by the service: %s %s request_id=%s", exc.status, exc.code, exc.request_id)


@bp.get("/idioma/<lang>")
def choose_language(lang: str):
    """The anonymous visitor's language switch: a link that only sets the language cookie. It needs no session
    (a CSRF token would make every anonymous page view store one), and a forged link can do no more than
    change the language, which the visitor sees and switches back."""
    if lang not in SUPPORTED_LOCALES:
        abort(404)
    return remember_language(redirect(safe_next(request.args.get("next")) or url_for("main.home"), code=303), lang)


@bp.get("/healthz")
def healthz():
    """Liveness of the portal itself."""
    return {"status": "ok"}
