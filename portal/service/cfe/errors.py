"""The exceptions of the CFE engine.

They carry no HTTP notion: the REST layer maps them. `FieldError` has the same fields as
`portal.service.platform.errors.FieldError` (field, code, message), so it converts with `dataclasses.asdict`; it is
defined again here because that module imports Flask and this package must not.
"""

from __future__ import annotations

from dataclasses import dataclass

from portal.service.platform.i18n import Text, _


@dataclass(frozen=True)
class FieldError:
    """One problem with one input field.

    `field` is a path in the API's JSON names ("receptor.docRecep", "items[2].precioUnitario", indexes
    from 0); `code` is stable for programs; `message` is Spanish, for people.
    """

    field: str
    code: str
    message: str


class CfeError(Exception):
    """Base class of every error the CFE engine raises on purpose."""


class CfeValidationError(CfeError):
    """The input breaks a DGI or business rule: the caller sent something wrong (HTTP 422)."""

    def __init__(self, errors: list[FieldError], message: str = _("El comprobante no es válido.")):
        super().__init__(message)
        self.message = message
        self.errors = list(errors)

    def __str__(self) -> str:
        details = "; ".join(f"{e.field}: {e.message}" for e in self.errors[:5])
        return f"{self.message} {details}".strip()


class CfeSchemaError(CfeError):
    """The XML we built does not validate against DGI's XSD: a defect of ours, not of the input (HTTP 500)."""

    def __init__(self, errors: list[str]):
        super().__init__("El XML generado no cumple el esquema de DGI: " + "; ".join(errors[:5]))
        self.errors = list(errors)


class XmlInputError(CfeError):
    """An XML document received from outside is malformed, unsafe or not what was expected."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        # `text` is the whole message as a catalogue message (platform.i18n), said in each reader's language;
        # str(exc) is its Spanish, which is also what a signed answer to a supplier carries.
        said = message if isinstance(message, Text) else Text(message)
        text = said
        # Where in the document, a catalogue message too ("línea 3, columna 7"); "xml" when the parser said nowhere.
        self.where: str = "xml"
        if line:
            where = (
                _("línea {line}, columna {column}", line=line, column=column)
                if column
                else _("línea {line}", line=line)
            )
            self.where = where
            # "... nombre (línea 3, columna 7)." : where goes inside the sentence, before its period
            text = (
                _("{message} ({where}).", message=said.stripped(), where=where)
                if message.endswith(".")
                else _("{message} ({where})", message=said, where=where)
            )
        super().__init__(str(text))
        self.text: Text = text
        self.message = message
        self.line = line
        self.column = column


class CaeError(CfeError):
    """A CAE file that cannot be read or does not follow DGI's format."""

    def __init__(self, message: str, *, old_format: bool = False):
        super().__init__(message)
        # The catalogue message itself, said in each reader's language where it is answered (str(exc) loses it).
        self.text: Text = message if isinstance(message, Text) else Text(message)
        # A CAE file of DGI's format before 2013 (CAE_v1.1, no TA): genuine but no longer valid, not an edited one.
        self.old_format = old_format
