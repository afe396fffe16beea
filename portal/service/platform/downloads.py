"""Long downloads: a list's CSV, a ZIP of signed XMLs, an IVA book. Each holds one of this process's threads for as
long as its reader takes (a year of receipts, a slow connection), so a process serves at most DOWNLOADS_PER_PROCESS
of them at a time, and at most DOWNLOADS_PER_COMPANY of one company: issuing always finds a thread, and one company
cannot take every download slot from the others.

The bound is per process because what it protects is the process's own threads. A download over it is refused
before any work: over the process's share with 503 `servicio_ocupado` (the portal's client tries again in a moment,
maybe on another process), over the company's with 429 `descargas_en_curso` (its other downloads must end first).
A slot is held from the answer until its last chunk is out or the server closes the answer (its reader gone)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from flask import Flask, current_app

from portal.service.platform.errors import ApiError
from portal.service.platform.i18n import _

Chunk = TypeVar("Chunk", str, bytes)

_RETRY_SECONDS = "5"

# What an operation that answers a long download adds to its documented answers.
RESPONSES = {
    429: "Como archivo (CSV, XLSX o ZIP): la empresa ya tiene sus descargas largas en curso, `descargas_en_curso` "
    "(Retry-After); o el límite de la clave de API, `rate_limited`.",
    503: "Como archivo: el proceso ya sirve todas las descargas largas que admite a la vez, `servicio_ocupado` "
    "(Retry-After); o la base de datos ocupada, `base_de_datos_ocupada`.",
}


class _Slots:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_company: Counter[int] = Counter()

    def take(self, company_id: int, per_process: int, per_company: int) -> None:
        with self._lock:
            if self._by_company[company_id] >= per_company:
                raise ApiError(
                    _("Ya hay otras descargas de tu empresa en curso: esperá a que termine alguna y probá de nuevo."),
                    code="descargas_en_curso",
                    status=429,
                    headers={"Retry-After": _RETRY_SECONDS},
                )
            if self._by_company.total() >= per_process:
                raise ApiError(
                    _("Hay muchas descargas en curso; probá de nuevo en unos segundos."),
                    code="servicio_ocupado",
                    status=503,
                    headers={"Retry-After": _RETRY_SECONDS},
                )
            self._by_company[company_id] += 1

    def give_back(self, company_id: int) -> None:
        with self._lock:
            self._by_company[company_id] -= 1
            if self._by_company[company_id] <= 0:
                del self._by_company[company_id]

    def held(self) -> int:
        with self._lock:
            return self._by_company.total()


def _slots_of(app: Flask) -> _Slots:
    # One set per app: a process serves one, and each test's app starts with its own.
    slots: _Slots = app.extensions.setdefault("download_slots", _Slots())
    return slots


class _Held(Iterator[Chunk]):
    """The download's chunks, giving its slot back once closed (werkzeug closes an answer's iterable when the
    server is done with it, whether or not it was read, and a generator never started would not run its finally)."""

    def __init__(self, chunks: Iterable[Chunk], slots: _Slots, company_id: int) -> None:
        self._chunks: Iterator[Chunk] = iter(chunks)
        self._slots = slots
        self._company_id = company_id
        self._open = True

    def __next__(self) -> Chunk:
        try:
            return next(self._chunks)
        except StopIteration:
            self.close()  # the last chunk is out: what is left of the answer is the server's flush
            raise

    def close(self) -> None:
        if not self._open:
            return
        self._open = False
        try:
            close = getattr(self._chunks, "close", None)
            if close is not None:
                close()
        finally:
            self._slots.give_back(self._company_id)


def held(company_id: int, chunks: Callable[[], Iterable[Chunk]]) -> Iterator[Chunk]:
    """The chunks `chunks()` makes, as a download of `company_id` holding one of the process's slots until it is
    closed; ApiError (429 or 503, with Retry-After) when none is free, before anything is made or read."""
    slots = _taken(company_id)
    try:
        return _Held(chunks(), slots, company_id)
    except BaseException:
        slots.give_back(company_id)
        raise


@contextmanager
def building(company_id: int) -> Iterator[None]:
    """A download built whole before it is sent (an XLSX workbook): its slot for as long as building it takes."""
    slots = _taken(company_id)
    try:
        yield
    finally:
        slots.give_back(company_id)


def _taken(company_id: int) -> _Slots:
    slots, config = _slots_of(current_app), current_app.config
    slots.take(company_id, config["DOWNLOADS_PER_PROCESS"], config["DOWNLOADS_PER_COMPANY"])
    return slots


def in_progress(app: Flask) -> int:
    """How many downloads `app` is serving now."""
    return _slots_of(app).held()
