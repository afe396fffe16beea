"""portal.lru.LruStore: the kept receipt answers' and the rendered receipt pages' store."""

from __future__ import annotations

from portal.lru import LruStore


def test_the_least_recently_used_goes_first_and_reading_counts_as_use():
    store: LruStore[str, int] = LruStore(size=2)
    store.put("a", 1)
    store.put("b", 2)
    assert store.get("a") == 1  # "b" is now the least recently used
    store.put("c", 3)
    assert (store.get("a"), store.get("b"), store.get("c")) == (1, None, 3)
    assert len(store) == 2


def test_writing_a_key_again_replaces_its_value_and_drop_forgets_it():
    store: LruStore[str, int] = LruStore(size=2)
    store.put("a", 1)
    store.put("a", 5)
    assert store.get("a") == 5 and len(store) == 1
    store.drop("a")
    store.drop("never")
    assert store.get("a") is None
