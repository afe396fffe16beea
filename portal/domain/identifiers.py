"""Uruguayan identifiers and their check digits: RUT (via python-stdnum), CI and NIE.

Sources: ../shared/domain/CFE-URUGUAY.md section 8. RUT validation is delegated to python-stdnum's
`stdnum.uy.rut`, the implementation Odoo and ingadhoc use; stdnum has no cédula module, so the CI
algorithm (Uruware manual 9.2, Odoo `_l10n_uy_ci_nie_is_valid`) lives here.
"""

from __future__ import annotations

from enum import IntEnum

from stdnum.exceptions import ValidationError as _StdnumError
from stdnum.uy import rut as _rut

_CI_WEIGHTS = (2, 9, 8, 7, 6, 3, 4)


class DocType(IntEnum):
    """TipoDocRecep (A-C60): DGI's codes for a receiver's identity document."""

    NIE = 1
    RUT = 2
    CI = 3
    OTROS = 4
    PASAPORTE = 5
    DNI = 6
    NIFE = 7


# Documents that are Uruguayan, carry a check digit and travel in DocRecep (not DocRecepExt).
URUGUAYAN_DOC_TYPES = frozenset({DocType.NIE, DocType.RUT, DocType.CI})
# The countries whose DNI a receiver or principal may carry (A-C61, CFE-URUGUAY.md section 3).
DNI_COUNTRIES = frozenset({"AR", "BR", "CL", "PY"})


def digits_only(value: str) -> str:
    """Drop the separators people type (dots, dashes, spaces) and keep the digits.

    ASCII digits only: str.isdigit() also accepts superscripts and other scripts' digits, which int() then
    rejects ("1335321²" crashed the CI check digit with a 500).
    """
    return "".join(ch for ch in value if ch in "0123456789")


def is_valid_rut(value: str) -> bool:
    """True for a 12-digit RUT whose prefix, sequence and check digit are valid."""
    try:
        _rut.validate(value)
    except _StdnumError:
        return False
    return True


def format_rut(value: str) -> str:
    """21-100342-001-7 style, the way DGI prints it."""
    return _rut.format(value)


def ci_check_digit(body: str) -> int:
    """The check digit of a cédula body of up to 7 digits."""
    padded = body.zfill(7)
    return (-sum(int(d) * w for d, w in zip(padded, _CI_WEIGHTS, strict=True))) % 10


def is_valid_ci(value: str) -> bool:
    """True for a cédula of 2 to 8 digits whose last digit is its check digit (separators not allowed)."""
    if not (value.isascii() and value.isdigit()) or not 2 <= len(value) <= 8:
        return False
    return ci_check_digit(value[:-1]) == int(value[-1])


def is_valid_nie(value: str) -> bool:
    """A NIE uses the cédula algorithm after its first digit."""
    return value.isdigit() and len(value) >= 3 and is_valid_ci(value[1:])


def document_error(doc_type: int, number: str) -> str | None:
    """Why a receiver document is invalid (a stable code), or None when it is fine.

    Codes: `required`, `format` (characters or length) and `check_digit`.
    """
    if not number:
        return "required"
    if doc_type == DocType.RUT:
        if not (number.isdigit() and len(number) == 12):
            return "format"
        return None if is_valid_rut(number) else "check_digit"
    if doc_type == DocType.CI:
        if not (number.isdigit() and 2 <= len(number) <= 8):
            return "format"
        return None if is_valid_ci(number) else "check_digit"
    if doc_type == DocType.NIE:
        if not (number.isdigit() and 3 <= len(number) <= 9):
            return "format"
        return None if is_valid_nie(number) else "check_digit"
    if doc_type in (DocType.OTROS, DocType.PASAPORTE, DocType.DNI, DocType.NIFE):
        return None if len(number) <= 20 else "format"
    return "format"
