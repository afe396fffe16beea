"""emitir's two paths on PostgreSQL: the same answers and the same rows as on SQLite (the plain path runs its
statements on psycopg's cursor: JSON, dates and UTC datetimes bound and read as the Core statements do)."""

from tests.integration.test_issued_answer import (  # noqa: F401 - collected here against PostgreSQL
    compared,
    test_a_note_with_references_and_its_original_answer_alike,
    test_a_replay_of_a_plain_issue_is_its_answer,
    test_both_paths_store_the_same_rows,
    test_the_issuing_answer_is_the_models_answer_byte_for_byte,
    user,
)
