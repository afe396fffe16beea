"""The schemathesis case count (tests/support/case_count.py) adds up what every xdist worker sent, fails the run
when the whole case test sent fewer than the minimum, and leaves a run of a few operations alone. Each run here
is a real pytest, two workers where it matters, over a stand-in case test that sends three cases per item."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]
STAND_IN = """
import pytest
from tests.support.case_count import SENT

@pytest.mark.parametrize("operation", ["GET /a", "POST /b", "PUT /c", "DELETE /d"])
def test_every_generated_request_gets_a_documented_answer(operation):
    SENT.extend([operation] * 3)
"""


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    # Only the plugins these runs need: importing playwright's, schemathesis' and hypothesis' in every process
    # (a run and its two workers) was most of their time.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_cases=STAND_IN)

    def run(minimum: int, *args: str) -> pytest.RunResult:
        monkeypatch.setenv("CFE_FUZZ_MIN_CASES", str(minimum))
        plugins = ("-p", "xdist.plugin", "-p", "tests.support.case_count", "-p", "no:cacheprovider")
        return pytester.runpytest_subprocess(*plugins, *args)

    return run


def test_the_count_is_the_sum_over_the_workers(run):
    result = run(12, "-n", "2")  # each worker runs two items: six cases apiece
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*schemathesis sent 12 cases over 4 operations*"])


def test_fewer_cases_than_the_minimum_fail_the_run(run):
    result = run(13, "-n", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*schemathesis sent 12 cases: fewer than the 13 required*", "*4 passed*"])


def test_a_run_of_some_operations_is_not_held_to_the_minimum(run):
    result = run(13, "-k", "POST")
    assert result.ret == 0, result.stdout.str()
    assert "schemathesis sent" not in result.stdout.str()
