"""Fixtures shared by the unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.i18n import request_in


@pytest.fixture
def in_spanish() -> Iterator[None]:
    """A request in the portal's default language (tests.support.i18n.request_in): modules that say or read
    things as the portal does take it with `pytestmark = pytest.mark.usefixtures("in_spanish")`."""
    with request_in("es"):
        yield
