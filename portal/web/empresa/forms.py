"""Forms of the empresa area. The service validates again; its field errors map back onto these fields."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel.speaklater import LazyString
from flask_wtf.file import FileAllowed, FileField, FileRequired, FileSize
from wtforms import BooleanField, PasswordField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional, Regexp, ValidationError

from portal.domain import roles
from portal.domain.empresa import (
    CAE_MAX_BYTES,
    CERTIFICATE_MAX_BYTES,
    DEPARTMENTS,
    LOGO_MAX_BYTES,
    MAX_BOOK_NUMBERS,
    MAX_BRANCH_CODE,
    PAPER_FORMATS,
    REGIMES,
    latest_expiry,
)
from portal.web.comprobantes.choices import CFC_TYPES
from portal.web.forms_common import DayField, NumberField, NumberRequired, PortalForm
from portal.web.i18n import day as format_day


def _book_id(value):
    return None if value in ("", None) else int(value)


def _strip(value):
    return value.strip() if isinstance(value, str) else value


REGIME_LABELS = {
    "general": _l("IVA general"),
    "iva_minimo": _l("IVA mínimo"),
    "monotributo": _l("Monotributo"),
    "monotributo_mides": _l("Monotributo social MIDES"),
    "exonerado": _l("Exonerado de IVA"),
}
PAPER_LABELS = {"a4": _l("A4"), "80mm": _l("Rollo térmico de 80 mm"), "57mm": _l("Rollo térmico de 57 mm")}


class SettingsForm(PortalForm):
    SERVICE_FIELDS = {  # the service's names -> ours (apply_service_errors)
        "normaExoneracion": "norma",
        "fechaEmisor": "fecha_emisor",
        "ivaAlDia": "iva_al_dia",
        "urlVerificacion": "url_verificacion",
        "formatoPapel": "formato_papel",
    }

    regimen = SelectField(
        _l("Régimen"), choices=[SelectChoice(r, REGIME_LABELS[r]) for r in REGIMES], validators=[InputRequired()]
    )
    norma = StringField(
        _l("Norma de exoneración"),
        filters=[_strip],
        validators=[Length(max=100, message=_l("Máximo %(max)d caracteres."))],
    )
    resolucion = StringField(
        _l("Resolución de DGI"),
        filters=[_strip],
        validators=[
            Optional(),
            Regexp(r"^\d{1,6}/\d{4}$", message=_l("Escribila como número/año, por ejemplo 1234/2020.")),
        ],
    )
    fecha_emisor = DayField(_l("Fecha de ingreso al régimen (Fecha emisor)"), validators=[Optional()])
    iva_al_dia = BooleanField(_l("La empresa tiene la constancia de IVA al día"))
    url_verificacion = StringField(
        _l("Página para verificar e-Tickets"),
        filters=[_strip],
        validators=[
            Length(max=200, message=_l("Máximo %(max)d caracteres.")),
            Optional(),
            Regexp(r"^https?://\S+$", message=_l("Tiene que empezar con https://.")),
        ],
    )
    formato_papel = SelectField(
        _l("Formato de impresión por defecto"), choices=[SelectChoice(p, PAPER_LABELS[p]) for p in PAPER_FORMATS]
    )


class BranchForm(PortalForm):
    SERVICE_FIELDS: dict[str, str] = {}  # the service names these fields as this form does

    codigo = NumberField(
        _l("Código de sucursal en DGI"),
        whole=True,
        validators=[
            NumberRequired(_l("Indicá el código que DGI le asignó a la sucursal.")),
            NumberRange(0, MAX_BRANCH_CODE, _l("Un número entero entre 0 y %(max)s.")),
        ],
    )
    nombre = StringField(
        _l("Nombre"),
        filters=[_strip],
        validators=[
            InputRequired(_l("Poné un nombre para la sucursal.")),
            Length(max=20, message=_l("Máximo %(max)d caracteres.")),
        ],
    )
    domicilio = StringField(
        _l("Domicilio"),
        filters=[_strip],
        validators=[
            InputRequired(_l("Indicá el domicilio.")),
            Length(max=70, message=_l("Máximo %(max)d caracteres.")),
        ],
    )
    ciudad = StringField(
        _l("Ciudad"),
        filters=[_strip],
        validators=[InputRequired(_l("Indicá la ciudad.")), Length(max=30, message=_l("Máximo %(max)d caracteres."))],
    )
    # No department chosen in advance: a branch in Salto would otherwise be saved as being in Montevideo.
    departamento = SelectField(
        _l("Departamento"),
        choices=[SelectChoice("", _l("Elegí el departamento")), *(SelectChoice(d) for d in DEPARTMENTS)],
        validators=[InputRequired(_l("Elegí el departamento."))],
    )
    predeterminada = BooleanField(_l("Emitir desde esta sucursal cuando el comprobante no indica otra"))


class LogoForm(PortalForm):
    SERVICE_FIELDS = {"*": "archivo"}  # every refusal is about the image

    archivo = FileField(
        _l("Imagen del logo (PNG o JPEG)"),
        validators=[
            FileRequired(_l("Elegí una imagen.")),
            FileAllowed(["png", "jpg", "jpeg"], _l("Tiene que ser una imagen PNG o JPEG.")),
            FileSize(max_size=LOGO_MAX_BYTES, message=_l("La imagen supera los 512 KB.")),
        ],
    )


class CertificateForm(PortalForm):
    SERVICE_FIELDS = {"*": "archivo"}  # password and nombre are named as the service names them
    archivo = FileField(
        _l("Archivo del certificado (.p12 o .pfx)"),
        validators=[
            FileRequired(_l("Elegí el archivo del certificado.")),
            FileAllowed(["p12", "pfx"], _l("Tiene que ser un archivo .p12 o .pfx.")),
            FileSize(max_size=CERTIFICATE_MAX_BYTES, message=_l("El archivo supera los 64 KB.")),
        ],
    )
    password = PasswordField(_l("Contraseña del archivo"), validators=[Length(max=200)])
    nombre = StringField(
        _l("Nombre (opcional)"),
        filters=[_strip],
        validators=[Length(max=120, message=_l("Máximo %(max)d caracteres."))],
    )


class CaeForm(PortalForm):
    SERVICE_FIELDS = {"*": "archivo"}
    archivo = FileField(
        _l("Archivo de CAE de DGI (.xml)"),
        validators=[
            FileRequired(_l("Elegí el archivo de CAE.")),
            FileAllowed(["xml"], _l("Tiene que ser el archivo .xml que descargaste de DGI.")),
            FileSize(max_size=CAE_MAX_BYTES, message=_l("El archivo supera los 64 KB.")),
        ],
    )


class MailTemplateForm(PortalForm):
    """The subject and text of the e-mail that carries each receipt to the customer."""

    SERVICE_FIELDS = {"subject": "asunto", "body": "cuerpo", "*": "cuerpo"}

    asunto = StringField(_l("Asunto"), validators=[DataRequired(message=_l("Escribí el asunto.")), Length(max=200)])
    cuerpo = TextAreaField(
        _l("Texto"), validators=[DataRequired(message=_l("Escribí el texto del correo.")), Length(max=4000)]
    )


# Each CFC type with its code, as DGI's authorisation names it ("221 e-Factura de exportación de contingencia").
CFC_LABELS = {code: LazyString(lambda code=code, label=label: f"{code} {label}") for code, label in CFC_TYPES}


class ContingencyBookForm(PortalForm):
    """A printed contingency book, as DGI's authorisation shows it."""

    SERVICE_FIELDS = {
        "tipoCFE": "tipo_cfe",
        "caeId": "cae_id",
        "fechaAutorizacion": "fecha_autorizacion",
    }
    tipo_cfe = SelectField(
        _l("Tipo de comprobante de contingencia"),
        choices=[SelectChoice("", _l("Elegí el tipo")), *(SelectChoice(str(k), v) for k, v in CFC_LABELS.items())],
        validators=[InputRequired(_l("Elegí el tipo de la libreta."))],
    )
    serie = StringField(
        _l("Serie"),
        filters=[lambda v: v.strip().upper() if isinstance(v, str) else v],
        validators=[
            InputRequired(_l("Indicá la serie impresa.")),
            Regexp(r"^[A-Z]{1,2}$", message=_l("Una o dos letras, de A a ZZ.")),
        ],
    )
    desde = NumberField(
        _l("Primer número"),
        whole=True,
        validators=[NumberRequired(_l("Indicá el primer número.")), NumberRange(1, 9_999_999)],
    )
    hasta = NumberField(
        _l("Último número"),
        whole=True,
        validators=[NumberRequired(_l("Indicá el último número.")), NumberRange(1, 9_999_999)],
    )
    cae_id = StringField(
        _l("Número de autorización de DGI"),
        filters=[_strip],
        validators=[
            InputRequired(_l("Indicá el número de la autorización.")),
            Regexp(r"^\d{11}$", message=_l("Son 11 dígitos.")),
        ],
    )
    fecha_autorizacion = DayField(_l("Autorizada el"), validators=[InputRequired(_l("Indicá la fecha."))])
    vencimiento = DayField(_l("Vence el"), validators=[InputRequired(_l("Indicá la fecha."))])

    # The service's checks across fields, here too: checked only there, they showed only once every field's own
    # check passed (a wrong authorisation number hid a backwards range and an expiry before the authorisation).
    def validate_hasta(self, field) -> None:
        first, last = self.desde.data, field.data
        if first is None or last is None:
            return
        if last < first:
            raise ValidationError(_l("El último número no puede ser menor que el primero."))
        if last - first + 1 > MAX_BOOK_NUMBERS:
            raise ValidationError(_l("DGI autoriza hasta 999.999 números por libreta."))

    def validate_vencimiento(self, field) -> None:
        authorised = self.fecha_autorizacion.data
        if authorised is None or field.data is None:
            return
        if field.data <= authorised:
            raise ValidationError(_l("El vencimiento debe ser posterior a la autorización."))
        if field.data > latest_expiry(authorised):
            raise ValidationError(
                _(
                    "DGI autoriza una libreta por 24 meses como máximo: vence a más tardar el %(day)s.",
                    day=format_day(latest_expiry(authorised)),
                )
            )


class VoidPaperForm(PortalForm):
    """Unused paper numbers of a contingency book to void (they will never be keyed in)."""

    SERVICE_FIELDS = {"desde": "desde", "hasta": "hasta", "motivo": "motivo"}
    libreta = SelectField(
        _l("Libreta"), coerce=_book_id, choices=[], validators=[InputRequired(_l("Elegí la libreta."))]
    )
    desde = NumberField(
        _l("Desde el número"),
        whole=True,
        validators=[NumberRequired(_l("Indicá el primer número.")), NumberRange(1, 9_999_999)],
    )
    hasta = NumberField(
        _l("Hasta el número"),
        whole=True,
        validators=[NumberRequired(_l("Indicá el último número.")), NumberRange(1, 9_999_999)],
    )
    motivo = StringField(
        _l("Motivo"),
        filters=[_strip],
        validators=[InputRequired(_l("Indicá por qué se anulan.")), Length(max=200)],
    )

    def offer_books(self, books, labels) -> None:
        """The books with numbers left to void. Voiding cannot be undone: with two or more books none is chosen
        beforehand (the first one was, and numbers of a book nobody meant were voided); one book is the choice."""
        offered = [
            (b.id, f"{labels.get(b.cfe_type, b.cfe_type)} · {b.serie} {b.first}–{b.last}") for b in books if b.free
        ]
        self.libreta.choices = offered if len(offered) < 2 else [("", _l("Elegí la libreta")), *offered]

    def chosen_book(self) -> str:
        """The chosen book as the list names it (type, serie and numbers)."""
        return str(dict(self.libreta.choices).get(self.libreta.data, ""))


# The roles by name in the select, what each may do under it (a long option is cut on a phone's select).
ROLE_LABELS = {roles.ADMIN: _l("Administrador"), roles.USUARIO: _l("Usuario"), roles.SOPORTE: _l("Soporte")}
_ROLE_CHOICES = [SelectChoice(role, ROLE_LABELS[role]) for role in (roles.USUARIO, roles.SOPORTE, roles.ADMIN)]
_ROLE_HINT = _l(
    "Usuario: emite y consulta comprobantes. Soporte: consulta todo, no cambia nada. Administrador: todo, también "
    "las personas, las claves y la configuración."
)


class MemberForm(PortalForm):
    """A person to add to the company (Empresa › Personas)."""

    SERVICE_FIELDS: dict[str, str] = {}  # the service names these fields as this form does

    email = StringField(
        _l("Correo"),
        filters=[_strip],
        validators=[
            InputRequired(_l("Indicá el correo con el que va a entrar.")),
            Length(max=254, message=_l("Máximo %(max)d caracteres.")),
            Regexp(r"^[^@\s]+@[^@\s]+$", message=_l("Escribí un correo como nombre@empresa.com.uy.")),
        ],
    )
    nombre = StringField(
        _l("Nombre y apellido"),
        filters=[_strip],
        validators=[InputRequired(_l("Indicá su nombre.")), Length(max=120, message=_l("Máximo %(max)d caracteres."))],
    )
    rol = SelectField(
        _l("Rol"), choices=_ROLE_CHOICES, default=roles.USUARIO, validators=[InputRequired()], description=_ROLE_HINT
    )


class RoleForm(PortalForm):
    """A member's new role."""

    SERVICE_FIELDS: dict[str, str] = {}

    rol = SelectField(_l("Rol"), choices=_ROLE_CHOICES, validators=[InputRequired()], description=_ROLE_HINT)
