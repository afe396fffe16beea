"""Response models as the API answers: None left out, except in a field the schema marks required (then null)."""

from __future__ import annotations

import json

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
