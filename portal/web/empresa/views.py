"""What every view of the empresa area shares: the service's refusals a form shows, dates and times as
people here write them, and the sub-navigation between the area's pages."""

from __future__ import annotations

from dataclasses import dataclass

from babel.numbers import format_decimal
from flask_babel import get_locale
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
    Tab("empresa.mail", _l("Correo al cliente")),
    Tab("empresa.contingency", _l("Contingencia")),
    Tab("empresa.people", _l("Personas")),
    Tab("empresa.audit", _l("Auditoría")),
)


def count(number: int) -> str:
    """100.000 in Spanish, 100,000 in English."""
    return format_decimal(number, locale=str(get_locale() or "es"))
