"""The API keys page: admins list, create, revoke and re-limit their company's keys; `soporte` reads.

A new key's secret exists in exactly one response: the one to the create POST (a fragment for htmx, the
page otherwise), never in a URL, a redirect, a flash or a log, and every answer here is `no-store`.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, abort, flash, request
from flask_babel import gettext as _
from flask_login import current_user

from portal.client.apikeys import ApiKey, NewApiKey, RateLimit
from portal.client.errors import NotFound, ValidationError
from portal.domain import roles
from portal.web import paging
from portal.web.apikeys.forms import CreateKeyForm, RateLimitForm
from portal.web.auth.session import admin_required, reader_required
from portal.web.backend import api
from portal.web.forms_common import apply_service_errors
from portal.web.rendering import redirect_after_post, render, wants_fragment

bp = Blueprint("apikeys", __name__, url_prefix="/apikeys")
TEMPLATE = "apikeys/index.html"


@dataclass(frozen=True)
class KeyRow:
    """A key as the table shows it; `form` (its limit, editable) only for admins and active keys."""

    key: ApiKey
    form: RateLimitForm | None


def _can_manage() -> bool:
    return current_user.role in roles.ADMINS


def _row(key: ApiKey, form: RateLimitForm | None = None) -> KeyRow:
    if not (_can_manage() and key.active):
        return KeyRow(key, None)
    if form is None:
        form = RateLimitForm(
            prefix=key.id,
            formdata=None,
            data={"limite": key.rate_limit.limit, "ventana": key.rate_limit.window_seconds},
        )
    return KeyRow(key, form)


def _context(*, forms: dict[str, RateLimitForm] | None = None, **extra) -> dict:
    forms = forms or {}
    paged = paging.load("apikeys.index", lambda cursor: api().list_api_keys(cursor=cursor))
    rows = [_row(key, forms.get(key.id)) for key in paged.items]
    extra.setdefault("create_form", CreateKeyForm(formdata=None))
    return {"rows": rows, "paged": paged, "can_manage": _can_manage(), **extra}


def _find_key(key_id: str) -> ApiKey | None:
    """The company's key with this id, looked for page by page."""
    cursor = None
    while True:
        page = api().list_api_keys(cursor=cursor, limit=200)
        found = next((k for k in page.items if k.id == key_id), None)
        if found or not page.next_cursor:
            return found
        cursor = page.next_cursor


def _no_store(response):
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/")
@reader_required
def index():
    """The company's keys with their limit, current usage and history."""
    return _no_store(render(TEMPLATE, "keys", **_context()))


@bp.post("/")
@admin_required
def create():
    """Create a key and show its secret, once, in this very response."""
    form = CreateKeyForm()
    if form.validate():
        try:
            created = api().create_api_key(form.nombre.data, RateLimit(form.limite.data, form.ventana.data))
        except ValidationError as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            return _no_store(_created(created))
    if wants_fragment():
        return _no_store(render(TEMPLATE, "create_form", status=422, create_form=form, can_manage=True))
    return _no_store(render(TEMPLATE, status=422, **_context(create_form=form, open_dialog=True)))


def _created(created: NewApiKey):
    flash(_("Creaste la clave «%(name)s».", name=created.key.name), "success")
    context = _context(created=created)
    # For htmx, the dialog's form comes back empty (and closes the dialog); the secret and the fresh list
    # ride out of band into their places on the page.
    return render(TEMPLATE, "create_form", status=201, oob_blocks=("new_key", "keys"), **context, dialog_done=True)


@bp.route("/<key_id>/revocar", methods=["GET", "POST"])
@admin_required
def revoke(key_id: str):
    """Revoke a key: it stops working on its next request. GET asks first on a page of its own (a browser
    without script; with script the list asks in a dialog and posts here)."""
    if request.method == "GET":
        asked = _find_key(key_id)
        if asked is None or not asked.active:
            abort(404)
        return _no_store(render("apikeys/revoke.html", key=asked))
    key = api().revoke_api_key(key_id)
    flash(_("Revocaste la clave «%(name)s»: ya no se puede usar.", name=key.name), "success")
    if wants_fragment():
        return _no_store(render(TEMPLATE, "row", row=_row(key), can_manage=True))
    return redirect_after_post("apikeys.index")


@bp.post("/<key_id>/rate-limit")
@admin_required
def rate_limit(key_id: str):
    """Change a key's limit in place; invalid input comes back next to the field (422)."""
    form = RateLimitForm(prefix=key_id)
    if form.validate():
        try:
            key = api().set_api_key_rate_limit(key_id, RateLimit(form.limite.data, form.ventana.data))
        except ValidationError as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            flash(
                _(
                    "La clave «%(name)s» ahora admite %(limit)s solicitudes cada %(window)s segundos.",
                    name=key.name,
                    limit=key.rate_limit.limit,
                    window=key.rate_limit.window_seconds,
                ),
                "success",
            )
            if wants_fragment():
                return _no_store(render(TEMPLATE, "row", row=_row(key), can_manage=True))
            return redirect_after_post("apikeys.index")
    if wants_fragment():
        found = _find_key(key_id)
        if found is None:
            raise NotFound(_("No existe esa clave."), status=404)
        return _no_store(render(TEMPLATE, "row", status=422, row=_row(found, form), can_manage=True))
    return _no_store(render(TEMPLATE, status=422, **_context(forms={key_id: form})))
