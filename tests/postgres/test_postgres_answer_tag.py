"""getByIdCfeEmitido's ETag on PostgreSQL: the same tests as on SQLite (tests/integration/test_receipt_answer_tag.py),
here through migration 0310's PL/pgSQL triggers."""

from __future__ import annotations

from tests.integration.test_receipt_answer_tag import (  # noqa: F401 - its fixtures and tests, run here again
    factura,
    service_config,
    test_a_304_only_after_the_callers_access_is_checked,
    test_a_collection_reference_changes_the_tag,
    test_a_note_issued_against_the_receipt_changes_its_tag,
    test_an_e_mail_send_changes_the_tag,
    test_the_dgi_state_and_its_envelope_change_the_tag,
    test_the_electronic_receivers_answer_changes_the_tag,
    test_the_same_answer_again_is_a_304_without_a_body,
    test_the_time_alone_makes_a_pending_receipt_late_and_changes_the_tag,
    user,
)
