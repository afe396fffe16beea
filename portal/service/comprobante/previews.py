"""Preview links: a preview PDF kept for a few minutes behind an unguessable token (only its SHA-256 is
stored), so an API client can hand the link to a browser."""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete

from portal.service.comprobante.models import PreviewToken
from portal.service.platform import db

PREVIEW_LIFETIME = timedelta(minutes=10)
_MAX_TOKEN_LENGTH = 100


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def store(company_id: int, pdf: bytes) -> tuple[str, datetime]:
    """Keep `pdf` for the company; returns the token and when it expires (expired previews are dropped)."""
    token = secrets.token_urlsafe(32)
    now = datetime.now(UTC)
    with db.write_transaction() as session:
        session.execute(delete(PreviewToken).where(PreviewToken.expires_at < now))
        session.add(
            PreviewToken(token_hash=_hash(token), company_id=company_id, pdf=pdf, expires_at=now + PREVIEW_LIFETIME)
        )
    return token, now + PREVIEW_LIFETIME


def find(token: str, company_id: int) -> bytes | None:
    """The company's preview PDF while its token lives; None otherwise (another company's is None too)."""
    record = db.session().get(PreviewToken, _hash(token)) if len(token) <= _MAX_TOKEN_LENGTH else None
    if record is None or record.company_id != company_id or record.expires_at < datetime.now(UTC):
        return None
    return record.pdf
