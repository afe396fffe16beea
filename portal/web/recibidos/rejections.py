"""Rejecting several received CFEs at once from the list: one motive for the chosen rows, asked first (in a
dialog with script, on a page of its own without), then each one's outcome: the rejected ones counted, each one
that could not be rejected named with why, the ones not found counted. Each is answered to its supplier as a
rejection of it alone (the service's rules and answer)."""

from __future__ import annotations

from typing import Any

from flask import flash, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext

from portal.client.errors import Conflict, ValidationError
from portal.client.recibidos import REJECT_MANY_LIMIT, RejectedMany
from portal.domain.digits import ascii_number
from portal.web.auth.session import writer_required
from portal.web.backend import api
from portal.web.comprobantes.choices import type_name
from portal.web.forms_common import apply_service_errors
from portal.web.recibidos import bp
from portal.web.recibidos.forms import RejectManyForm, list_filters
from portal.web.rendering import redirect_after_post, render

REJECT_MANY = "recibidos/reject_many.html"


def _chosen() -> tuple[int, ...]:
    """The ids chosen in the list (the rows' boxes), each once, in the list's order."""
    numbers = (ascii_number(value) for value in request.form.getlist("ids"))
    return tuple(dict.fromkeys(n for n in numbers if n is not None))


def _refused(chosen: tuple[int, ...]) -> str | None:
    """Why nothing can be asked: none chosen, or more than one call rejects (the list shows fewer on a page)."""
    if not chosen:
        return _("Elegí al menos un comprobante para rechazar.")
    if len(chosen) > REJECT_MANY_LIMIT:
        return _("Se pueden rechazar hasta %(num)d comprobantes por vez.", num=REJECT_MANY_LIMIT)
    return None


def _question(form: RejectManyForm, chosen: tuple[int, ...], *, status: int = 200):
    back: dict[str, Any] = dict(list_filters())  # url_for's own keywords (_external...) are typed apart
    return render(
        REJECT_MANY,
        "dialog",
        status=status,
        form=form,
        ids=chosen,
        count=len(chosen),
        action=url_for("recibidos.reject_many", **back),
        back=url_for("recibidos.index", **back),
    )


@bp.post("/rechazar/pregunta")
@writer_required
def reject_many_question():
    """Ask for the motive of the CFEs chosen in the list, and how many they are (htmx: the list's dialog; a browser
    without script: a page of its own). Nothing is rejected here."""
    chosen = _chosen()
    if refusal := _refused(chosen):
        flash(refusal, "error")
        return redirect_after_post("recibidos.index", **list_filters())
    return _question(RejectManyForm(formdata=None), chosen)


@bp.post("/rechazar")
@writer_required
def reject_many():
    """Reject the chosen CFEs with one motive, and tell each supplier (a second ACKCFE, BE); back to the list as it
    was filtered, with each one's outcome."""
    form, chosen = RejectManyForm(), _chosen()
    if refusal := _refused(chosen):
        flash(refusal, "error")
        return redirect_after_post("recibidos.index", **list_filters())
    if not form.validate():
        return _question(form, chosen, status=422)
    detail = (form.detalle.data or "").strip() or None
    try:
        done = api().reject_many_received(chosen, form.motivo.data, detail, idempotency_key=form.idempotency_key.data)
    except ValidationError as exc:
        apply_service_errors(form, exc, RejectManyForm.SERVICE_FIELDS)
        return _question(form, chosen, status=422)
    except Conflict as exc:  # the same click still being done: its outcome shows once it is
        flash(exc.message, "warning")
        return redirect_after_post("recibidos.index", **list_filters())
    _say_outcome(done)
    return redirect_after_post("recibidos.index", **list_filters())


def _say_outcome(done: RejectedMany) -> None:
    """Every chosen CFE is accounted for: none is left out unsaid."""
    if done.rejected:
        flash(
            ngettext(
                "Rechazaste %(num)d comprobante; se le avisa a su proveedor, que debe emitir la nota que lo corrija.",
                "Rechazaste %(num)d comprobantes; se le avisa a cada proveedor, que debe emitir la nota que los "
                "corrija.",
                len(done.rejected),
            ),
            "success",
        )
    for refused in done.not_rejectable:
        which = f"{type_name(refused.tipo_cfe) if refused.tipo_cfe else _('Documento')} {refused.number}"
        flash(_("No se rechazó %(cfe)s: %(why)s", cfe=which, why=refused.message), "error")
    if done.missing:
        flash(
            ngettext(
                "No se rechazó %(num)d de los elegidos: no existe en la empresa.",
                "No se rechazaron %(num)d de los elegidos: no existen en la empresa.",
                len(done.missing),
            ),
            "error",
        )
