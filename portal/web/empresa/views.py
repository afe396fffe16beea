"""What every view of the empresa area shares: the admin guard, mapping the service's refusals onto a
form, and the sub-navigation between the area's pages."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l

from portal.client.errors import BadRequest, Conflict, ValidationError

# The service's refusals a person can fix by changing what they sent (413 arrives as BadRequest).
REFUSALS = (ValidationError, Conflict, BadRequest)


@dataclass(frozen=True)
class Tab:
    endpoint: str
    label: object


TABS = (
    Tab("empresa.settings", _l("Datos fiscales")),
    Tab("empresa.branches", _l("Sucursales")),
    Tab("empresa.logo", _l("Logo")),
    Tab("empresa.certificates", _l("Certificados")),
    Tab("empresa.cae", _l("CAE")),
    Tab("empresa.audit", _l("Auditoría")),
)


def place_refusal(form, exc, default_field: str | None = None) -> None:
    """The service's field errors next to the form's fields; a refusal without one goes next to
    `default_field` (an upload's file) or, failing that, above the form."""
    if form.apply_service_errors(exc.field_messages()):
        return
    if default_field:
        form[default_field].errors = [*form[default_field].errors, exc.message]
    else:
        form.form_errors.append(exc.message)
