"""A response model as JSON: values that are absent are left out, but a field the schema marks required is always
there, `null` when it has no value.

The API leaves out `None` (`exclude_none`) so that optional values that are not set do not clutter the answers.
A field without a default is required in the OpenAPI document, though: leaving it out when it is None broke the
answer's own schema (`referenciaAnterior` of the first `CambioReferencia`). Models with no such field take
pydantic's fast path unchanged."""

from __future__ import annotations

import functools
import json
import types
import typing
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, TypeAdapter


def dump(model: BaseModel) -> Any:
    """The model's JSON value (by alias, None left out except where the field is required)."""
    data = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    if _has_required_nulls(type(model)):
        _restore(model, data)
    return data


def dump_json(model: BaseModel) -> str:
    """`dump` as a JSON text."""
    if not _has_required_nulls(type(model)):
        return model.model_dump_json(by_alias=True, exclude_none=True)
    return json.dumps(dump(model), ensure_ascii=False, separators=(",", ":"))


def moment(value: datetime) -> str:
    """A moment as every model of the API answers it (pydantic's JSON: UTC with `Z`), for an answer built as a dict:
    `isoformat()` wrote `+00:00` there, so one moment read two ways in two answers."""
    return _MOMENT.dump_python(value, mode="json")


def optional_moment(value: datetime | None) -> str | None:
    """`moment`, or None."""
    return None if value is None else moment(value)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for argument in typing.get_args(annotation):
        found.extend(_models_in(argument))
    return found


def _nullable(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    return (origin is typing.Union or origin is types.UnionType) and type(None) in typing.get_args(annotation)


@functools.cache
def _has_required_nulls(model: type[BaseModel], _seen: frozenset[type] = frozenset()) -> bool:
    for field in model.model_fields.values():
        if field.is_required() and _nullable(field.annotation):
            return True
        for inner in _models_in(field.annotation):
            if inner not in _seen and _has_required_nulls(inner, _seen | {model}):
                return True
    return False


def _restore(value: Any, data: Any) -> None:
    if isinstance(value, BaseModel) and isinstance(data, dict):
        for name, key, required, descend in _restore_plan(type(value)):
            item = getattr(value, name)
            if item is None:
                if required:
                    data[key] = None
            elif descend and key in data:
                _restore(item, data[key])
    elif isinstance(value, list | tuple) and isinstance(data, list):
        for item, dumped in zip(value, data, strict=False):
            _restore(item, dumped)


@functools.cache
def _restore_plan(model: type[BaseModel]) -> tuple[tuple[str, str, bool, bool], ...]:
    """The fields `_restore` must look at: the required ones (a None among them is written null) and those that
    may hold a model (looked into). A field of plain data (scalars, dicts, lists of those) holds neither: walking
    it was a third of a receipt answer's JSON time."""
    plan = []
    for name, field in model.model_fields.items():
        required, descend = field.is_required(), not _plain_data(field.annotation)
        if required or descend:
            plan.append((name, field.serialization_alias or field.alias or name, required, descend))
    return tuple(plan)


_MOMENT: TypeAdapter[datetime] = TypeAdapter(datetime)
_SCALARS = (str, int, float, bool, Decimal, date, datetime, type(None))


def _plain_data(annotation: Any) -> bool:
    """Whether a field so annotated can hold no model `_restore` would look into: a scalar, a dict (whose values it
    never looks into), or a list, tuple or union of those. Anything else (a model, Any, a type it does not know)
    is looked into, as every field was."""
    if annotation in _SCALARS or annotation is dict:
        return True
    origin = typing.get_origin(annotation)
    if origin is dict:
        return True
    if origin in (list, tuple, typing.Union, types.UnionType, typing.Literal):
        return origin is typing.Literal or all(
            argument is Ellipsis or _plain_data(argument) for argument in typing.get_args(annotation)
        )
    return False
