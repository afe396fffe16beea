"""Answers the client keeps by their ETag, to ask the service again with If-None-Match (a 304 reuses them).

Kept per process (CfeClient) by what the answer was asked with: the resource, the caller's credential (as a
digest), the company and the language. The service checks the caller's access on every request before it
answers 304, so what is kept is only ever handed back to a caller the service has just let see it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TypeVar

from portal.lru import LruStore

T = TypeVar("T")

_ASKED_WITH = ("Authorization", "X-API-Key", "X-Empresa-Id", "Accept-Language")


class KeptAnswers(LruStore[str, tuple[str, T]]):
    """The last `size` parsed answers with their ETags (get: `(ETag, answer)` or None), by `key`. Thread-safe."""

    @staticmethod
    def key(resource: str, headers: Mapping[str, str]) -> str:
        asked = "\x00".join([resource, *(headers.get(name, "") for name in _ASKED_WITH)])
        return hashlib.blake2b(asked.encode(), digest_size=16).hexdigest()
