"""How many schemathesis cases the run sent, summed over pytest-xdist's workers, and a failed run when the whole
case test ran and sent fewer than MIN_CASES (issue 13 asks for at least 1,000).

A test that counted after the cases could only see its own worker's: make test hands out tests two at a time
(`--maxschedchunk 2`, so no worker is left with a long tail), and the cases of the one parametrized test land on
every worker. Each worker reports its count through xdist's `workeroutput`; the controller (or a run without
xdist) adds them up once every worker is down, and checks only when every collected item of the case test ran,
so a run of a few operations (`-k emitir`) is not held to the whole suite's number. Loaded from tests/conftest.py.
"""

from __future__ import annotations

import os

import pytest

CASES_TEST = "test_every_generated_request_gets_a_documented_answer"
MIN_CASES = int(os.environ.get("CFE_FUZZ_MIN_CASES", "1000"))
# Each case the case test sends, as its operation's label (appended by the test, in whichever process runs it).
SENT: list[str] = []

_items = [0]  # how many items of the case test this process collected, before -k or -m deselected any
# How many of them ran to the end (passed or failed), as the reports say. Counted, not kept by id: schemathesis
# gives every operation's item the test's own node id.
_ran = [0]
_reported: list[dict] = []  # each xdist worker's count of cases sent and of items collected
_summary: list[tuple[str, dict]] = []


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    _items[0] = sum(CASES_TEST in item.nodeid for item in items)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and CASES_TEST in report.nodeid:
        _ran[0] += 1


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    _reported.append(getattr(node, "workeroutput", {}))


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller decides
        workeroutput.update(schemathesis_cases=len(SENT), schemathesis_items=_items[0])
        return
    items = max([_items[0], *(report.get("schemathesis_items", 0) for report in _reported)])
    if not items or _ran[0] < items:
        return
    sent = len(SENT) + sum(report.get("schemathesis_cases", 0) for report in _reported)
    if sent < MIN_CASES:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        _summary.append((f"schemathesis sent {sent} cases: fewer than the {MIN_CASES} required", {"red": True}))
    else:
        _summary.append((f"schemathesis sent {sent} cases over {items} operations", {}))


def pytest_terminal_summary(terminalreporter) -> None:
    """Said with the run's summary (which comes after pytest_sessionfinish's implementations)."""
    for line, markup in _summary:
        terminalreporter.write_sep("-", line, **markup)
