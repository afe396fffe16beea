"""Products on PostgreSQL, whose column types bound what SQLite keeps whole: the same tests as on SQLite."""

from __future__ import annotations

from tests.integration.test_productos_api import (  # noqa: F401  # the fixtures and tests, run on PostgreSQL
    test_a_name_that_grows_when_folded_is_kept_and_found,
    test_a_price_is_what_a_cfe_line_can_carry,
    user,
)
