"""The provider's sign-in session, kept in the database and ended at logout.

Flask's signed cookie used to hold the user id itself: anyone holding a copy of that cookie could get
authorization codes for 31 days, logout or not. Now the cookie holds a random session id; the row it names
says who signed in, until when, and whether the session has ended.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from flask import current_app, session
from sqlalchemy import delete, update

from portal.service.identity.models import ProviderSession
from portal.service.platform import db
from portal.service.platform.models import User

_COOKIE_KEY = "idp_sid"


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def start(user: User) -> None:
    """Sign `user` in at the provider: a fresh session id in the cookie, its row in the database."""
    session_id = secrets.token_urlsafe(32)
    now = datetime.now(UTC)
    store = db.session()
    # Sessions that ended or expired more than a day ago are of no further use.
    store.execute(delete(ProviderSession).where(ProviderSession.expires_at < now - timedelta(days=1)))
    store.add(
        ProviderSession(
            id_hash=_hash(session_id),
            user_id=user.id,
            created_at=now,
            expires_at=now + current_app.permanent_session_lifetime,
        )
    )
    store.commit()
    session.clear()
    session[_COOKIE_KEY] = session_id
    session.permanent = True


def signed_in_user() -> User | None:
    """The user of the browser's provider session, if it is current and the user still active."""
    session_id = session.get(_COOKIE_KEY)
    if not isinstance(session_id, str):
        return None
    row = db.session().get(ProviderSession, _hash(session_id))
    if row is None or row.ended_at is not None or row.expires_at <= datetime.now(UTC):
        return None
    user = db.session().get(User, row.user_id)
    return user if user and user.active else None


def end_all(user: User) -> int:
    """End every provider session of `user` (a password change, before `start` gives this browser a new one): how
    many were open. Not committed: `start` commits it with the change."""
    result = db.session().execute(
        update(ProviderSession)
        .where(ProviderSession.user_id == user.id, ProviderSession.ended_at.is_(None))
        .values(ended_at=datetime.now(UTC))
    )
    return int(getattr(result, "rowcount", 0) or 0)


def end() -> None:
    """End the browser's provider session (logout): the row is closed, the cookie emptied."""
    session_id = session.get(_COOKIE_KEY)
    if isinstance(session_id, str):
        db.session().execute(
            update(ProviderSession)
            .where(ProviderSession.id_hash == _hash(session_id))
            .values(ended_at=datetime.now(UTC))
        )
        db.session().commit()
    session.clear()
