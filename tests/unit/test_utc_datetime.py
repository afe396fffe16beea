"""UtcDateTime: every stored moment comes back aware and in UTC, whatever offset it was written with.

PostgreSQL (timestamptz in a non-UTC session) is covered by tests/postgres/test_postgres.py.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Integer, create_engine, select
from sqlalchemy.exc import StatementError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from portal.domain.uruguay_time import MONTEVIDEO
from portal.sqltypes import NaiveDatetimeError, UtcDateTime


class _Base(DeclarativeBase):
    pass


class Moment(_Base):
    __tablename__ = "moment"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime | None] = mapped_column(UtcDateTime())


@pytest.fixture
def db(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'moments.db'}")
    _Base.metadata.create_all(engine)
    with Session(engine) as session:
        yield session
    engine.dispose()


def _stored(db: Session, *moments: datetime | None) -> list[datetime | None]:
    db.add_all(Moment(id=i, at=m) for i, m in enumerate(moments, start=1))
    db.commit()
    db.expunge_all()  # read back from the database, not the identity map
    return list(db.scalars(select(Moment.at).order_by(Moment.id)))


def test_a_montevideo_evening_comes_back_as_the_same_instant_in_utc(db):
    evening = datetime(2026, 11, 23, 21, 30, 15, 123456, tzinfo=MONTEVIDEO)
    (back,) = _stored(db, evening)
    assert back == evening
    assert back.tzinfo is UTC
    assert back == datetime(2026, 11, 24, 0, 30, 15, 123456, tzinfo=UTC)


def test_utc_and_none_come_back_unchanged(db):
    noon = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
    assert _stored(db, noon, None) == [noon, None]


def test_a_naive_datetime_is_refused_with_a_clear_error(db):
    db.add(Moment(id=1, at=datetime(2026, 11, 23, 21, 30)))
    with pytest.raises(StatementError) as raised:
        db.commit()
    assert isinstance(raised.value.orig, NaiveDatetimeError)
    assert "naive datetime 2026-11-23T21:30:00" in str(raised.value.orig)


def test_moments_written_with_different_offsets_sort_and_compare_as_time_does(db):
    # 22:00 in Montevideo is 01:00 UTC of the next day: later than 23:00 UTC, although its digits are smaller.
    montevideo_late = datetime(2026, 11, 23, 22, 0, tzinfo=MONTEVIDEO)
    utc_earlier = datetime(2026, 11, 23, 23, 0, tzinfo=UTC)
    _stored(db, montevideo_late, utc_earlier)
    assert list(db.scalars(select(Moment.id).order_by(Moment.at))) == [2, 1]
    # A bound parameter with its own offset is converted too: 20:30 Montevideo is 23:30 UTC.
    cutoff = datetime(2026, 11, 23, 20, 30, tzinfo=MONTEVIDEO)
    assert list(db.scalars(select(Moment.id).where(Moment.at < cutoff))) == [2]
    assert list(db.scalars(select(Moment.id).where(Moment.at > utc_earlier + timedelta(minutes=59)))) == [1]


def test_a_naive_bound_parameter_in_a_query_is_refused(db):
    with pytest.raises(StatementError) as raised:
        db.scalars(select(Moment.id).where(Moment.at < datetime(2026, 1, 1))).all()
    assert isinstance(raised.value.orig, NaiveDatetimeError)
