"""No dict crosses the client: every public method of the client takes and returns typed values, and so does
every field of the request and result classes they take and return (the service's JSON stays inside)."""

from __future__ import annotations

import collections.abc
import dataclasses
import inspect
import typing

import pytest

from portal.client import CfeClient, UserApi
from portal.client.cfe import CfeRequest

# What a signature or a field must never be, nor hold: the service's JSON in disguise.
RAW_JSON = (dict, collections.abc.Mapping, collections.abc.MutableMapping, typing.Any)


def _public_methods(cls: type) -> list[tuple[str, object]]:
    """The public methods `cls` has from portal.client (or from its own module: the scan's own test)."""
    modules = ("portal.client", cls.__module__)
    return [
        (name, member)
        for name, member in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_") and member.__module__.startswith(modules)
    ]


def _raw_parts(annotation, where: str, seen: set) -> list[str]:
    """Where `annotation` is, or holds, a dict, a Mapping or Any; follows dataclasses into their fields."""
    origin = typing.get_origin(annotation) or annotation
    if annotation is typing.Any or origin in RAW_JSON:
        return [f"{where}: {annotation!r}"]
    problems = []
    for argument in typing.get_args(annotation):
        if argument is not Ellipsis:
            problems += _raw_parts(argument, where, seen)
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation) and annotation not in seen:
        seen.add(annotation)
        hints = typing.get_type_hints(annotation)
        for field in dataclasses.fields(annotation):
            problems += _raw_parts(hints[field.name], f"{annotation.__name__}.{field.name}", seen)
    return problems


def _signature_problems(cls: type) -> list[str]:
    problems, seen = [], set()
    for name, method in _public_methods(cls):
        for part, annotation in typing.get_type_hints(method).items():
            problems += _raw_parts(annotation, f"{cls.__name__}.{name}({part})", seen)
    return problems


def test_the_scan_sees_every_endpoint_method():
    names = {name for name, _method in _public_methods(UserApi)}
    assert {"issue_receipt", "search_receipts", "smart_preview", "note_draft", "void_numbers"} <= names
    assert len(names) >= 40


@pytest.mark.parametrize("cls", [UserApi, CfeClient])
def test_no_public_method_takes_or_returns_raw_json(cls):
    assert _signature_problems(cls) == []


@dataclasses.dataclass(frozen=True)
class _Nested:
    items: tuple[dict, ...]


class _Leaky:
    def takes(self, body: dict) -> None: ...
    def returns(self) -> list[dict[str, int]]: ...
    def optional(self, body: collections.abc.Mapping | None = None) -> None: ...
    def anything(self) -> typing.Any: ...
    def nested(self) -> _Nested: ...
    def fine(self, number: int, names: tuple[str, ...]) -> CfeRequest | None: ...


def test_the_scan_finds_a_dict_however_it_is_wrapped():
    assert [problem.split(":")[0] for problem in _signature_problems(_Leaky)] == [
        "_Leaky.anything(return)",
        "_Nested.items",
        "_Leaky.optional(body)",
        "_Leaky.returns(return)",
        "_Leaky.takes(body)",
    ]


def test_a_request_reads_back_what_it_wrote():
    """to_json and from_json are inverses over every part a CFE request has (the service echoes drafts)."""
    from tests.support import cfe_bodies as bodies

    for body in (bodies.ETICKET, bodies.EFACTURA, bodies.EREMITO, bodies.ERESGUARDO, bodies.DGI_SAMPLE_ETICKET):
        request = CfeRequest.from_json(bodies.body(body))
        assert CfeRequest.from_json(request.to_json()) == request
        assert set(request.to_json()) == set(body)
