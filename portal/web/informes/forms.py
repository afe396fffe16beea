"""The period form of the informes page (a GET form: the URL holds the period, so a report can be shared)."""

from __future__ import annotations

from datetime import date

from flask_babel import format_date
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import SelectField, ValidationError
from wtforms.validators import Optional

from portal.web.forms_common import DayField, PortalForm
from portal.web.informes import periods

MAX_RANGE_DAYS = 366


def _label(period: periods.Period) -> str:
    if period.kind == "month":
        return format_date(period.start, "MMMM y").capitalize()
    if period.kind == "quarter":
        return _("%(number)s.º trimestre %(year)s", number=period.code[-1], year=period.start.year)
    return str(period.start.year)


class PeriodForm(PortalForm):
    class Meta:
        csrf = False

    RANGE = periods.RANGE  # the choice the page's script picks when a day is typed

    periodo = SelectField(_l("Período"), default="")
    desde = DayField(_l("Desde"), validators=[Optional()])
    hasta = DayField(_l("Hasta"), validators=[Optional()])

    def offer(self, today: date) -> None:
        """The choices, grouped (months, quarters, years, a range of days), the current month by default."""
        months, quarters, years = periods.offered(today)
        self.periodo.choices = {
            str(_("Meses")): [(p.code, _label(p)) for p in months],
            str(_("Trimestres")): [(p.code, _label(p)) for p in quarters],
            str(_("Años")): [(p.code, _label(p)) for p in years],
            str(_("Otro")): [(periods.RANGE, _("Rango de días"))],
        }
        if not self.periodo.data:
            self.periodo.data = months[0].code

    def validate_periodo(self, field: SelectField) -> None:
        if field.data != periods.RANGE and periods.parse(field.data) is None:
            raise ValidationError(_("Elegí un período de la lista."))

    def validate(self, extra_validators=None) -> bool:
        """Days typed beside a month, quarter or year are not the period the page would show: the form says so next
        to them (the page's script chooses the range of days as soon as a day is typed; without it the report
        showed the month under the days typed, which it had not read)."""
        valid = super().validate(extra_validators)
        if self.periodo.data == periods.RANGE or self.periodo.errors:
            return valid
        typed = [f for f in (self.desde, self.hasta) if f.raw_data and f.raw_data[0].strip()]
        if typed and not typed[0].errors:
            typed[0].errors = [
                _("Para ver esos días, elegí «Rango de días» en Período; para ver el período elegido, borrá los días.")
            ]
        return valid and not typed

    def validate_hasta(self, field: DayField) -> None:
        if self.periodo.data != periods.RANGE:
            return
        if not self.desde.data or not field.data:
            raise ValidationError(_("Escribí el primer y el último día del rango."))
        if self.desde.data > field.data:
            raise ValidationError(_("El último día es anterior al primero."))
        if (field.data - self.desde.data).days >= MAX_RANGE_DAYS:
            raise ValidationError(_("Un informe abarca a lo sumo 366 días."))

    def period(self) -> periods.Period:
        """The period chosen (call after validate)."""
        if self.periodo.data == periods.RANGE:
            return periods.Period(periods.RANGE, self.desde.data, self.hasta.data)
        found = periods.parse(self.periodo.data)
        assert found is not None  # validate_periodo
        return found
