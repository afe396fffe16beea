"""Who is calling: a Bearer JWT from our identity provider, or a company API key (`X-API-Key`).

Either way the result is a `Principal` acting for exactly one company with one role. Memberships are read
from the database on every request, so removing a member takes effect at once, not when a token expires.
API keys are verified by the apikeys area, which registers its verifier in `app.extensions`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from flask import current_app, g, request
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwt import JWTClaimsRegistry
from sqlalchemy import Row, String, bindparam, select

from portal.service.identity.revocation import revoked_clause
from portal.service.platform import db
from portal.service.platform.errors import ApiError, Forbidden, Unauthorized
from portal.service.platform.i18n import _
from portal.service.platform.models import Membership, Role, User

JWT = "jwt"
API_KEY = "apikey"
_MAX_ID_DIGITS = 19


@dataclass(frozen=True)
class Principal:
    """The caller of one request, acting for one company."""

    kind: str  # JWT or API_KEY
    company_id: int
    role: Role
    user_id: int | None = None
    email: str | None = None
    api_key_id: str | None = None

    def describe(self) -> str:
        who = self.email if self.kind == JWT else f"apikey:{self.api_key_id}"
        return f"{who}@{self.company_id}"

    @property
    def actor(self) -> str:
        """What audit records store as "who"."""
        return self.email if self.kind == JWT and self.email else f"apikey:{self.api_key_id}"


ApiKeyVerifier = Callable[[str], Principal]


def decode_access_token(token: str) -> dict:
    """The claims of a valid access token issued by this service; Unauthorized otherwise.

    A token's signature and claims never change, so each process verifies a token once and remembers its
    claims until it expires (`_VerifiedTokens`). Whether it was revoked or its user deactivated is not part of
    this: that is read from the database on every request (`_memberships_of_live_token`)."""
    verified = current_app.extensions.setdefault("verified_tokens", _VerifiedTokens())
    claims = verified.get(token)
    if claims is None:
        claims = _verify_access_token(token)
        verified.put(token, claims)
    return claims


class _VerifiedTokens:
    """Claims of tokens whose signature this process checked, until their `exp`; at most MAX of them."""

    MAX = 4096

    def __init__(self) -> None:
        self._claims: dict[str, dict] = {}
        self._lock = threading.Lock()

    def get(self, token: str) -> dict | None:
        claims = self._claims.get(token)
        if claims is not None and claims["exp"] <= time.time():
            with self._lock:
                self._claims.pop(token, None)
            raise Unauthorized(_("El token de acceso no es válido o venció."), code="invalid_token")
        return claims

    def put(self, token: str, claims: dict) -> None:
        with self._lock:
            if len(self._claims) >= self.MAX:
                self._claims.pop(next(iter(self._claims)))  # the oldest
            self._claims[token] = claims


def _verify_access_token(token: str) -> dict:
    keys = current_app.extensions["identity_keys"]
    try:
        decoded = jwt.decode(token, keys.public_set, algorithms=["RS256"])
        if decoded.header.get("typ", "").lower() not in ("at+jwt", "application/at+jwt"):
            raise Unauthorized(_("El token no es un token de acceso."), code="invalid_token")
        JWTClaimsRegistry(
            iss={"essential": True, "value": current_app.config["ISSUER"]},
            aud={"essential": True, "value": current_app.config["API_AUDIENCE"]},
            sub={"essential": True},
            exp={"essential": True},
        ).validate(decoded.claims)
    except JoseError as exc:
        raise Unauthorized(_("El token de acceso no es válido o venció."), code="invalid_token") from exc
    return decoded.claims


def _requested_company_id(memberships: list[Row]) -> int:
    raw = request.headers.get("X-Empresa-Id")
    if raw is None:
        raw = request.args.get("idEmpresa")
    if raw is None:
        if len(memberships) == 1:
            return memberships[0].company_id
        raise ApiError(_("Indicá la empresa con el encabezado X-Empresa-Id."), code="empresa_requerida", status=422)
    company_id = plain_id(raw)
    if company_id is None:
        message = _("El número de empresa (X-Empresa-Id) tiene que ser un número entero.")
        raise ApiError(message, code="empresa_invalida", status=422)
    return company_id


def plain_id(raw: str) -> int | None:
    """A database id written in ASCII digits, or None.

    str.isdigit() accepts superscripts and other scripts' digits that int() then rejects (or reads), and
    an id past 2^63 overflows the database's integer: neither may reach a query.
    """
    if not (raw.isascii() and raw.isdigit()) or len(raw) > _MAX_ID_DIGITS:
        return None
    value = int(raw)
    return value if value < 2**63 else None


def user_id_of(claims: dict) -> int:
    """The user id a token's `sub` names; Unauthorized when it cannot be one of ours."""
    user_id = plain_id(str(claims.get("sub", "")))
    if user_id is None:
        raise Unauthorized(_("El token de acceso no es válido o venció."), code="invalid_token")
    return user_id


# Built once: building this statement cost about as much as running it. A token without a `jti` asks for
# the empty one, which is never revoked (revocation stores only real ids).
_LIVE_TOKEN = (
    select(
        User.active,
        revoked_clause(bindparam("jti", type_=String)).label("revoked"),
        Membership.company_id,
        Membership.role,
    )
    .select_from(User)
    .outerjoin(Membership, Membership.user_id == User.id)
    .where(User.id == bindparam("user_id"))
)


def _memberships_of_live_token(claims: dict) -> list[Row]:
    """The memberships of the token's user, read together with the token's standing, once per request.

    A token stops working at its next request once its user is deactivated or it is revoked (sign-out at
    the portal): the database is the truth for every process, and the check rides on the membership query
    every request makes anyway, so it costs no extra round trip and needs no cache.
    """
    jti = claims.get("jti")
    # A Core statement on the session's connection: plain rows, none of the ORM's per-statement work.
    rows = (
        db.session()
        .connection()
        .execute(_LIVE_TOKEN, {"user_id": user_id_of(claims), "jti": jti if isinstance(jti, str) else ""})
        .all()
    )
    if rows and rows[0].revoked:
        raise Unauthorized(_("El token de acceso fue revocado (se cerró la sesión)."), code="invalid_token")
    if not rows or not rows[0].active:
        raise Unauthorized(_("El usuario no existe o está desactivado."), code="invalid_token")
    return [row for row in rows if row.company_id is not None]


def live_user_id(claims: dict) -> int:
    """The user id of a token that is neither revoked nor its user deactivated; Unauthorized otherwise."""
    _memberships_of_live_token(claims)
    return user_id_of(claims)


def _principal_from_jwt(token: str) -> Principal:
    claims = decode_access_token(token)
    user_id = user_id_of(claims)
    memberships = _memberships_of_live_token(claims)
    if not memberships:
        raise Forbidden(_("El usuario no pertenece a ninguna empresa."), code="sin_empresa")
    company_id = _requested_company_id(memberships)
    membership = next((m for m in memberships if m.company_id == company_id), None)
    if membership is None:
        raise Forbidden(_("No tenés acceso a esa empresa."), code="empresa_ajena")
    return Principal(JWT, company_id, Role(membership.role), user_id=user_id, email=claims.get("email"))


def authenticate(schemes: Iterable[str]) -> Principal:
    """The request's principal, using the first credential present among the accepted schemes."""
    schemes = tuple(schemes)
    header = request.headers.get("Authorization", "")
    api_key = request.headers.get("X-API-Key")
    if header.lower().startswith("bearer ") and JWT in schemes:
        principal = _principal_from_jwt(header[7:].strip())
    elif api_key and API_KEY in schemes:
        verifier: ApiKeyVerifier | None = current_app.extensions.get("api_key_verifier")
        if verifier is None:
            raise Unauthorized(_("Las claves de API no están habilitadas."), code="invalid_api_key")
        principal = verifier(api_key)
    elif api_key:
        raise Unauthorized(_("Este recurso solo acepta un token Bearer (JWT)."), code="jwt_required")
    else:
        raise Unauthorized()
    g.principal = principal
    return principal


def require_role(principal: Principal, roles: Iterable[str] | None) -> None:
    if roles is not None and principal.role not in set(roles):
        raise Forbidden(_("Tu rol no permite esta operación."), code="rol_insuficiente")
