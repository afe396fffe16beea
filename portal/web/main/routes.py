"""Home, company and language switches."""

from __future__ import annotations

from flask import abort, current_app, flash, redirect, request, session, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required
from werkzeug.exceptions import HTTPException

from portal.web.auth.session import safe_next
from portal.web.backend import api
from portal.web.i18n import SUPPORTED_LOCALES
from portal.web.main import bp
from portal.web.rendering import render


@bp.get("/")
def home():
    """Who is signed in, their role and company, as the service reports it."""
    if not current_user.is_authenticated:
        return render("public_home.html")
    return _home_page()


@bp.get("/sesion")
@login_required
def session_card():
    """The "your session" card, fresh from the service (the home page's refresh button)."""
    return _home_page()


def _home_page():
    me = api().userinfo()
    company = me.company(session.get("company_id"))
    return render("home.html", "who", me=me, company=company)


@bp.post("/empresa")
@login_required
def switch_company():
    """Work within another of the user's companies."""
    wanted = request.form.get("company_id", type=int)
    if wanted is None or not any(c.id == wanted for c in current_user.companies):
        abort(403)
    session["company_id"] = wanted
    company = next(c for c in current_user.companies if c.id == wanted)
    flash(_("Ahora trabajás en %(name)s.", name=company.name), "info")
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
    """Switch between Spanish (Uruguay) and English; remembered in the session."""
    lang = request.form.get("lang", "es")
    if lang in SUPPORTED_LOCALES:
        session["lang"] = lang
    return redirect(safe_next(request.form.get("next")) or url_for("main.home"), code=303)


@bp.get("/healthz")
def healthz():
    """Liveness of the portal itself."""
    return {"status": "ok"}
