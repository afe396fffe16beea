"""The service speaks in the product's voice (docs/VOICE.md): every message it can raise for people, read from
the source, and every pydantic error its request models can produce, said in Spanish from one table."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel

from portal.service.platform import pydantic_errors

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "portal/service"

# Calls whose string arguments are messages for people: the API's and the engines' errors, the smart issuance's
# warnings, DGI's motives, the rule collectors (`errors.add(field, code, message)`) and the helpers that wrap
# them. Arguments without a space (codes, field paths) are not messages and are skipped.
MESSAGE_CALLS = {
    "ApiError", "ValidationFailed", "Unauthorized", "Forbidden", "NotFound", "Conflict", "UpstreamError",
    "UpstreamTimeout", "DatabaseBusy", "FieldError", "CfeValidationError", "CfeError", "XmlInputError",
    "CaeError", "XmlIntakeBusy", "PaperNotAllowed", "PydanticCustomError", "DgiError", "TaxpayerNotFound",
    "DgiUnavailable", "DgiTimeout", "DgiInvalidInput", "DgiPermanentError", "DgiTransientError",
    "AckUnreadable", "DeliveryError", "warn", "add", "motive", "_invalid", "_fail", "error_response", "infer",
    "TaxpayerWarning",  # what portal/service/dgi/receiver.py warns about a receiver
    "_", "refuse",  # a catalogue message (portal.service.platform.i18n), a validator's refusal (pydantic_errors)
    "__init__",  # super().__init__("...") in an error class
}  # fmt: skip
MESSAGE_KEYWORDS = {"message", "mensaje", "detail"}

USTED = re.compile(
    r"\b(usted|su empresa|su rol|indique|ingrese|reintente|verifique|revise|intente|seleccione|elija|"
    r"contacte|comuníquese|informe|utilice|use|consulte|solicite|envíe|agregue|corrija|espere|vuelva|"
    r"importe|emita|genere|previsualice|acepte|entréguele|cargue|tiene acceso|puedes|tienes)\b",
    re.IGNORECASE,
)
CAMEL_CASE = re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b")  # idCfeEmitido, tipoDoc, mntNetoIVATasaBasica
ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
ENGLISH = re.compile(r"\b(the|must|should|expected|found|invalid|not allowed|please|enveloped)\b", re.IGNORECASE)
DATE_NAMES = re.compile(r"(fch|fecha|date|day|dia|latest|venc|not_after|not_before|signed_on|desde|hasta)")
# Placeholders whose text comes from a library or another server, not from us.
FOREIGN_TEXT = re.compile(r"^(exc|error|err)(\.msg|\.args.*)?$")


@dataclass(frozen=True)
class Message:
    where: str
    text: str  # the literal, each placeholder as {expression}
    placeholders: tuple[ast.FormattedValue, ...]


def _text(node: ast.AST) -> tuple[str, tuple[ast.FormattedValue, ...]] | None:
    if isinstance(node, ast.Call) and _call_name(node) == "_" and node.args:  # _("... {name} ...", name=...)
        return _text(node.args[0])
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, ()
    if isinstance(node, ast.JoinedStr):
        parts, holes = [], []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(value.value)
            else:
                parts.append("{" + ast.unparse(value.value) + "}")
                holes.append(value)
        return "".join(parts), tuple(holes)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        if left or right:
            (lt, lh), (rt, rh) = left or ("{…}", ()), right or ("{…}", ())
            return lt + rt, lh + rh
    return None


def _call_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def _message_nodes(node: ast.AST) -> list[ast.AST]:
    """The nodes of `node` that hold a message: a message call's arguments, a `message=` default, the values
    of a module's `..._MESSAGES` table."""
    if isinstance(node, ast.Call) and _call_name(node) in MESSAGE_CALLS:
        return [*node.args, *(k.value for k in node.keywords if k.arg in MESSAGE_KEYWORDS)]
    if isinstance(node, ast.arguments):
        named = [*node.posonlyargs, *node.args][-len(node.defaults) :] if node.defaults else []
        pairs = [*zip(named, node.defaults, strict=True), *zip(node.kwonlyargs, node.kw_defaults, strict=True)]
        return [default for arg, default in pairs if arg.arg in MESSAGE_KEYWORDS and default is not None]
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
        if any(isinstance(t, ast.Name) and t.id.endswith("MESSAGES") for t in node.targets):
            values = [v.elts if isinstance(v, ast.Tuple) else [v] for v in node.value.values]
            return [item for group in values for item in group]
    return []


def _dgis_own_words(tree: ast.AST) -> set[int]:
    """The nodes of DGI's texts of its codes (the `*_MOTIVES` tables, catalogue messages so that a reader is told
    them in their language): DGI's words as DGI writes them ("Importe informado..."), not the service's voice."""
    tables = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id.endswith("_MOTIVES") for t in node.targets)
    ]
    return {id(n) for table in tables for n in ast.walk(table)}


def service_messages() -> list[Message]:
    """Every message literal the service hands to an error, a warning or a motive, in every module."""
    found = []
    for path in sorted(SERVICE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        dgis = _dgis_own_words(tree)
        for node in ast.walk(tree):
            if id(node) in dgis:
                continue
            for argument in _message_nodes(node):
                text = _text(argument)
                if text and " " in text[0]:
                    found.append(Message(f"{path.relative_to(ROOT)}:{argument.lineno}", *text))
    return found


def table_messages() -> list[Message]:
    return [
        Message(f"pydantic_errors.{name}[{k!r}]", v[1], ())
        for name, table in (("MESSAGES", pydantic_errors.MESSAGES), ("PARAMETERS", pydantic_errors.PARAMETERS))
        for k, v in table.items()
    ]


def _problems(message: Message) -> list[str]:
    literal = re.sub(r"\{[^{}]*\}", "{}", message.text)  # the words we wrote, placeholders aside
    problems = []
    if match := USTED.search(literal):
        problems.append(f"usted/tú form {match.group(0)!r}")
    if match := CAMEL_CASE.search(literal):
        problems.append(f"API field name {match.group(0)!r}")
    if ISO_DATE.search(literal):
        problems.append("ISO date")
    if match := ENGLISH.search(literal):
        problems.append(f"English {match.group(0)!r}")
    if ".." in literal.replace("...", "") or literal.rstrip().endswith(("..", ". .")):
        problems.append("double period")
    for hole in message.placeholders:
        expression = ast.unparse(hole.value)
        spec = ast.unparse(hole.format_spec) if hole.format_spec else ""
        if "isoformat" in expression:
            problems.append(f"ISO date from {expression}")
        elif DATE_NAMES.search(expression) and "%d/%m/%Y" not in spec and "(" not in expression:
            problems.append(f"date {expression} without :%d/%m/%Y")
        if re.search(r"\.\d*f\b", spec):
            problems.append(f"amount {expression} with a decimal point: use pdf_text.money")
        if FOREIGN_TEXT.match(expression):
            problems.append(f"library or server text {{{expression}}}")
    return problems


def test_the_scan_reads_the_service_messages():
    """Not vacuous: the scan finds the messages of every kind of call, f-strings included."""
    texts = {m.text for m in service_messages()}
    assert len(texts) > 150
    assert "La fecha debe estar entre el 01/10/2011 y el 31/12/2050." in texts  # errors.add
    assert any(t.startswith("El total {name} quedaría negativo") for t in texts)  # f-string in errors.add
    assert any("Idempotency-Key" in t for t in texts)  # Conflict
    assert any(t.startswith("El receptor no es emisor electrónico") for t in texts)  # warn
    assert "Los datos enviados no son válidos." in texts  # a message= default
    assert "Ese método no está permitido en este recurso." in texts  # errors._HTTP_MESSAGES


def test_the_checks_catch_the_old_texts():
    """Each check fails on a text that once reached people."""
    old = [
        "No existe un comprobante con ese idCfeEmitido en su empresa.",
        "No es un RUT ni una cédula válidos; indique tipoDoc (4 otros, 5 pasaporte) y el país.",
        "Se superó el límite de la clave. Reintente en 3 s.",
        "La fecha debe estar entre 2011-10-01 y 2050-12-31.",
        "Decimal input should have no more than 11 digits before the decimal point",
        "La empresa es Demo S.A..",
    ]
    assert all(_problems(Message("old", text, ())) for text in old)
    (iso,) = ast.parse('f"El certificado venció el {day.isoformat()}."').body
    assert _problems(Message("old", *_text(iso.value)))
    (plain,) = ast.parse('f"Los CAE están vencidos para la fecha {fch_emis}."').body
    assert _problems(Message("old", *_text(plain.value)))
    (amount,) = ast.parse('f"La nota ({total:.2f}) supera el saldo."').body
    assert _problems(Message("old", *_text(amount.value)))
    (parser,) = ast.parse('f"XML mal formado: {exc.msg}"').body
    assert _problems(Message("old", *_text(parser.value)))


@pytest.mark.parametrize("source", ["service", "pydantic table"])
def test_every_service_message_speaks_in_the_voice(source):
    messages = service_messages() if source == "service" else table_messages()
    found = [f"{m.where}: {m.text!r}: {'; '.join(p)}" for m in messages if (p := _problems(m))]
    assert found == []


# --- pydantic's error types each request model can produce, read from its core schema -----------------------

_BOUNDS = {"gt": "greater_than", "ge": "greater_than_equal", "lt": "less_than", "le": "less_than_equal"}
_BY_KIND = {
    "str": {"string_type"},
    "int": {"int_type", "int_parsing", "int_from_float", "int_parsing_size"},
    "float": {"float_type", "float_parsing", "finite_number"},
    "decimal": {"decimal_type", "decimal_parsing", "finite_number"},
    "bool": {"bool_type", "bool_parsing"},
    "date": {"date_type", "date_parsing", "date_from_datetime_parsing", "date_from_datetime_inexact"},
    "datetime": {"datetime_type", "datetime_parsing", "datetime_from_date_parsing", "datetime_object_invalid"},
    "list": {"list_type"},
    "dict": {"dict_type"},
    "literal": {"literal_error"},
    "enum": {"enum"},
    "model": {"model_type"},
    "url": {"url_type", "url_parsing"},
    "tagged-union": {"union_tag_invalid", "union_tag_not_found"},
    "function-before": {"value_error", "assertion_error"},
    "function-after": {"value_error", "assertion_error"},
    "function-wrap": {"value_error", "assertion_error"},
    "function-plain": {"value_error", "assertion_error"},
}
_SILENT = {
    "definitions", "definition-ref", "nullable", "default", "union", "any", "none", "model-fields",
    "chain", "lax-or-strict", "json-or-python", "is-instance", "arguments", "model-field",
    "no-info", "with-info",  # a validator function's descriptor, inside function-* schemas
}  # fmt: skip
_LIMITS = {
    "max_length": {"str": "string_too_long", "list": "too_long"},
    "min_length": {"str": "string_too_short", "list": "too_short"},
    "pattern": {"str": "string_pattern_mismatch"},
    "max_digits": {"decimal": "decimal_max_digits"},
    "decimal_places": {"decimal": "decimal_max_places"},
    "multiple_of": {"int": "multiple_of", "float": "multiple_of", "decimal": "multiple_of"},
    "allowed_schemes": {"url": "url_scheme"},
}


def _error_types(schema: dict, unknown: set[str]) -> set[str]:
    kind = schema["type"]
    types = set(_BY_KIND.get(kind, ()))
    if kind not in _BY_KIND and kind not in _SILENT:
        unknown.add(kind)
    types |= {_BOUNDS[k] for k in _BOUNDS if k in schema}
    types |= {by_kind[kind] for key, by_kind in _LIMITS.items() if schema.get(key) is not None and kind in by_kind}
    if kind == "decimal" and schema.get("max_digits") is not None and schema.get("decimal_places") is not None:
        types.add("decimal_whole_digits")
    if kind == "model" and (schema.get("config") or {}).get("extra_fields_behavior") == "forbid":
        types.add("extra_forbidden")
    if kind == "model-fields":
        types |= {"missing"} if any(f["schema"]["type"] != "default" for f in schema["fields"].values()) else set()
        if schema.get("extra_behavior") == "forbid":
            types.add("extra_forbidden")
    for value in schema.values():
        for child in value.values() if isinstance(value, dict) and "type" not in value else [value]:
            for item in child if isinstance(child, list | tuple) else [child]:
                if isinstance(item, tuple):
                    item = item[0]
                if isinstance(item, dict) and isinstance(item.get("type"), str):
                    types |= _error_types(item, unknown)
    return types


def request_models() -> list[type[BaseModel]]:
    from portal.service.cfe.model import CfeInput
    from portal.service.platform.api import OPERATIONS
    from portal.service.platform.areas import area_modules

    area_modules("routes")  # importing the routes registers every operation
    models = {m for op in OPERATIONS for m in (op.body, op.query) if isinstance(m, type)}
    return sorted(models | {CfeInput}, key=lambda m: m.__name__)


def test_the_pydantic_table_says_every_error_the_request_models_can_produce():
    unknown: set[str] = set()
    producible = {"json_invalid", "json_type"}  # every JSON body
    for model in request_models():
        producible |= _error_types(model.__pydantic_core_schema__, unknown)
    assert unknown == set(), "schema kinds this test does not know: say which errors they raise"
    assert {"decimal_whole_digits", "too_short", "literal_error", "extra_forbidden", "value_error"} <= producible
    assert sorted(producible - set(pydantic_errors.MESSAGES)) == []


def test_an_error_without_a_row_is_never_said_in_english():
    """pydantic's own English never reaches people: a built-in type with no row gets the Spanish fallback,
    a PydanticCustomError of ours keeps its (Spanish) text."""
    from pydantic import ValidationError
    from pydantic_core import InitErrorDetails, PydanticCustomError

    details = [
        InitErrorDetails(type="uuid_parsing", loc=("id",), input="x", ctx={"error": "bad"}),
        InitErrorDetails(type=PydanticCustomError("rango_invalido", "La fecha desde es posterior."), loc=(), input=1),
        InitErrorDetails(type="decimal_whole_digits", loc=("items", 0, "precio"), input=1, ctx={"whole_digits": 11}),
    ]
    said = pydantic_errors.problems(ValidationError.from_exception_data("Body", details))
    assert [(p.field, p.code, p.message) for p in said] == [
        ("id", "invalid", "Valor no válido."),
        ("body", "invalid", "La fecha desde es posterior."),
        ("items[0].precio", "too_many_digits", "Demasiadas cifras antes de la coma (máximo 11)."),
    ]
