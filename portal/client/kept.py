"""Answers the client keeps by their ETag, to ask the service again with If-None-Match (a 304 reuses them).

Kept per process (CfeClient) by what the answer was asked with: the resource, the caller's credential (as a
digest), the company and the language. The service checks the caller's access on every request before it
answers 304, so what is kept is only ever handed back to a caller the service has just let see it.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Generic, TypeVar

T = TypeVar("T")

_ASKED_WITH = ("Authorization", "X-API-Key", "X-Empresa-Id", "Accept-Language")


class KeptAnswers(Generic[T]):
    """The last `size` parsed answers with their ETags, least recently used dropped first. Thread-safe."""

    def __init__(self, size: int = 256):
        self._size = size
        self._answers: OrderedDict[str, tuple[str, T]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(resource: str, headers: Mapping[str, str]) -> str:
        asked = "\x00".join([resource, *(headers.get(name, "") for name in _ASKED_WITH)])
        return hashlib.blake2b(asked.encode(), digest_size=16).hexdigest()

    def get(self, key: str) -> tuple[str, T] | None:
        """(ETag, answer) kept for `key`, or None."""
        with self._lock:
            kept = self._answers.get(key)
            if kept is not None:
                self._answers.move_to_end(key)
            return kept

    def put(self, key: str, etag: str, answer: T) -> None:
        with self._lock:
            self._answers[key] = (etag, answer)
            self._answers.move_to_end(key)
            while len(self._answers) > self._size:
                self._answers.popitem(last=False)

    def drop(self, key: str) -> None:
        with self._lock:
            self._answers.pop(key, None)
