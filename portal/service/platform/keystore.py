"""Company signing certificates: the private key encrypted at rest, each key parsed once per process.

The encryption key (Fernet) comes from the environment or the generated development secrets, never from
the database, so a copy of the database alone does not yield a signing key.
"""

from __future__ import annotations

from datetime import UTC, datetime

from cryptography.fernet import Fernet
from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.service.cfe.signing import CfeSigner, shared_signer
from portal.service.platform.certificates import certificate_info
from portal.service.platform.errors import ApiError
from portal.service.platform.i18n import _
from portal.service.platform.models import Certificate, Company


def field_cipher() -> Fernet:
    """The cipher of private keys at rest (company certificates, the DGI simulator's own key)."""
    key = current_app.config.get("FIELD_ENCRYPTION_KEY")
    if not key:
        raise RuntimeError("No field encryption key: run `make run` or set CFE_FIELD_ENCRYPTION_KEY.")
    return Fernet(key.encode() if isinstance(key, str) else key)


def store_certificate(db: Session, company: Company, name: str, key_pem: bytes, cert_pem: bytes) -> Certificate:
    """Add a certificate (and its encrypted key) to a company; the caller commits."""
    info = certificate_info(cert_pem)
    cert = Certificate(
        company_id=company.id,
        name=name,
        cert_pem=cert_pem.decode(),
        key_encrypted=field_cipher().encrypt(key_pem),
        serial=str(info.serial),
        subject=info.subject,
        issuer=info.issuer,
        not_before=info.not_before,
        not_after=info.not_after,
    )
    db.add(cert)
    return cert


def private_key_pem(cert: Certificate) -> bytes:
    """The decrypted private key. Callers that sign keep what they build from it (see signer_for)."""
    return field_cipher().decrypt(cert.key_encrypted)


def signing_certificate(session: Session, company_id: int, certificate_id: int | None = None) -> Certificate:
    """The certificate that signs for the company: the one asked for, or the valid one expiring last."""
    now = datetime.now(UTC)
    query = select(Certificate).where(Certificate.company_id == company_id)
    if certificate_id is not None:
        query = query.where(Certificate.id == certificate_id)
    candidates = [
        c
        for c in session.scalars(query.order_by(Certificate.not_after.desc()))
        if c.not_before <= now <= c.not_after and c.retired_at is None
    ]
    if not candidates:
        raise ApiError(
            _("La empresa no tiene un certificado de firma vigente."), code="sin_certificado_vigente", status=409
        )
    return candidates[0]


def signer_for(cert: Certificate) -> CfeSigner:
    """The certificate's signer, built once per process (`shared_signer`: parsing a key costs ~30 ms; decrypting
    it again, about 0.05 ms, is what each call costs)."""
    algorithm = current_app.config.get("CFE_SIGNATURE_ALGORITHM", "sha256")
    return shared_signer(private_key_pem(cert), cert.cert_pem.encode(), algorithm)
