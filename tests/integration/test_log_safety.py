"""Nothing a caller sends can forge a log line: control characters reach the log escaped, one record a line."""

from __future__ import annotations

import io
import logging
import re

import pytest
from flask import request

from portal import logsafe

_RECORD_START = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (INFO|WARNING|ERROR|DEBUG|CRITICAL) ")
FORGED = "2026-01-01 00:00:00,000 INFO portal.service.access [-] GET /admin 200 who=admin@demo.uy"


@pytest.fixture
def log_output():
    """What the project's own handler on the `portal` logger writes, while the test runs."""
    handler = logsafe.install("portal")
    stream = io.StringIO()
    previous = handler.setStream(stream)
    yield stream
    handler.setStream(previous)


def _records(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("    | ")]


def test_escape_writes_every_control_character_as_an_escape():
    assert logsafe.escape("a\r\nb\tc\x1b[31m\x00\u2028\\n\x85é") == "a\\r\\nb\\tc\\x1b[31m\\x00\\u2028\\\\n\\x85é"


def test_a_record_with_newlines_in_message_and_arguments_is_one_line():
    formatter = logsafe.SafeFormatter("%(levelname)s %(message)s")
    record = logging.LogRecord("portal.x", logging.WARNING, __file__, 1, "user %s\nsays", ("eve\r\n" + FORGED,), None)
    assert formatter.format(record).splitlines() == [f"WARNING user eve\\r\\n{FORGED}\\nsays"]


def test_tracebacks_stay_readable_but_every_continuation_line_is_marked():
    formatter = logsafe.SafeFormatter("%(levelname)s %(message)s")
    try:
        raise ValueError("bad input:\n" + FORGED)
    except ValueError:
        import sys

        record = logging.LogRecord("portal.x", logging.ERROR, __file__, 1, "boom", (), sys.exc_info())
    lines = formatter.format(record).splitlines()
    assert lines[0] == "ERROR boom" and len(lines) > 2
    assert all(line.startswith("    | ") for line in lines[1:])


def test_a_service_path_with_an_encoded_newline_does_not_forge_an_access_line(api_client, log_output):
    answer = api_client.get("/api/v1/no-such%0D%0A" + FORGED.replace(" ", "%20"))
    assert answer.status_code == 404
    written = log_output.getvalue()
    records = _records(written)
    assert records and all(_RECORD_START.match(line) for line in records), written
    assert not any(line.startswith("2026-01-01") for line in records)
    assert "\\r\\n2026-01-01 00:00:00,000 INFO portal.service.access" in written


def test_the_portal_logs_through_the_escaping_formatter(portal_app, log_output):
    @portal_app.get("/_echo")
    def echo():
        logging.getLogger("portal.web.test").warning("typed: %s", request.args["q"])
        return "ok"

    portal_app.test_client().get("/_echo", query_string={"q": "x\n" + FORGED})
    records = _records(log_output.getvalue())
    assert len(records) == 1 and records[0].endswith(f"typed: x\\n{FORGED}")
