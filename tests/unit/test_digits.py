"""Numbers written as text are read in ASCII digits only (portal/domain/digits.py)."""

import pytest

from portal.domain.digits import ascii_number


@pytest.mark.parametrize(("text", "number"), [("0", 0), ("42", 42), ("0007", 7)])
def test_ascii_digits_are_a_number(text, number):
    assert ascii_number(text) == number


@pytest.mark.parametrize("text", [None, "", " 4", "4 ", "-4", "+4", "4.0", "²", "٣", "4²", "IV", "1_000"])
def test_anything_else_is_none_never_an_exception(text):
    assert ascii_number(text) is None
