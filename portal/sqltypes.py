"""One column type for moments, shared by the service's and the portal's tables.

`UtcDateTime` stores an aware datetime as UTC and always gives back an aware UTC datetime, on SQLite and on
PostgreSQL alike, so no code that reads a stored moment has to guess its offset. SQLite has no time zones:
SQLAlchemy's plain `DateTime` writes the wall-clock digits it is given and drops the offset (a Montevideo
time would come back three hours off, naive); PostgreSQL's `timestamptz` comes back in the session's zone.

A naive datetime is refused on write (it could be anyone's clock). Converting to Montevideo's clock for a
fiscal date or a printed time is a separate, explicit step: portal/domain/uruguay_time.py.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


class NaiveDatetimeError(ValueError):
    """A datetime without an offset was given to a UTC column (a bug in the caller, not bad input)."""


class UtcDateTime(TypeDecorator[datetime]):
    """`DateTime(timezone=True)` that stores UTC and returns aware UTC datetimes (see the module docstring).

    Same database type as `DateTime(timezone=True)`: adopting it needs no migration.
    """

    impl = DateTime
    cache_ok = True

    def __init__(self) -> None:
        super().__init__(timezone=True)

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if not isinstance(value, datetime):
            raise TypeError(f"UtcDateTime expects a datetime, got {type(value).__name__}: {value!r}")
        if value.utcoffset() is None:
            raise NaiveDatetimeError(
                f"UtcDateTime refuses the naive datetime {value.isoformat()}: give it its offset "
                "(datetime.now(UTC), or .replace(tzinfo=MONTEVIDEO) for a Uruguayan wall-clock time)"
            )
        moment = value.astimezone(UTC)
        # SQLite keeps the digits only: store UTC's, so stored text sorts and compares as time does.
        return moment.replace(tzinfo=None) if dialect.name == "sqlite" else moment

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        # SQLite gives back the UTC digits written above; PostgreSQL an aware value in the session's zone.
        return value.replace(tzinfo=UTC) if value.utcoffset() is None else value.astimezone(UTC)
