"""Forms of the DGI page, and the document checks the as-you-type hint shares with them.

The lookups are GET forms (they change nothing), read from the query string without CSRF; choosing the
company and certificate is a POST (it changes the session) and carries the CSRF token.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import SelectField, StringField, ValidationError
from wtforms.fields.choices import SelectChoice
from wtforms.validators import NumberRange

from portal.domain.identifiers import DocType, document_error, format_rut
from portal.web.forms_common import NumberField, NumberRequired, PortalForm

# The documents DGI keeps a registry of (the API refuses the others with a 422).
DOC_TYPE_CHOICES = [
    SelectChoice(str(int(DocType.CI)), _l("CI (cédula de identidad)")),
    SelectChoice(str(int(DocType.RUT)), _l("RUT")),
    SelectChoice(str(int(DocType.NIE)), _l("NIE (extranjeros)")),
]
_SEPARATORS = str.maketrans("", "", ".- ")


def clean_document(value: str | None) -> str:
    """What people type, without the dots, dashes and spaces they use to group digits."""
    return (value or "").strip().translate(_SEPARATORS)


def format_document(doc_type: int, number: str) -> str:
    """21-999983-001-9 for a RUT; 1.335.321-4 for a CI; 93.402.010-1 for a NIE."""
    if doc_type == DocType.RUT:
        return format_rut(number)
    body = f"{int(number[:-1]):,}".replace(",", ".") if number[:-1] else ""
    return f"{body}-{number[-1]}"


@dataclass(frozen=True)
class DocumentCheck:
    """The verdict on a typed document: `ok` with its formatted number, or the message of what is wrong."""

    ok: bool
    message: str
    number: str = ""


def check_document(doc_type: int, raw: str | None) -> DocumentCheck:
    """Check digit and length, with a message for a person (shared by the forms and the live hint)."""
    number = clean_document(raw)
    problem = document_error(doc_type, number) if doc_type in (DocType.NIE, DocType.RUT, DocType.CI) else "type"
    if problem is None:
        labels = {DocType.RUT: _("RUT válido"), DocType.CI: _("Cédula válida"), DocType.NIE: _("NIE válido")}
        return DocumentCheck(True, f"{labels[DocType(doc_type)]}: {format_document(doc_type, number)}", number)
    if problem == "required":
        return DocumentCheck(False, _("Ingresá el número."))
    if problem == "check_digit":
        return DocumentCheck(False, _("El dígito verificador no es correcto: revisá el último número."))
    if problem == "type":
        return DocumentCheck(False, _("DGI solo registra NIE, RUT y CI."))
    lengths = {
        DocType.RUT: _("Un RUT tiene 12 dígitos."),
        DocType.CI: _("Una cédula tiene de 2 a 8 dígitos."),
        DocType.NIE: _("Un NIE tiene de 3 a 9 dígitos."),
    }
    return DocumentCheck(False, lengths[DocType(doc_type)])


def document_help(doc_type: int) -> str:
    """The hint under an empty document field."""
    if doc_type == DocType.RUT:
        return _("12 dígitos; podés escribirlo con o sin guiones.")
    if doc_type == DocType.NIE:
        return _("El número del NIE, con su dígito verificador.")
    return _("Con o sin puntos y guion, incluido el dígito verificador.")


class _ValidDocument:
    """WTForms validator: the field holds a valid document of a fixed type or of the form's `tipoDoc`."""

    def __init__(self, doc_type: int | None = None):
        self.doc_type = doc_type

    def __call__(self, form, field):
        if self.doc_type is None and form.tipoDoc.errors:
            return  # the type is wrong: that is the error to show, not one about the number
        doc_type = self.doc_type or form.tipoDoc.data
        verdict = check_document(doc_type, field.data)
        if not verdict.ok:
            raise ValidationError(verdict.message)


class _Select(SelectField):
    """A select whose errors are ours: a value that is not one of the choices is `invalid_message`."""

    invalid_message = _l("Elegí una de las opciones.")

    def process_formdata(self, valuelist):
        try:
            super().process_formdata(valuelist)
        except ValueError as exc:
            raise ValueError(str(self.invalid_message)) from exc

    def pre_validate(self, form):
        if self.data not in {self.coerce(choice.value) for choice in self.iter_choices()}:
            raise ValidationError(str(self.invalid_message))


class _DocTypeSelect(_Select):
    invalid_message = _l("Elegí NIE, RUT o CI.")


class _GetForm(PortalForm):
    class Meta:
        csrf = False  # a lookup changes nothing; its URL is meant to be shared and pushed to history


class RutForm(_GetForm):
    """consultaRut, consultaCva and consultaDatosEntidad: one RUT."""

    rut = StringField(_l("RUT"), validators=[_ValidDocument(DocType.RUT)])


class NameForm(_GetForm):
    """consultaNombreEntidad: a document type and number."""

    tipoDoc = _DocTypeSelect(  # noqa: N815
        _l("Tipo de documento"),
        choices=DOC_TYPE_CHOICES,
        coerce=int,
        default=DocType.CI,
    )
    nroDoc = StringField(_l("Número de documento"), validators=[_ValidDocument()])  # noqa: N815


class ContextForm(PortalForm):
    """Company and certificate, picked from those the identity provider lists (value "company:certificate")."""

    contexto = _Select(_l("Empresa y certificado"), choices=[])

    def chosen(self) -> tuple[int, int]:
        company, _sep, certificate = self.contexto.data.partition(":")
        return int(company), int(certificate)


class OperatorContextForm(PortalForm):
    """The same choice typed as numbers, for when the identity provider lists no certificates."""

    # The service's parameter names, so its field errors map back without translation.
    idEmpresa = NumberField(  # noqa: N815
        _l("Número de empresa (idEmpresa)"),
        whole=True,
        validators=[
            NumberRequired(_l("Indicá la empresa.")),
            NumberRange(min=1, message=_l("Tiene que ser mayor que 0.")),
        ],
    )
    idCertificado = NumberField(  # noqa: N815
        _l("Número de certificado (idCertificado)"),
        whole=True,
        validators=[
            NumberRequired(_l("Indicá el certificado.")),
            NumberRange(min=1, message=_l("Tiene que ser mayor que 0.")),
        ],
    )
