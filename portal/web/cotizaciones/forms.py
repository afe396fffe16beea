"""The rates page's form: a currency and a period (a GET form: the URL holds them, so a page can be shared)."""

from __future__ import annotations

from datetime import date, timedelta

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import SelectField, ValidationError
from wtforms.fields.choices import SelectChoice
from wtforms.validators import Optional

from portal.client.cotizaciones import CURRENCIES, MAX_PERIOD_DAYS
from portal.web.forms_common import DayField, PortalForm

DEFAULT_DAYS = 30
CURRENCY_LABELS = {
    "USD": _l("USD · dólar estadounidense"),
    "EUR": _l("EUR · euro"),
    "ARS": _l("ARS · peso argentino"),
    "BRL": _l("BRL · real"),
    "UI": _l("UI · unidad indexada"),
}


class RatesForm(PortalForm):
    class Meta:
        csrf = False

    moneda = SelectField(_l("Moneda"), choices=[SelectChoice(c, CURRENCY_LABELS[c]) for c in CURRENCIES], default="USD")
    desde = DayField(_l("Desde"), validators=[Optional()])
    hasta = DayField(_l("Hasta"), validators=[Optional()])

    def offer(self, today: date) -> None:
        """The last DEFAULT_DAYS days, today included, where the person left a day empty."""
        if not self.hasta.text:
            self.hasta.process_data(today)
        if not self.desde.text:
            self.desde.process_data((self.hasta.data or today) - timedelta(days=DEFAULT_DAYS - 1))

    def validate_hasta(self, field: DayField) -> None:
        if not self.desde.data or not field.data:
            return
        if self.desde.data > field.data:
            raise ValidationError(_("El último día es anterior al primero."))
        if (field.data - self.desde.data).days >= MAX_PERIOD_DAYS:
            raise ValidationError(_("Se ven a lo sumo 366 días por vez."))
