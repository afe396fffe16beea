"""The webhooks pages: admins list, register, change, test, rotate and delete the company's webhooks and
see every delivery attempt. A signing secret exists in exactly one response (the create or rotate POST),
never in a URL, a redirect, a flash or a log; every answer here is `no-store`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from flask import Blueprint, flash, request
from flask_babel import gettext as _

from portal.client.errors import Conflict, ValidationError
from portal.client.webhooks import AttemptPage, DeliveryAttempt, NewSecret, WebhookRequest
from portal.web.auth.session import admin_required
from portal.web.backend import api
from portal.web.forms_common import apply_service_errors
from portal.web.rendering import fragment, redirect_after_post, render
from portal.web.webhooks.forms import EVENT_LABELS, RotateForm, WebhookForm

bp = Blueprint("webhooks", __name__, url_prefix="/webhooks")
INDEX, DETAIL = "webhooks/index.html", "webhooks/detail.html"
_EVENT_ID = re.compile(r"^evt_[0-9a-f]{32}$")
# After "Enviar evento de prueba" the page asks every 2 s for the test's attempt, for a minute at most (a worker
# that is not running would leave it asking forever).
POLLS = 30


@dataclass(frozen=True)
class DeliveryStatus:
    """What the page says beside the badge: the last attempt (a test event's included) and, after a test was
    sent, whether its attempt is still awaited (`awaiting`, the event's id) or was awaited in vain (`gave_up`)."""

    last: DeliveryAttempt | None
    awaiting: str | None = None
    polls: int = 0
    gave_up: bool = False
    arrived: bool = False  # the test's attempt came in while the page was asking: read it out

    @classmethod
    def of(cls, attempts: AttemptPage, tested: str | None = None, polls: int = 0) -> DeliveryStatus:
        last = attempts.items[0] if attempts.items else None
        if not tested or not _EVENT_ID.match(tested):
            return cls(last)
        if any(a.event_id == tested for a in attempts.items):
            return cls(last, arrived=polls > 0)
        if polls >= POLLS:
            return cls(last, gave_up=True)
        return cls(last, awaiting=tested, polls=polls)


def _polls() -> int:
    return request.args.get("vez", 0, type=int) or 0


def _no_store(response):
    response.headers["Cache-Control"] = "no-store"
    return response


def _request(form: WebhookForm) -> WebhookRequest:
    return WebhookRequest(form.url.data, tuple(form.eventos.data or ()), form.descripcion.data or "")


@bp.get("/")
@admin_required
def index():
    """The company's webhooks and the form to register one."""
    return _index(_empty_form())


def _empty_form() -> WebhookForm:
    return WebhookForm(formdata=None, data={"eventos": ["comprobante.aceptado", "comprobante.rechazado"]})


def _index(form: WebhookForm, *, status: int = 200, created: NewSecret | None = None):
    webhooks = api().list_webhooks()
    return _no_store(render(INDEX, status=status, webhooks=webhooks, form=form, created=created, labels=EVENT_LABELS))


@bp.post("/")
@admin_required
def create():
    """Register a webhook and show its signing secret, once, in this very response."""
    form = WebhookForm()
    if form.validate():
        try:
            created = api().create_webhook(_request(form))
        except ValidationError as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            flash(_("Registraste el webhook %(url)s.", url=created.webhook.url), "success")
            return _index(_empty_form(), status=201, created=created)
    return _index(form, status=422)


@bp.get("/<webhook_id>")
@admin_required
def detail(webhook_id: str):
    """One webhook: its settings, its actions and its delivery attempts."""
    webhook = api().get_webhook(webhook_id)
    form = WebhookForm(
        formdata=None, data={"url": webhook.url, "descripcion": webhook.description, "eventos": list(webhook.events)}
    )
    return _detail(webhook_id, form)


def _detail(
    webhook_id: str,
    form: WebhookForm,
    *,
    status: int = 200,
    secret: NewSecret | None = None,
    rotate_form: RotateForm | None = None,
):
    webhook = api().get_webhook(webhook_id)
    attempts = api().list_webhook_attempts(webhook_id, limit=50)
    return _no_store(
        render(
            DETAIL,
            status=status,
            webhook=webhook,
            form=form,
            rotate_form=rotate_form or RotateForm(formdata=None),
            attempts=attempts,
            delivery=DeliveryStatus.of(attempts, request.args.get("prueba")),
            secret=secret,
            labels=EVENT_LABELS,
        )
    )


@bp.get("/<webhook_id>/entregas")
@admin_required
def deliveries(webhook_id: str):
    """The badge, the last delivery and the attempts: what the page asks for every 2 s after a test event, until
    the test's attempt is listed (a part of the page, swapped in by htmx)."""
    webhook = api().get_webhook(webhook_id)
    attempts = api().list_webhook_attempts(webhook_id, limit=50)
    delivery = DeliveryStatus.of(attempts, request.args.get("prueba"), _polls())
    return _no_store(
        fragment(
            DETAIL,
            "delivery",
            oob_blocks=("attempts",),
            webhook=webhook,
            attempts=attempts,
            delivery=delivery,
            labels=EVENT_LABELS,
        )
    )


@bp.post("/<webhook_id>")
@admin_required
def update(webhook_id: str):
    """Change the URL, the description or the events."""
    form = WebhookForm()
    if form.validate():
        try:
            api().update_webhook(webhook_id, _request(form))
        except ValidationError as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            flash(_("Guardaste los cambios del webhook."), "success")
            return redirect_after_post("webhooks.detail", webhook_id=webhook_id)
    return _detail(webhook_id, form, status=422)


@bp.post("/<webhook_id>/prueba")
@admin_required
def test(webhook_id: str):
    """Queue a test event; its result shows beside the badge and in the list in seconds."""
    try:
        event_id = api().send_webhook_test(webhook_id)
    except Conflict as exc:  # a webhook that is off
        flash(exc.message, "error")
        return redirect_after_post("webhooks.detail", webhook_id=webhook_id)
    flash(
        _("Enviamos un evento de prueba: en unos segundos su resultado aparece junto al estado del webhook."), "success"
    )
    # The page waits for the test's attempt (the worker sends it a moment later): shown before it, the page said
    # "Activo" and "no attempts yet" until the admin thought of reloading it.
    return redirect_after_post("webhooks.detail", webhook_id=webhook_id, prueba=event_id)


@bp.post("/<webhook_id>/rotar")
@admin_required
def rotate(webhook_id: str):
    """A new signing secret, shown once; the old one signs too for the hours asked."""
    form = RotateForm()
    webhook = api().get_webhook(webhook_id)
    edit = WebhookForm(
        formdata=None, data={"url": webhook.url, "descripcion": webhook.description, "eventos": list(webhook.events)}
    )
    if not form.validate():  # the hours typed come back with their error beside them
        return _detail(webhook_id, edit, status=422, rotate_form=form)
    secret = api().rotate_webhook_secret(webhook_id, int(form.horas.data))
    return _detail(webhook_id, edit, secret=secret)


@bp.route("/<webhook_id>/estado", methods=["GET", "POST"])
@admin_required
def toggle(webhook_id: str):
    """Turn a webhook off once asked (GET: the question on its own page, for a browser without script; with script
    its page asks in a dialog and posts here), or back on (its failing streak forgotten)."""
    webhook = api().get_webhook(webhook_id)
    if request.method == "GET":
        if not webhook.active:
            return redirect_after_post("webhooks.detail", webhook_id=webhook_id)
        return render("webhooks/deactivate.html", webhook=webhook)
    api().set_webhook_active(webhook_id, not webhook.active)
    flash(_("Desactivaste el webhook.") if webhook.active else _("Activaste el webhook."), "success")
    return redirect_after_post("webhooks.detail", webhook_id=webhook_id)


@bp.route("/<webhook_id>/borrar", methods=["GET", "POST"])
@admin_required
def delete(webhook_id: str):
    """Delete a webhook with its pending deliveries and history, once asked (GET: the question on its own page,
    for a browser without script; with script its page asks in a dialog and posts here)."""
    if request.method == "GET":
        return render("webhooks/delete.html", webhook=api().get_webhook(webhook_id))
    api().delete_webhook(webhook_id)
    flash(_("Borraste el webhook."), "success")
    return redirect_after_post("webhooks.index")
