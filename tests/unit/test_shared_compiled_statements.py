"""The suite's engines share compiled statements (tests/conftest.py, SharedCompiledStatements): a statement compiled
for one engine is reused by another engine of an alike dialect, gives the SQL the library compiles for it
uncached, and reads each engine's own database."""

from __future__ import annotations

from sqlalchemy import Column, Integer, MetaData, String, Table, create_engine, insert, select
from sqlalchemy.orm import Session

from tests.conftest import SharedCompiledStatements

company = Table(
    "company", MetaData(), Column("id", Integer, primary_key=True), Column("rut", String), Column("name", String)
)


def _engine(path):
    engine = create_engine(f"sqlite:///{path}")
    company.metadata.create_all(engine)
    return engine


def test_a_second_engine_reuses_what_the_first_compiled_and_reads_its_own_database(tmp_path):
    first, second = _engine(tmp_path / "a.db"), _engine(tmp_path / "b.db")
    assert isinstance(first._compiled_cache, SharedCompiledStatements)
    assert first._compiled_cache is second._compiled_cache
    with first.begin() as connection:
        connection.execute(insert(company).values(id=1, rut="211234560018", name="Primera"))
    statement = select(company.c.name).where(company.c.rut == "211234560018").limit(3)

    with Session(first) as session:
        before = len(first._compiled_cache.entries)
        assert session.execute(statement).scalars().all() == ["Primera"]
        assert len(first._compiled_cache.entries) == before + 1  # compiled once, for the first engine
    with Session(second) as session:
        assert session.execute(statement).scalars().all() == []  # the second database, not the first's rows
        assert len(second._compiled_cache.entries) == before + 1  # and not compiled again

    uncached = create_engine("sqlite://", query_cache_size=0)  # the library's own compile, no cache at all
    assert uncached._compiled_cache is None
    cached, *_ = statement._compile_w_cache(
        second.dialect, compiled_cache=second._compiled_cache, column_keys=[], for_executemany=False
    )
    assert str(cached) == str(statement.compile(dialect=uncached.dialect))
    assert cached.positiontup == statement.compile(dialect=uncached.dialect).positiontup
    for engine in (first, second, uncached):
        engine.dispose()


def test_dialects_that_differ_do_not_share(tmp_path):
    from sqlalchemy.dialects import postgresql

    sqlite = create_engine(f"sqlite:///{tmp_path / 'c.db'}")
    key = (sqlite.dialect, "statement", (), False, False)
    sqlite._compiled_cache[key] = "sqlite's"
    other = postgresql.psycopg.dialect()
    assert sqlite._compiled_cache.get((other, "statement", (), False, False)) is None
    assert sqlite._compiled_cache.get(key) == "sqlite's"
    sqlite.dispose()
