"""Pydantic's validation errors in the product's voice: one table for the API layer and the CFE engine.

Each of pydantic's error types gets a stable code for the CFE engine (`required`, `too_long`, ...) and a
Spanish message (docs/VOICE.md: one sentence, no library English). The API layer keeps pydantic's type as
the error's `code` (its documented contract); the CFE engine keeps its own codes. Both read the same
messages, so an input answers the same words whichever way it came in.

Only pydantic is imported here: the CFE engine (`portal.service.cfe`) uses it without Flask.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, get_args

from pydantic import ValidationError
from pydantic_core.core_schema import ErrorType

_DATE = "Fecha no válida: se escribe AAAA-MM-DD."
_DATETIME = "Fecha y hora no válidas: se escriben AAAA-MM-DDTHH:MM:SS."
_NUMBER = "Tiene que ser un número."
_INTEGER = "Tiene que ser un número entero."

# pydantic error type -> (the CFE engine's code, the Spanish message; {placeholders} from the error's ctx).
MESSAGES: dict[str, tuple[str, str]] = {
    "missing": ("required", "Campo obligatorio."),
    "extra_forbidden": ("unknown_field", "Campo no permitido."),
    "string_too_long": ("too_long", "Máximo {max_length} caracteres."),
    "string_too_short": ("too_short", "Tiene que tener al menos {min_length} caracteres."),
    "string_pattern_mismatch": ("format", "Formato no válido."),
    "string_type": ("format", "Tiene que ser un texto."),
    "string_unicode": ("format", "Tiene que ser un texto."),
    "too_long": ("too_many", "Máximo {max_length} elementos."),
    "too_short": ("too_few", "Tiene que tener al menos {min_length} elemento(s)."),
    "int_parsing": ("format", _INTEGER),
    "int_type": ("format", _INTEGER),
    "int_from_float": ("format", _INTEGER),
    "int_parsing_size": ("format", "El número es demasiado grande."),
    "float_parsing": ("format", _NUMBER),
    "float_type": ("format", _NUMBER),
    "decimal_parsing": ("format", _NUMBER),
    "decimal_type": ("format", _NUMBER),
    "finite_number": ("format", _NUMBER),
    "decimal_max_places": ("decimal_places", "Demasiados decimales (máximo {decimal_places})."),
    "decimal_max_digits": ("too_many_digits", "Demasiados dígitos (máximo {max_digits})."),
    "decimal_whole_digits": ("too_many_digits", "Demasiadas cifras antes de la coma (máximo {whole_digits})."),
    "greater_than": ("out_of_range", "Tiene que ser mayor que {gt}."),
    "greater_than_equal": ("out_of_range", "Tiene que ser mayor o igual que {ge}."),
    "less_than": ("out_of_range", "Tiene que ser menor que {lt}."),
    "less_than_equal": ("out_of_range", "Tiene que ser menor o igual que {le}."),
    "multiple_of": ("out_of_range", "Tiene que ser múltiplo de {multiple_of}."),
    "literal_error": ("not_allowed", "Valor no permitido (se espera {expected})."),
    "enum": ("not_allowed", "Valor no permitido (se espera {expected})."),
    "date_parsing": ("format", _DATE),
    "date_type": ("format", _DATE),
    "date_from_datetime_parsing": ("format", _DATE),
    "date_from_datetime_inexact": ("format", _DATE),
    "datetime_parsing": ("format", _DATETIME),
    "datetime_type": ("format", _DATETIME),
    "datetime_from_date_parsing": ("format", _DATETIME),
    "datetime_object_invalid": ("format", _DATETIME),
    "bool_parsing": ("format", "Tiene que ser true o false."),
    "bool_type": ("format", "Tiene que ser true o false."),
    "model_type": ("format", "Tiene que ser un objeto."),
    "model_attributes_type": ("format", "Tiene que ser un objeto."),
    "dict_type": ("format", "Tiene que ser un objeto."),
    "list_type": ("format", "Tiene que ser una lista."),
    "union_tag_invalid": ("not_allowed", "Valor no permitido (se espera {expected_tags})."),
    "union_tag_not_found": ("required", "Falta {discriminator}."),
    "url_parsing": ("format", "Tiene que ser una dirección web."),
    "url_type": ("format", "Tiene que ser una dirección web."),
    "url_scheme": ("format", "La dirección web tiene que empezar con {expected_schemes}."),
    "json_invalid": ("format", "El cuerpo no es JSON válido."),
    "json_type": ("format", "El cuerpo no es JSON válido."),
    "value_error": ("invalid", "Valor no válido: {error}."),
    "assertion_error": ("invalid", "Valor no válido."),
}

# Said when a built-in error type has no row above (the guard test keeps that from happening).
FALLBACK = ("invalid", "Valor no válido.")

# Pydantic's own error types; any other type is a PydanticCustomError of ours and carries our own message.
BUILTIN_TYPES = frozenset(get_args(ErrorType))


@dataclass(frozen=True)
class Problem:
    """One pydantic error, said for people: `field` is a JSON path ("items[2].cantidad")."""

    field: str
    type: str
    code: str
    message: str


def field_path(loc: Iterable[Any]) -> str:
    """("items", 2, "cantidad") -> "items[2].cantidad"; validator wrappers ("function-after[...]") left out."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif not str(part).startswith("function-"):
            path += ("." if path else "") + str(part)
    return path or "body"


# A limit of one reads better in words than as "al menos 1 caracteres".
_WHEN_ONE = {
    "string_too_short": "No puede estar vacío.",
    "too_short": "Tiene que tener al menos un elemento.",
}


def _message(err: dict) -> tuple[str, str]:
    if err["type"] not in BUILTIN_TYPES:
        return "invalid", err["msg"]
    code, template = MESSAGES.get(err["type"], FALLBACK)
    ctx = dict(err.get("ctx") or {})
    if ctx.get("min_length") == 1 and err["type"] in _WHEN_ONE:
        return code, _WHEN_ONE[err["type"]]
    if "error" in ctx:  # a ValueError of our validators: its Spanish text, one period at the end
        ctx["error"] = str(ctx["error"]).rstrip(".")
    if "expected" in ctx:
        ctx["expected"] = str(ctx["expected"]).replace(" or ", " o ")
    try:
        return code, template.format(**ctx)
    except (KeyError, IndexError):
        return code, FALLBACK[1]


def problems(exc: ValidationError) -> list[Problem]:
    """Every error of `exc`, with its path, pydantic's type, the CFE engine's code and a Spanish message."""
    result = []
    for err in exc.errors(include_url=False):
        code, message = _message(err)
        result.append(Problem(field_path(err["loc"]), err["type"], code, message))
    return result
