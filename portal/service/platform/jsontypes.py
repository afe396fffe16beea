"""Request field types that accept exactly what their JSON Schema says.

JSON Schema's `integer` is a number with no fraction, however it is written: `44904.0` is one (JSON Schema
2020-12, "integer"), so a client or a generator following the OpenAPI document may send it. pydantic's
`StrictInt` refused it with `int_type`, a schema looser than the server. `WHOLE_NUMBER` after a StrictInt's
constraints takes such a number as the integer it is, and still refuses a fraction, a text ("5") and a boolean,
as the schema does:

    Limit = Annotated[StrictInt, Field(ge=1, le=100), WHOLE_NUMBER]

(after the constraints, so that they stay `minimum`/`maximum` in the JSON Schema)."""

from __future__ import annotations

from pydantic import BeforeValidator


def _whole_number(value: object) -> object:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WHOLE_NUMBER = BeforeValidator(_whole_number)
