"""Checking a person's password at the provider, throttled: the sign-in form (authorize, and the pages that ask
to sign in first) and the password change's current password share one set of failure counters.

Failures are throttled so that guessing is slow but the account's owner is not locked out by others:
- per account and source address (one source guessing one account): the tight limit;
- per source address (one source spraying many accounts);
- per account from every source together (a distributed guess): a looser limit, which a source the account
  signed in from in the last 30 days (its owner's usual one) does not count against.
"""

from __future__ import annotations

import logging

from flask import current_app, g, request
from flask_wtf import FlaskForm
from limits import parse
from sqlalchemy import func, select
from wtforms import EmailField, PasswordField
from wtforms.validators import DataRequired, Email, Length

from portal.service.identity import sessions
from portal.service.identity.passwords import verify_password
from portal.service.identity.texts import texts_for
from portal.service.platform import db
from portal.service.platform.models import User
from portal.service.platform.ratelimit import limiter

log = logging.getLogger("portal.service.identity")

_FAILS_PER_ACCOUNT_AND_SOURCE = parse("5/5 minutes")
_FAILS_PER_ADDRESS = parse("30/15 minutes")
_FAILS_PER_ACCOUNT = parse("50/15 minutes")
_KNOWN_SOURCE_SECONDS = 30 * 24 * 3600


class SignInForm(FlaskForm):
    email = EmailField(validators=[DataRequired(), Email(), Length(max=254)])
    password = PasswordField(validators=[DataRequired(), Length(max=200)])


def _form_problem(form: SignInForm) -> str:
    """Which text says what is wrong with a sign-in form that did not validate."""
    if "csrf_token" in form.errors:
        return "expired_form"
    if form.email.data and form.password.data:
        return "bad_email"
    return "missing_credentials"


def _address() -> str:
    return request.remote_addr or "-"


def _known_source_key(email: str) -> str:
    return f"signin-known/{email}/{_address()}"


def too_many_failures(email: str) -> bool:
    """Whether `email`'s password may not be tried again from this source for now."""
    address = _address()
    if not limiter().test(_FAILS_PER_ACCOUNT_AND_SOURCE, "signin-account-source", email, address):
        return True
    if not limiter().test(_FAILS_PER_ADDRESS, "signin-address", address):
        return True
    if current_app.extensions["ratelimit_storage"].get(_known_source_key(email)) > 0:
        return False  # the owner's usual source: others' failures do not keep them out
    return not limiter().test(_FAILS_PER_ACCOUNT, "signin-account", email)


def record_failure(email: str) -> None:
    """A wrong password for `email` from this source."""
    limiter().hit(_FAILS_PER_ACCOUNT_AND_SOURCE, "signin-account-source", email, _address())
    limiter().hit(_FAILS_PER_ADDRESS, "signin-address", _address())
    limiter().hit(_FAILS_PER_ACCOUNT, "signin-account", email)


def _record_success(email: str) -> None:
    current_app.extensions["ratelimit_storage"].incr(_known_source_key(email), _KNOWN_SOURCE_SECONDS)


def attempt(form: SignInForm, locale: str) -> tuple[User | None, int]:
    """A posted sign-in form: the user, signed in at the provider (its session started), or None with the status
    to answer and the reason added to `form.form_errors`."""
    texts = texts_for(locale)
    email = (form.email.data or "").strip().lower()
    if too_many_failures(email):
        form.form_errors.append(texts["locked"])
        return None, 429
    if not form.validate_on_submit():
        form.form_errors.append(texts[_form_problem(form)])
        return None, 422
    candidate = db.session().scalar(select(User).where(func.lower(User.email) == email))
    if candidate and candidate.active and verify_password(candidate.password_hash, form.password.data):
        # The language they signed in with is the one the service writes to them in (admins' e-mails,
        # eventos/admin_mail.py) and the `locale` claim, until the portal's language switch changes it
        # (account.py); stored with the session's commit.
        candidate.locale = locale
        sessions.start(candidate)
        _record_success(email)
        log.info("sign-in ok user=%s request_id=%s", candidate.id, g.get("request_id"))
        return candidate, 200
    record_failure(email)
    form.form_errors.append(texts["bad_credentials"])
    return None, 422
