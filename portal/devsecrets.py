"""Development secrets: generated once by `make run` / `make test` into the gitignored var/secrets/.

Production reads every secret from the environment instead; nothing here is ever committed. Both the
service and the portal read the same folder, so the portal's OIDC client secret matches the one the
service registers.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from portal import paths


def secrets_dir() -> Path:
    return Path(os.environ.get("CFE_SECRETS_DIR", paths.var_dir() / "secrets"))


def read_secret(name: str) -> str | None:
    """The content of a generated secret file, or None when it has not been generated."""
    path = secrets_dir() / name
    return path.read_text() if path.is_file() else None


def _write_private(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(content)


def write_secret(name: str, content: str) -> None:
    """Store a generated secret (private to the owner); an existing file is kept as it is."""
    path = secrets_dir() / name
    if not path.exists():
        _write_private(path, content)


def ensure_secrets() -> list[str]:
    """Create whichever development secrets are missing; return the names created. Idempotent."""
    from cryptography.fernet import Fernet
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    def rsa_pem() -> str:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()

    generators = {
        "portal-secret-key": lambda: secrets.token_urlsafe(48),
        "service-secret-key": lambda: secrets.token_urlsafe(48),
        "portal-client-secret": lambda: secrets.token_urlsafe(32),
        "api-key-pepper": lambda: secrets.token_urlsafe(32),
        "field-encryption-key": lambda: Fernet.generate_key().decode(),
        "jwt-signing-key.pem": rsa_pem,
    }
    created = []
    for name, make in generators.items():
        path = secrets_dir() / name
        if not path.exists():
            _write_private(path, make())
            created.append(name)
    return created


if __name__ == "__main__":
    made = ensure_secrets()
    print(f"secrets in {secrets_dir()}: " + (", ".join(made) + " created" if made else "all present"))
