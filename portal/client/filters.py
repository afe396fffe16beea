"""The filters of a list as the service's query parameters: one builder for every list that filters (the receipt
list, the received CFEs). A filter class names its parameters (`PARAMS`: field -> parameter); the service's
field errors come back named after the fields (`FIELDS`: parameter -> field)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import ClassVar


class ListFilters:
    """Base of a frozen dataclass of optional filters: days as ISO dates, amounts as plain decimals, yes/no as
    true/false, text stripped; an empty or unset filter is left out."""

    PARAMS: ClassVar[dict[str, str]] = {}
    FIELDS: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.FIELDS = {param: name for name, param in cls.PARAMS.items()}

    def to_params(self) -> dict[str, str]:
        params = {}
        for name, param in self.PARAMS.items():
            value = getattr(self, name)
            if isinstance(value, bool):
                params[param] = "true" if value else "false"
            elif isinstance(value, date):
                params[param] = value.isoformat()
            elif isinstance(value, Decimal):
                params[param] = format(value, "f")
            elif value not in (None, ""):
                params[param] = str(value).strip()
        return params
