"""The notification centre: a bell with the unread count in the header (loaded after the page, so no page
waits for it), the notices page with each notice's "fix it" link, read and unread per person, and the
compliance watch's summary the home loads into itself."""

from __future__ import annotations

from flask import Blueprint
from flask_babel import lazy_gettext as _l
from flask_login import login_required

from portal.client.errors import ServiceUnavailable
from portal.web.backend import api
from portal.web.rendering import fragment, redirect_after_post, render, wants_fragment

bp = Blueprint("avisos", __name__, url_prefix="/avisos")
TEMPLATE = "avisos/index.html"
STATE_LABELS = {"ok": _l("Bien"), "warning": _l("Atención"), "problem": _l("Problema")}


@bp.get("/")
@login_required
def index():
    """Every notice of the company, newest first, and the watch as it stands now."""
    return render(TEMPLATE, "notices", page=api().list_notices(limit=50), health=api().health(), labels=STATE_LABELS)


@bp.get("/campana")
@login_required
def bell():
    """The header's bell with the unread count (a fragment the header loads)."""
    try:
        unread = api().unread_notices()
    except ServiceUnavailable:
        unread = None
    return fragment("avisos/_bell.html", "bell", unread=unread)


@bp.get("/salud")
@login_required
def health():
    """The compliance watch's summary, for the home page (a fragment it loads)."""
    return fragment("avisos/_health.html", "health", health=api().health(), labels=STATE_LABELS)


@bp.post("/<int:notice_id>/leido")
@login_required
def read(notice_id: int):
    """Mark one notice read, for this person."""
    api().mark_notice_read(notice_id)
    return _notices_again()


@bp.post("/leidos")
@login_required
def read_all():
    """Mark every notice read, for this person."""
    api().mark_all_notices_read()
    return _notices_again()


def _notices_again():
    if wants_fragment():
        page = api().list_notices(limit=50)
        return fragment(
            TEMPLATE, "notices", oob_blocks=("bell_oob",), page=page, labels=STATE_LABELS, unread=page.unread
        )
    return redirect_after_post("avisos.index")
