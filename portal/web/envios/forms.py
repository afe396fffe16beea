"""The admin's form to void unused numbers of a CAE (the service voids the next ones of that type and serie)."""

from __future__ import annotations

from flask_babel import format_decimal as format_number
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import BooleanField, HiddenField, SelectField, StringField
from wtforms.validators import DataRequired, Length, NumberRange, Optional, Regexp

from portal.client.empresa_records import CaeRange
from portal.domain.cfe_types import CFE_TYPES
from portal.domain.uruguay_time import today_montevideo
from portal.web.comprobantes.choices import TYPE_NAMES, options
from portal.web.forms_common import DayField, NumberField, PortalForm, idempotency_key_field

# The types whose numbers the service can void (its AnulacionSolicitud.tipoCFE): every supported type.
VOIDABLE_TYPES = tuple(CFE_TYPES)


class VoidForm(PortalForm):
    """The idempotency key is made when the form is shown: a double click or a browser retry voids once."""

    idempotency_key = idempotency_key_field()
    tipo_cfe = SelectField(
        _l("Tipo de comprobante"),
        coerce=int,
        default=101,
        choices=options([(code, TYPE_NAMES[code]) for code in VOIDABLE_TYPES]),
    )
    serie = StringField(
        _l("Serie"),
        filters=[lambda v: (v or "").strip().upper() or None],
        validators=[Optional(), Regexp(r"^[A-Z]{1,2}$", message=_l("Una o dos letras."))],
    )
    cantidad = NumberField(
        _l("Cantidad de números"),
        whole=True,
        validators=[Optional(), NumberRange(min=1, max=1_000_000, message=_l("Entre 1 y 1.000.000."))],
    )
    motivo = StringField(
        _l("Motivo"),
        validators=[
            DataRequired(message=_l("Indicá el motivo.")),
            Length(min=3, max=200, message=_l("Entre 3 y 200 caracteres.")),
        ],
    )
    confirmar = BooleanField(
        _l("Entiendo que esos números no se podrán usar nunca."),
        validators=[DataRequired(message=_l("Confirmá que querés anularlos."))],
    )
    # An empty Cantidad once voided every number left (about 99,990) behind the one checkbox above: now it is
    # refused, and the whole rest is a choice of its own that states how many numbers it is (resto_cantidad, the
    # count the person saw, is what is voided).
    resto = BooleanField(_l("Anular todo el resto del CAE"))
    resto_cantidad = HiddenField(validators=[Optional(), Regexp(r"^[1-9][0-9]{0,6}$")])
    resto_rango = HiddenField(validators=[Optional(), Regexp(r"^[1-9][0-9]{0,9}$")])  # the range offered

    def count(self) -> int | None:
        """How many numbers to void: Cantidad, or the whole rest when that was chosen with its count shown."""
        if self.cantidad.data:
            return int(self.cantidad.data)
        if self.resto.data and self.resto_cantidad.data:
            return int(self.resto_cantidad.data)
        return None

    def offer_rest(self, remaining: CaeRange | None) -> None:
        """Cantidad was left empty: say so next to it and offer the whole rest of `remaining`, counted."""
        if remaining is None:
            self.cantidad.errors = [*self.cantidad.errors, _("Indicá cuántos números anular.")]
            return
        self.cantidad.errors = [
            *self.cantidad.errors,
            _("Indicá cuántos números anular, o elegí abajo anular todo el resto."),
        ]
        self.resto.data = False
        self.resto_cantidad.data = str(remaining.remaining)
        self.resto_rango.data = str(remaining.id)
        self.resto.label.text = _(
            "Anular todo el resto: %(count)s números (del %(first)s al %(last)s, serie %(serie)s)",
            count=format_number(remaining.remaining),
            first=remaining.next,
            last=remaining.last,
            serie=remaining.serie,
        )

    def retirement(self) -> dict | None:
        """The whole rest of the range offered, chosen with its count: the range's retirement (the service's
        one operation for it, portal.client.empresa.EmpresaApi.retire_cae_range, audited); None otherwise."""
        if self.cantidad.data or not (self.resto.data and self.resto_cantidad.data and self.resto_rango.data):
            return None
        return {
            "range_id": int(self.resto_rango.data),
            "count": int(self.resto_cantidad.data),
            "reason": self.motivo.data.strip(),
        }

    def request(self) -> dict:
        """What the service is asked for (portal.client.envios.EnviosApi.void_numbers)."""
        return {
            "tipo_cfe": self.tipo_cfe.data,
            "serie": self.serie.data,
            "count": self.count(),
            "reason": self.motivo.data.strip(),
            "idempotency_key": self.idempotency_key.data,
        }


def rest_of_cae(ranges: tuple[CaeRange, ...], cfe_type: int, serie: str | None) -> CaeRange | None:
    """The range that would number `cfe_type` (and `serie`) next: in force, numbers left."""
    usable = [
        r
        for r in ranges
        if r.cfe_type == cfe_type
        and (serie is None or r.serie == serie)
        and r.remaining > 0
        and r.status in ("vigente", "por_vencer")
    ]
    return usable[0] if usable else None


class ReportForm(PortalForm):
    """Send a day's report now (after a rejection, or before the nightly run)."""

    fecha = DayField(_l("Día"), default=today_montevideo, validators=[DataRequired(message=_l("Indicá el día."))])
