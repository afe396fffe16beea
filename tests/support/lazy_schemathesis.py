"""schemathesis' per-operation tests built when they run, not when they are collected.

`schema.parametrize()` builds each operation's Hypothesis test at collection, and building it computes the
operation's coverage cases (every boundary, every constraint broken): about 10 s of CPU for the whole
document. Under pytest-xdist every worker collects every test, so make test's three workers each spent those
10 s, and at most one of them runs any given operation. Here collection gets a stand-in with the built
test's signature (its fixtures) and the build, the very same call schemathesis makes, happens in
pytest_runtest_setup of the item that runs it: the same cases, the same checks, once per operation per run.
A definition schemathesis cannot build a test from fails that operation's item when it runs (at collection,
schemathesis made it a failing item; either way the run fails).

Loaded from tests/conftest.py; it changes nothing for a test that is not schemathesis'.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

_BUILD = "_cfe_build_operation_test"


def _deferred(build: Callable[..., Callable], **arguments: Any) -> Callable:
    test_func = arguments["test_func"]
    given = {"case", *arguments.get("given_kwargs", {})}
    parameters = [p for p in inspect.signature(test_func).parameters.values() if p.name not in given]

    def stand_in(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("schemathesis' test was not built before it ran (tests/support/lazy_schemathesis.py)")

    stand_in.__name__ = test_func.__name__
    stand_in.__qualname__ = test_func.__qualname__
    stand_in.__module__ = test_func.__module__
    stand_in.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    stand_in.is_hypothesis_test = True  # type: ignore[attr-defined]  # what the built test is (hypothesis' marker)
    setattr(stand_in, _BUILD, lambda: build(**arguments))
    return stand_in


def pytest_configure(config: pytest.Config) -> None:
    try:
        from schemathesis.pytest import _test_builder
    except ImportError:  # pragma: no cover - schemathesis is a test dependency
        return
    build = _test_builder.build_operation_test
    if getattr(build, "deferred", False):
        return

    def build_operation_test(**arguments: Any) -> Callable:
        return _deferred(build, **arguments)

    build_operation_test.deferred = True  # type: ignore[attr-defined]
    # schemathesis' collector imports it from this module each time it builds an operation's items.
    _test_builder.build_operation_test = build_operation_test


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    build = getattr(getattr(item, "obj", None), _BUILD, None)
    if build is not None:
        item.obj = build()  # type: ignore[attr-defined]
