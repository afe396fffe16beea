"""The API's one list contract: cursors name a sort key and nothing else."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from portal.service.platform.paging import decode_cursor, encode_cursor

keys = st.tuples(
    st.one_of(st.dates(), st.datetimes(timezones=st.just(UTC))),
    st.integers(min_value=0, max_value=2**62),
    st.text(max_size=40),
)


@given(keys)
def test_a_cursor_gives_back_the_key_it_was_made_from(key):
    cursor = encode_cursor(key)
    assert decode_cursor(cursor, 3) == key
    assert all(c.isalnum() or c in "-_" for c in cursor)  # fits a URL and the query's pattern as it is


@pytest.mark.parametrize(
    "cursor",
    ["no-es-un-cursor", "e30", encode_cursor((1, 2)), encode_cursor(("x",))[:-3], "W1sieCIsMV1d"],
)
def test_a_cursor_not_made_for_this_key_is_refused(cursor):
    with pytest.raises(ValueError):
        decode_cursor(cursor, 3 if cursor != encode_cursor((1, 2)) else 1)


def test_dates_and_moments_stay_what_they_were():
    moment = datetime(2026, 11, 27, 13, 5, 10, 123456, tzinfo=UTC)
    assert decode_cursor(encode_cursor((date(2026, 11, 27), moment)), 2) == (date(2026, 11, 27), moment)
