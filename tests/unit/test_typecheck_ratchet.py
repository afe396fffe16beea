"""scripts/typecheck.py's ratchet: a module may have as many mypy errors as the baseline counts, never more;
a strict module (portal.domain, portal.client) none at all."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "typecheck.py"


@pytest.fixture(scope="module")
def typecheck():
    spec = importlib.util.spec_from_file_location("typecheck", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_errors_are_counted_per_module(typecheck):
    lines = [
        "portal/web/a.py:3: error: Incompatible types  [assignment]",
        "portal/web/a.py:9:5: error: Missing  [arg-type]",
        "portal/web/a.py:9: note: See https://mypy.readthedocs.io",
        "portal/service/b.py:1: error: Name  [name-defined]",
        "Found 3 errors in 2 files (checked 2 source files)",
    ]
    assert typecheck.count_errors(lines) == Counter({"portal/web/a.py": 2, "portal/service/b.py": 1})


def test_more_errors_than_the_baseline_fail_and_fewer_are_reported(typecheck):
    current = Counter({"portal/web/a.py": 3, "portal/web/b.py": 1, "portal/web/new.py": 1})
    baseline = Counter({"portal/web/a.py": 2, "portal/web/b.py": 4})
    over, under = typecheck.compare(current, baseline)
    assert [line.split(":")[0] for line in over] == ["portal/web/a.py", "portal/web/new.py"]
    assert [line.split(":")[0] for line in under] == ["portal/web/b.py"]


def test_a_strict_module_may_have_no_error_whatever_the_baseline_says(typecheck):
    over, _under = typecheck.compare(Counter({"portal/client/base.py": 1}), Counter({"portal/client/base.py": 5}))
    assert over == ["portal/client/base.py: 1 errors, 0 allowed"]


def test_the_baseline_file_round_trips_without_empty_modules(typecheck, tmp_path):
    path = tmp_path / "baseline.txt"
    typecheck.write_baseline(Counter({"portal/web/b.py": 2, "portal/web/a.py": 1, "portal/web/fixed.py": 0}), path)
    assert typecheck.read_baseline(path) == Counter({"portal/web/a.py": 1, "portal/web/b.py": 2})
    assert path.read_text().startswith("#")


def test_the_committed_baseline_names_no_strict_module(typecheck):
    assert not [module for module in typecheck.read_baseline() if module.startswith(typecheck.STRICT)]
