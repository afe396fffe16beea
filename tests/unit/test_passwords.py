"""The dummy hash that equalises sign-in timing for unknown e-mails costs what a real user's hash costs."""

from __future__ import annotations

import importlib.util

from argon2 import extract_parameters

from portal.service.identity import passwords


def test_the_dummy_hash_has_the_hashers_own_parameters():
    # A fresh copy of the module: the suite swaps the imported one's hasher and dummy for cheap ones (conftest).
    spec = importlib.util.find_spec(passwords.__name__)
    production = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(production)
    dummy, hasher = extract_parameters(production._DUMMY_HASH), production._hasher
    assert (dummy.type, dummy.time_cost, dummy.memory_cost, dummy.parallelism, dummy.hash_len) == (
        hasher.type,
        hasher.time_cost,
        hasher.memory_cost,
        hasher.parallelism,
        hasher.hash_len,
    )
    assert production._hasher.verify(production._DUMMY_HASH, "timing-equaliser")


def test_an_unknown_email_and_a_wrong_password_are_both_refused():
    assert passwords.verify_password(None, "timing-equaliser") is False
    assert passwords.verify_password(passwords.hash_password("right"), "wrong") is False
    assert passwords.verify_password(passwords.hash_password("right"), "right") is True
