"""Response models as the API answers: None left out, except in a field the schema marks required (then null)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from portal.service.platform import responses


class Change(BaseModel):
    before: str | None = Field(alias="antes")
    after: str = Field(alias="despues")
    note: str | None = None


class History(BaseModel):
    changes: list[Change]
    last: Change | None = None


class Plain(BaseModel):
    name: str
    note: str | None = None


def test_a_required_field_without_value_is_null_and_an_optional_one_is_left_out():
    history = History(changes=[Change(antes=None, despues="COB-1"), Change(antes="COB-1", despues="COB-2")])
    dumped = responses.dump(history)
    assert dumped == {"changes": [{"antes": None, "despues": "COB-1"}, {"antes": "COB-1", "despues": "COB-2"}]}
    assert json.loads(responses.dump_json(history)) == dumped


def test_models_without_required_nulls_take_pydantics_own_serialisation():
    assert responses.dump_json(Plain(name="x")) == Plain(name="x").model_dump_json(exclude_none=True)


def _every_field_walk(value, data) -> None:
    """The walk `_restore` did before it skipped fields of plain data: every field of every model."""
    if isinstance(value, BaseModel) and isinstance(data, dict):
        for name, field in type(value).model_fields.items():
            key = field.serialization_alias or field.alias or name
            item = getattr(value, name)
            if item is None:
                if field.is_required():
                    data[key] = None
            elif key in data:
                _every_field_walk(item, data[key])
    elif isinstance(value, list | tuple) and isinstance(data, list):
        for item, dumped in zip(value, data, strict=False):
            _every_field_walk(item, dumped)


class Mixed(BaseModel):
    plain: dict
    rows: list[dict] = []
    maybe: Any = None
    anything: list[Any] = []
    nested: tuple[Change, ...] = ()
    history: History | None = None
    optional_required: Decimal | None = Field(alias="importe")
    when: datetime | None = None
    kind: Literal["a", "b"] | None = None


@pytest.mark.parametrize(
    "model",
    [
        Mixed(plain={"x": None}, importe=None),
        Mixed(
            plain={"a": [1, None]},
            rows=[{"b": None}],
            maybe=Change(antes=None, despues="x"),
            anything=[Change(antes=None, despues="y"), {"z": None}, None],
            nested=(Change(antes=None, despues="COB-1"),),
            history=History(changes=[Change(antes=None, despues="c")], last=Change(antes="c", despues="d")),
            importe=Decimal("1.50"),
            when=datetime(2026, 11, 28, 10, 0, tzinfo=UTC),
            kind="a",
        ),
        History(changes=[Change(antes=None, despues="COB-1"), Change(antes="COB-1", despues="COB-2")]),
    ],
)
def test_the_pruned_walk_restores_what_the_walk_of_every_field_did(model: BaseModel) -> None:
    ours = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    theirs = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    responses._restore(model, ours)
    _every_field_walk(model, theirs)
    assert ours == theirs
    assert json.dumps(ours) == json.dumps(theirs)  # the same keys in the same order


def test_the_receipt_answer_looks_only_at_required_fields_and_those_holding_models() -> None:
    from portal.service.comprobante.schemas import CfeEmitido

    plan = {name: descend for name, _key, _required, descend in responses._restore_plan(CfeEmitido)}
    assert "items" not in plan and "receptor" not in plan and plan["totales"] is False  # required: None is null
    assert all(plan[name] for name in ("historial_referencias", "dgi", "cae", "notas", "correo"))
