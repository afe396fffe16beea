"""Password hashing with argon2id: slow on purpose, used only at sign-in, never per API request."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()
# Verifying against this when the e-mail is unknown keeps the timing of both failures alike. A hash made once,
# with argon2's default parameters (the hasher's): hashing it at import cost every process 0.15 s of CPU at
# start, and a hash of a public text is no secret. tests/unit/test_passwords.py keeps its parameters the
# hasher's, so both failures still cost the same.
_DUMMY_HASH = "$argon2id$v=19$m=65536,t=3,p=4$990mlr5X5Pox75mheQDYnA$GSVhW7HH9gOPtGDSd/TMBr+XCuVoJSPzVTINY9sWE9Y"


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(stored_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(stored_hash or _DUMMY_HASH, password) and stored_hash is not None
    except (VerificationError, InvalidHashError):
        return False
