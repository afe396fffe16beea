"""The receiver document hint shown as the user types: the check digit, with the shared pure rules of
portal.domain.identifiers (the same the service applies), so the hint and the service never disagree."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import gettext as _

from portal.domain.digits import ascii_number
from portal.domain.identifiers import URUGUAYAN_DOC_TYPES, DocType, digits_only, document_error, format_rut


@dataclass(frozen=True)
class Hint:
    state: str  # "", "ok" or "error"
    message: str


NO_HINT = Hint("", "")


def _format_message(doc_type: int) -> str:
    formats: dict[int, str] = {
        DocType.RUT: _("Un RUT tiene 12 dígitos."),
        DocType.CI: _("Una cédula tiene de 2 a 8 dígitos, con el verificador."),
        DocType.NIE: _("Un NIE tiene de 3 a 9 dígitos."),
    }
    return formats.get(doc_type, _("Hasta 20 caracteres."))


def document_hint(doc_type: str | None, number: str | None) -> Hint:
    """What to say about `number` as a document of type `doc_type` (DGI's TipoDocRecep code, as text)."""
    number = (number or "").strip()
    if not number:
        return NO_HINT
    kind = ascii_number(doc_type)
    if kind is None:
        return Hint("", _("Elegí el tipo de documento."))
    if kind in URUGUAYAN_DOC_TYPES and all(ch.isdigit() or ch in ".- " for ch in number):
        number = digits_only(number) or number  # 1.234.567-2 and 21-100342-001-7 are typed that way
    problem = document_error(kind, number)
    if problem == "check_digit":
        return Hint("error", _("Dígito verificador incorrecto."))
    if problem:
        return Hint("error", _format_message(kind))
    if kind == DocType.RUT:
        return Hint("ok", _("RUT válido: %(rut)s", rut=format_rut(number)))
    if kind in URUGUAYAN_DOC_TYPES:
        return Hint("ok", _("Dígito verificador correcto."))
    return NO_HINT
