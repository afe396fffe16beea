"""The provider's RS256 signing key, loaded once per process, and the public JWKS derived from it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from joserfc.jwk import KeyParameters, KeySet, RSAKey


@dataclass(frozen=True)
class SigningKeys:
    private_key: RSAKey
    private_set: KeySet
    public_set: KeySet

    @property
    def kid(self) -> str:
        kid = self.private_key.kid
        if kid is None:  # load_signing_keys always sets it
            raise RuntimeError("The signing key has no key id.")
        return kid

    def public_jwks(self) -> dict[str, Any]:
        return dict(self.public_set.as_dict(private=False))


@lru_cache(maxsize=8)
def load_signing_keys(private_pem: str) -> SigningKeys:
    """Keys from a PEM private key; the key id is its RFC 7638 thumbprint, stable across restarts.

    Cached per PEM: parsing checks the RSA key (about 80 ms of CPU, most of what create_app costs), and the
    keys are immutable, so every app of a process with the same key (tests make hundreds) shares one."""
    if not private_pem:
        raise RuntimeError("No JWT signing key: run `make run` (it generates one) or set CFE_JWT_PRIVATE_KEY.")
    probe = RSAKey.import_key(private_pem)
    params: KeyParameters = {"kid": probe.thumbprint(), "use": "sig", "alg": "RS256"}
    private_key = RSAKey.import_key(private_pem, params)
    public_key = RSAKey.import_key(private_key.as_dict(private=False), params)
    return SigningKeys(private_key, KeySet([private_key]), KeySet([public_key]))
