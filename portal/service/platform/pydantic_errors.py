"""Pydantic's validation errors in the product's voice: one table for the API layer and the CFE engine.

Each of pydantic's error types gets a stable code for the CFE engine (`required`, `too_long`, ...) and a
Spanish message (docs/VOICE.md: one sentence, no library English). The API layer keeps pydantic's type as
the error's `code` (its documented contract); the CFE engine keeps its own codes. Both read the same
messages, so an input answers the same words whichever way it came in.

The messages are the service's catalogue entries (`portal.service.platform.i18n`): Spanish as they are, said in the
client's language where the API answers them. The CFE engine (`portal.service.cfe`) uses this module too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, get_args

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticCustomError
from pydantic_core.core_schema import ErrorType

from portal.service.platform.i18n import Text, _

_DATE = _("Fecha no válida: se escribe AAAA-MM-DD.")
_DATETIME = _("Fecha y hora no válidas: se escriben AAAA-MM-DDTHH:MM:SS.")
_NUMBER = _("Tiene que ser un número.")
_INTEGER = _("Tiene que ser un número entero.")

# pydantic error type -> (the CFE engine's code, the Spanish message; {placeholders} from the error's ctx).
MESSAGES: dict[str, tuple[str, Text]] = {
    "missing": ("required", _("Campo obligatorio.")),
    "extra_forbidden": ("unknown_field", _("Campo no permitido.")),
    "string_too_long": ("too_long", _("Máximo {max_length} caracteres.")),
    "string_too_short": ("too_short", _("Tiene que tener al menos {min_length} caracteres.")),
    "string_pattern_mismatch": ("format", _("Formato no válido.")),
    "string_type": ("format", _("Tiene que ser un texto.")),
    "string_unicode": ("format", _("Tiene que ser un texto.")),
    "too_long": ("too_many", _("Máximo {max_length} elementos.")),
    "too_short": ("too_few", _("Tiene que tener al menos {min_length} elemento(s).")),
    "int_parsing": ("format", _INTEGER),
    "int_type": ("format", _INTEGER),
    "int_from_float": ("format", _INTEGER),
    "int_parsing_size": ("format", _("El número es demasiado grande.")),
    "float_parsing": ("format", _NUMBER),
    "float_type": ("format", _NUMBER),
    "decimal_parsing": ("format", _NUMBER),
    "decimal_type": ("format", _NUMBER),
    "finite_number": ("format", _NUMBER),
    "decimal_max_places": ("decimal_places", _("Demasiados decimales (máximo {decimal_places}).")),
    "decimal_max_digits": ("too_many_digits", _("Demasiados dígitos (máximo {max_digits}).")),
    "decimal_whole_digits": ("too_many_digits", _("Demasiadas cifras antes de la coma (máximo {whole_digits}).")),
    "greater_than": ("out_of_range", _("Tiene que ser mayor que {gt}.")),
    "greater_than_equal": ("out_of_range", _("Tiene que ser mayor o igual que {ge}.")),
    "less_than": ("out_of_range", _("Tiene que ser menor que {lt}.")),
    "less_than_equal": ("out_of_range", _("Tiene que ser menor o igual que {le}.")),
    "multiple_of": ("out_of_range", _("Tiene que ser múltiplo de {multiple_of}.")),
    "literal_error": ("not_allowed", _("Valor no permitido (se espera {expected}).")),
    "enum": ("not_allowed", _("Valor no permitido (se espera {expected}).")),
    "date_parsing": ("format", _DATE),
    "date_type": ("format", _DATE),
    "date_from_datetime_parsing": ("format", _DATE),
    "date_from_datetime_inexact": ("format", _DATE),
    "datetime_parsing": ("format", _DATETIME),
    "datetime_type": ("format", _DATETIME),
    "datetime_from_date_parsing": ("format", _DATETIME),
    "datetime_object_invalid": ("format", _DATETIME),
    "bool_parsing": ("format", _("Tiene que ser true o false.")),
    "bool_type": ("format", _("Tiene que ser true o false.")),
    "model_type": ("format", _("Tiene que ser un objeto.")),
    "model_attributes_type": ("format", _("Tiene que ser un objeto.")),
    "dict_type": ("format", _("Tiene que ser un objeto.")),
    "list_type": ("format", _("Tiene que ser una lista.")),
    "union_tag_invalid": ("not_allowed", _("Valor no permitido (se espera {expected_tags}).")),
    "union_tag_not_found": ("required", _("Falta {discriminator}.")),
    "url_parsing": ("format", _("Tiene que ser una dirección web.")),
    "url_type": ("format", _("Tiene que ser una dirección web.")),
    "url_scheme": ("format", _("La dirección web tiene que empezar con {expected_schemes}.")),
    "json_invalid": ("format", _("El cuerpo no es JSON válido.")),
    "json_type": ("format", _("El cuerpo no es JSON válido.")),
    "value_error": ("invalid", _("Valor no válido: {error}.")),
    "assertion_error": ("invalid", _("Valor no válido.")),
}

# Said when a built-in error type has no row above (the guard test keeps that from happening).
FALLBACK = ("invalid", _("Valor no válido."))

# Pydantic's own error types; any other type is a PydanticCustomError of ours and carries our own message.
BUILTIN_TYPES = frozenset(get_args(ErrorType))


# A query parameter that several lists share answers one code and one message on every endpoint, whatever
# pydantic found wrong with it ({placeholders} from the error, or from the parameter's own bounds).
PARAMETERS: dict[str, tuple[str, Text]] = {
    "cursor": (
        "cursor_invalido",
        _("Ese cursor no es válido: usá el que dio la página anterior, o pedí la primera página sin cursor."),
    ),
    "limite": ("limite_invalido", _("Pedí entre {ge} y {le} por página.")),
    "numero": ("numero_invalido", _("Escribí la serie y el número, como A-15 o A 0000015, o solo el número.")),
    "desde": ("fecha_invalida", _("Esa fecha no es válida: se escribe AAAA-MM-DD.")),
    "hasta": ("fecha_invalida", _("Esa fecha no es válida: se escribe AAAA-MM-DD.")),
    "estado": ("estado_invalido", _("Elegí un estado: {expected}.")),
    "creadoPor": ("creado_por_invalido", _("Escribí el comienzo del correo de quien la creó (hasta 254 caracteres).")),
}


def refuse(code: str, message: Text) -> PydanticCustomError:
    """A validator's refusal with a code of ours and a catalogue message (said in the client's language)."""
    return PydanticCustomError(code, message.template, {**message.params, "message": message})


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
    "string_too_short": _("No puede estar vacío."),
    "too_short": _("Tiene que tener al menos un elemento."),
}


def _inner(error: object) -> str:
    """A ValueError of our validators: its message (a catalogue Text when it was written with `_()`),
    without its final period, to be set inside "Valor no válido: ..."."""
    said = error.args[0] if isinstance(error, Exception) and error.args else error
    return said.stripped() if isinstance(said, Text) else str(said).rstrip(".")


def _message(err: Mapping[str, Any], template: Text | None = None) -> tuple[str, str]:
    if err["type"] not in BUILTIN_TYPES:
        ours = (err.get("ctx") or {}).get("message")
        return "invalid", ours if isinstance(ours, Text) else err["msg"]
    chosen: Text
    code, chosen = (code_of(err["type"]), template) if template is not None else MESSAGES.get(err["type"], FALLBACK)
    template = chosen
    ctx = dict(err.get("ctx") or {})
    if ctx.get("min_length") == 1 and err["type"] in _WHEN_ONE and template is MESSAGES.get(err["type"], FALLBACK)[1]:
        return code, _WHEN_ONE[err["type"]]
    if "error" in ctx:
        ctx["error"] = _inner(ctx["error"])
    if "expected" in ctx:
        ctx["expected"] = _alternatives(str(ctx["expected"]))
    try:
        chosen.template.format(**ctx)
    except (KeyError, IndexError):
        return code, FALLBACK[1]
    return code, Text(chosen.template, **ctx)


def _alternatives(expected: str) -> str:
    """Pydantic's "'USD', 'EUR' or 'UI'" with its last "or" said in the reader's language (a `Text` value is said
    with the message), not Spanish's "o" baked in."""
    first, joined, last = expected.rpartition(" or ")
    return _("{primeros} o {ultimo}", primeros=first, ultimo=last) if joined else expected


def code_of(error_type: str) -> str:
    return MESSAGES.get(error_type, FALLBACK)[0]


def _bounds(model: type[BaseModel] | None, name: str) -> dict[str, Any]:
    """A parameter's own bounds (ge, le, ...) from its model, for the messages that name them."""
    field = next((f for n, f in (model.model_fields.items() if model else ()) if (f.alias or n) == name), None)
    found: dict[str, Any] = {}
    for constraint in field.metadata if field else ():
        found.update({k: getattr(constraint, k) for k in ("ge", "le", "gt", "lt") if hasattr(constraint, k)})
    return found


def problems(exc: ValidationError, parameters: type[BaseModel] | None = None) -> list[Problem]:
    """Every error of `exc`, with its path, its type (pydantic's, or ours), the CFE engine's code and a
    catalogue message. With `parameters` (a query's model), a shared parameter (PARAMETERS) answers its own
    code and message for any of pydantic's errors."""
    result = []
    for err in exc.errors(include_url=False):
        path = field_path(err["loc"])
        # A shared parameter's name sent to a list that has no such parameter is an unknown one (extra_forbidden),
        # not a badly written value: "Esa fecha no es válida" for a well-written date misled the reader.
        shared = path in PARAMETERS and err["type"] != "extra_forbidden"
        if parameters is not None and shared and err["type"] in BUILTIN_TYPES:
            kind, template = PARAMETERS[path]
            ctx = {**_bounds(parameters, path), **(err.get("ctx") or {})}
            if "expected" in ctx:
                ctx["expected"] = str(ctx["expected"]).replace("'", "")
            code, message = _message({**err, "ctx": ctx}, template)
            result.append(Problem(path, kind, code, message))
            continue
        code, message = _message(err)
        result.append(Problem(path, err["type"], code, message))
    return result
