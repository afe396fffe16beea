"""What the provider says about a user: access-token claims and the richer userinfo answer."""

from __future__ import annotations

import time
import uuid
from collections import defaultdict

from flask import current_app
from joserfc import jwt
from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload

from portal.domain.uruguay_time import day_in_uruguay
from portal.service.platform.models import Certificate, Membership, User


def company_claims(db: Session, user: User, with_certificates: bool = False) -> list[dict]:
    """The user's companies with their role (and, for userinfo, the certificates usable for DGI lookups)."""
    # Two queries whatever the number of companies (each membership's company and certificates were one query
    # apiece), on every sign-in, token and userinfo answer.
    memberships = db.scalars(
        select(Membership)
        .options(joinedload(Membership.company))
        .where(Membership.user_id == user.id)
        .order_by(Membership.company_id)
    ).all()
    certificates = defaultdict(list)
    if with_certificates and memberships:
        query = select(Certificate).where(Certificate.company_id.in_([m.company_id for m in memberships]))
        for cert in db.scalars(query.order_by(Certificate.id)):
            certificates[cert.company_id].append(cert)
    result = []
    for m in memberships:
        entry = {"id": m.company_id, "rut": m.company.rut, "nombre": m.company.razon_social, "rol": m.role}
        if with_certificates:
            entry["certificados"] = [
                {"id": c.id, "nombre": c.name, "vence": day_in_uruguay(c.not_after).isoformat()}
                for c in certificates[m.company_id]
            ]
        result.append(entry)
    return result


def access_token_claims(db: Session, user: User) -> dict:
    """Identity claims carried by every access token (beyond iss/aud/sub/exp)."""
    return {"email": user.email, "name": user.name, "empresas": company_claims(db, user)}


def userinfo(db: Session, user: User) -> dict:
    return {
        "sub": str(user.id),
        "email": user.email,
        "email_verified": True,
        "name": user.name,
        "locale": user.locale,
        "empresas": company_claims(db, user, with_certificates=True),
    }


def mint_access_token(db: Session, user: User, client_id: str = "cli", lifetime: int | None = None) -> str:
    """An access token signed with the provider's key, as the token endpoint would issue it.

    Used by the `token` CLI for scripts and operators; it runs on the server with the server's key.
    """
    keys = current_app.extensions["identity_keys"]
    now = int(time.time())
    claims = {
        "iss": current_app.config["ISSUER"],
        "aud": current_app.config["API_AUDIENCE"],
        "sub": str(user.id),
        "client_id": client_id,
        "iat": now,
        "exp": now + (lifetime or current_app.config["ACCESS_TOKEN_SECONDS"]),
        "jti": uuid.uuid4().hex,
        "scope": "openid profile email cfe",
        **access_token_claims(db, user),
    }
    return jwt.encode({"alg": "RS256", "typ": "at+jwt", "kid": keys.kid}, claims, keys.private_key)
