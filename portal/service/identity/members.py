"""A company's people: users (one e-mail, one password, any number of companies) and their memberships (one
role in one company), as operators create them and a company's admins manage them (Empresa › Personas).

A new user gets a generated password, handed back once to whoever created them and never stored in clear. A
removed membership takes effect at the member's next request: `platform.auth` reads memberships on every
request, with no cache, so their tokens for that company stop working at once.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import Row, Select, case, func, select
from sqlalchemy.orm import Session

from portal.service.identity import notices, revocation, sessions
from portal.service.identity.passwords import hash_password
from portal.service.platform import db, paging
from portal.service.platform.errors import Conflict, FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import _
from portal.service.platform.models import Company, Membership, Role, User

NAME_LENGTH = 120  # User.name
EMAIL_LENGTH = 254  # User.email
# secrets.token_urlsafe(18): 24 characters of 64 kinds, 144 random bits; typed once and then changed.
PASSWORD_BYTES = 18


@dataclass(frozen=True)
class Person:
    """Someone to add to a company, checked. For an e-mail with no user yet, the password to give them and its
    hash, made before the write transaction (argon2 is slow on purpose: the lock would wait for it)."""

    email: str
    name: str
    password: str | None = None
    password_hash: str | None = None


@dataclass(frozen=True)
class Added:
    user_id: int
    email: str
    role: str
    password: str | None  # the generated password of a user created now: show it once; None for one who existed


@dataclass(frozen=True)
class Member:
    """A member as an admin sees them: never their password's hash."""

    user_id: int
    email: str
    name: str
    role: str
    since: datetime | None  # None for a membership made before the moment was recorded
    active: bool


@dataclass(frozen=True)
class Removed:
    user_id: int
    email: str
    role: str


def _invalid(field: str, code: str, message: str) -> ValidationFailed:
    return ValidationFailed([FieldError(field, code, message)], message=message)


def normalized_email(raw: str) -> str:
    """The address as stored and looked up (lower case: sign-in compares it so); 422 on `email` otherwise."""
    try:
        email = validate_email(raw.strip(), check_deliverability=False, allow_smtputf8=False).normalized.lower()
    except EmailNotValidError as exc:
        raise _invalid(
            "email", "correo_invalido", _("La dirección de correo no es válida: {reason}", reason=str(exc))
        ) from exc
    if len(email) > EMAIL_LENGTH:
        raise _invalid("email", "correo_invalido", _("La dirección de correo es demasiado larga."))
    return email


def role_of(raw: str) -> Role:
    try:
        return Role(raw)
    except ValueError:
        roles = ", ".join(r.value for r in Role)
        raise _invalid("rol", "rol_invalido", _("El rol tiene que ser uno de: {roles}.", roles=roles)) from None


def user_by_email(session: Session, email: str) -> User | None:
    return session.scalar(select(User).where(func.lower(User.email) == email.lower()))


def new_password() -> str:
    return secrets.token_urlsafe(PASSWORD_BYTES)


def person(session: Session, email: str, name: str) -> Person:
    """Who `email` and `name` say, checked; with a new password and its hash when the e-mail has no user yet."""
    email = normalized_email(email)
    name = name.strip()
    if not 1 <= len(name) <= NAME_LENGTH:
        raise _invalid("nombre", "nombre_invalido", _("El nombre va de 1 a {most} caracteres.", most=NAME_LENGTH))
    if user_by_email(session, email) is not None:
        return Person(email, name)
    password = new_password()
    return Person(email, name, password, hash_password(password))


def add(session: Session, company_id: int, who: Person, role: Role) -> Added:
    """Give `who` the role in the company, creating their user if the e-mail has none; in the caller's (write)
    transaction. A second membership in the same company is refused (409 `miembro_existente`)."""
    user = user_by_email(session, who.email)
    password = None
    if user is None:
        password_hash = who.password_hash
        if password_hash is None:  # the user was removed since `person` looked: give them a password after all
            password = new_password()
            password_hash = hash_password(password)
        else:
            password = who.password
        user = User(email=who.email, name=who.name, password_hash=password_hash)
        session.add(user)
        session.flush()
    elif not user.active:
        # Their tokens and sign-in are refused (platform.auth): a membership would give the company nobody.
        raise Conflict(
            _("El usuario {email} está desactivado: no puede ser miembro de una empresa.", email=user.email),
            code="usuario_desactivado",
        )
    current = _membership(session, company_id, user.id)
    if current is not None:
        raise Conflict(
            _("{email} ya es miembro de la empresa, con el rol {role}.", email=user.email, role=current.role),
            code="miembro_existente",
        )
    session.add(Membership(user_id=user.id, company_id=company_id, role=role.value))
    # Two additions of one person at once (PostgreSQL) both find no membership: the unique index refuses one.
    db.flush_unless_taken(
        session, Conflict(_("{email} ya es miembro de la empresa.", email=user.email), code="miembro_existente")
    )
    return Added(user.id, user.email, role.value, password)


def remove(session: Session, company_id: int, email: str) -> Removed:
    """Take `email`'s membership of the company away, in the caller's (write) transaction. The company's last
    active admin stays (409 `ultimo_administrador`): nobody could manage the company after it."""
    user = user_by_email(session, normalized_email(email))
    membership = _membership(session, company_id, user.id, locked=True) if user is not None else None
    if user is None or membership is None:
        raise NotFound(_("{email} no es miembro de la empresa.", email=email.strip()), code="miembro_inexistente")
    if membership.role == Role.ADMIN and user.active:
        _keep_an_admin(
            session,
            company_id,
            _("{email} es el único administrador de la empresa: agregá otro antes de quitarlo.", email=user.email),
        )
    removed = Removed(user.id, user.email, membership.role)
    session.delete(membership)
    session.flush()
    return removed


def reset_password(email: str) -> tuple[User, str]:
    """A new generated password for a user who lost theirs (an operator's command), handed back to be shown once:
    its hash stored and every provider session, token and code of the user ended in one commit, on the session
    the provider's own password change uses (sessions and revocation work on it). The user is then e-mailed that
    an operator gave them a new one (notices.py), never the password itself."""
    store = db.session()
    user = user_by_email(store, normalized_email(email))
    if user is None:
        raise NotFound(_("No hay un usuario con el correo {email}.", email=email.strip()), code="usuario_inexistente")
    password = new_password()
    user.password_hash = hash_password(password)
    sessions.end_all(user)
    revocation.revoke_user_grants(store, user.id)
    store.commit()
    notices.password_changed(user.id, notices.BY_OPERATOR)  # after the commit: a change that failed tells no one
    return user, password


@dataclass(frozen=True)
class Standing:
    """A user whose standing an operator set: their companies (each one's audit records it) and whether it
    changed (setting it to what it was changes nothing)."""

    user: User
    company_ids: list[int]
    changed: bool


def set_active(email: str, active: bool) -> Standing:
    """Deactivate a user, or make them active again (an operator's command), on the request's session, not
    committed: the caller records it in each company's audit and commits it with that.

    Deactivated, their sign-in and every token are refused everywhere at once (platform.auth reads `active` on
    every request), every provider session, token and code of theirs ends, and their memberships stay, so making
    them active again gives them back their companies and roles. Never a company's last active admin (409
    `ultimo_administrador`, naming the company): nobody could manage it after."""
    store = db.session()
    user = user_by_email(store, normalized_email(email))
    if user is None:
        raise NotFound(_("No hay un usuario con el correo {email}.", email=email.strip()), code="usuario_inexistente")
    memberships = store.execute(
        select(Membership.company_id, Membership.role, Company.razon_social)
        .join(Company, Company.id == Membership.company_id)
        .where(Membership.user_id == user.id)
        .order_by(Membership.company_id)
    ).all()
    changed = user.active != active
    if changed and not active:
        for company_id, role, company_name in memberships:
            if role == Role.ADMIN:
                refusal = _(
                    "{email} es el único administrador activo de {empresa}: agregá otro antes de desactivarlo.",
                    email=user.email,
                    empresa=company_name,
                )
                _keep_an_admin(store, company_id, refusal)
        sessions.end_all(user)
        revocation.revoke_user_grants(store, user.id)
    user.active = active
    store.flush()
    return Standing(user, [row.company_id for row in memberships], changed)


def member(session: Session, company_id: int, user_id: int) -> Member:
    """One member of the company; 404 `miembro_inexistente` for anyone else (another company's member too)."""
    row = session.execute(_members_query(company_id).where(User.id == user_id)).one_or_none()
    if row is None:
        raise NotFound(_("Esa persona no es miembro de la empresa."), code="miembro_inexistente")
    return _member(row)


def list_members(session: Session, company_id: int, cursor: str | None, limit: int) -> tuple[list[Member], str | None]:
    """A page of the company's members, admins first (then soporte, then usuario), then by name; and the next page's
    cursor (None on the last). The sort key is selected with each row, so the cursor holds the very values the
    database compared (its lower() of a name, not Python's)."""
    rank = case((Membership.role == Role.ADMIN, 0), (Membership.role == Role.SOPORTE, 1), else_=2)
    folded = func.lower(User.name)
    query = _members_query(company_id).add_columns(rank.label("rank"), folded.label("folded"))
    rows, following = paging.keyset(
        session, query, (rank, folded, User.id), cursor, limit, lambda r: (r.rank, r.folded, r.id), ascending=True
    )
    return [_member(row) for row in rows], following


def change_role(session: Session, company_id: int, user_id: int, role: Role) -> tuple[Member, str]:
    """Give a member another role, in the caller's (write) transaction; (the member now, their role before). The
    company's last active admin keeps the role (409 `ultimo_administrador`), whoever asks: themselves included."""
    membership = _membership(session, company_id, user_id, locked=True)
    if membership is None:
        raise NotFound(_("Esa persona no es miembro de la empresa."), code="miembro_inexistente")
    before = membership.role
    user = membership.user
    if before == Role.ADMIN and role != Role.ADMIN and user.active:
        _keep_an_admin(
            session,
            company_id,
            _(
                "{email} es el único administrador de la empresa: agregá otro antes de cambiarle el rol.",
                email=user.email,
            ),
        )
    membership.role = role.value
    session.flush()
    return member(session, company_id, user_id), before


def _keep_an_admin(session: Session, company_id: int, refusal: str) -> None:
    """409 `ultimo_administrador` unless another active admin stays. The admins' rows are locked together, so two
    changes at once (PostgreSQL) cannot each leave the other as the last."""
    admins = session.scalars(
        select(Membership.user_id)
        .join(User, User.id == Membership.user_id)
        .where(Membership.company_id == company_id, Membership.role == Role.ADMIN, User.active.is_(True))
        .with_for_update()
    ).all()
    if len(admins) <= 1:
        raise Conflict(refusal, code="ultimo_administrador")


def _members_query(company_id: int) -> Select:
    return (
        select(User.id, User.email, User.name, User.active, Membership.role, Membership.created_at)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.company_id == company_id)
    )


def _member(row: Row) -> Member:
    return Member(row.id, row.email, row.name, row.role, row.created_at, row.active)


def _membership(session: Session, company_id: int, user_id: int, *, locked: bool = False) -> Membership | None:
    query = select(Membership).where(Membership.company_id == company_id, Membership.user_id == user_id)
    return session.scalar(query.with_for_update() if locked else query)
