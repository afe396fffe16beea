"""A small thread-safe store of the last N values used, the least recently used dropped first.

The portal keeps two such stores per process (the backend client's kept receipt answers, the receipt pages it
rendered); functools.lru_cache memoizes a function and cannot be read without computing, nor given a value.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LruStore(Generic[K, V]):
    """At most `size` values by key; reading or writing a key makes it the most recently used."""

    def __init__(self, size: int = 256):
        self._size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self._size:
                self._values.popitem(last=False)

    def drop(self, key: K) -> None:
        with self._lock:
            self._values.pop(key, None)

    def __len__(self) -> int:
        return len(self._values)
