"""The provider's "Cambiar contraseña" page: the person signed in at the provider types their current password and
the new one twice. The provider owns passwords: the portal only links here (`client_id`, `return_to` and
`ui_locales` in the query), and never sees one.

A wrong current password counts against the same throttle as a wrong password at sign-in (signin.py). A change
ends every provider session of the user (this browser gets a fresh one) and every token and code handed out for
them: a portal session elsewhere has to sign in again, with the new password.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, g, redirect, render_template, request, url_for
from flask_wtf import FlaskForm
from sqlalchemy import select
from wtforms import PasswordField

from portal.service.identity import notices, password_strength, revocation, sessions, signin
from portal.service.identity.passwords import hash_password, verify_password
from portal.service.identity.signin import SignInForm
from portal.service.identity.texts import requested_locale, texts_for
from portal.service.platform import db
from portal.service.platform.models import Company, Membership, OAuthClient, User

bp = Blueprint("identity_password", __name__)
log = logging.getLogger("portal.service.identity")

MIN_LENGTH = 12
MAX_LENGTH = 200
_CARRIED = ("ui_locales", "client_id", "return_to")
# The form's fields, as `problems` names them.
CURRENT, NEW, CONFIRM = "current_password", "new_password", "confirm_password"


class PasswordChangeForm(FlaskForm):
    """The rules are `problems` (their texts in the page's language); the form brings the CSRF check."""

    current_password = PasswordField()
    new_password = PasswordField()
    confirm_password = PasswordField()


@dataclass(frozen=True)
class WayBack:
    url: str
    name: str


def problems(email: str, current: str, new: str, confirm: str) -> dict[str, str]:
    """Each field's problem (a text's key) that needs no password check: the rules of a new password."""
    found: dict[str, str] = {}
    if not current:
        found[CURRENT] = "password_current_missing"
    if len(new) < MIN_LENGTH:
        found[NEW] = "password_new_short"
    elif len(new) > MAX_LENGTH:
        found[NEW] = "password_new_long"
    elif new.strip().lower() == email.strip().lower():
        found[NEW] = "password_new_email"
    if confirm != new:
        found[CONFIRM] = "password_mismatch"
    return found


def _carried(**changed: str) -> dict[str, Any]:
    """The query this page keeps from one step to the next (language, client, way back), with `changed`."""
    return {**{name: request.values[name] for name in _CARRIED if request.values.get(name)}, **changed}


def _way_back() -> WayBack | None:
    """The client's page to go back to: only an address registered for it (its post-logout URIs), never any."""
    client_id, target = request.values.get("client_id"), request.values.get("return_to")
    if not client_id or not target:
        return None
    client = db.session().scalar(select(OAuthClient).where(OAuthClient.client_id == client_id))
    if client is None or target not in client.client_metadata.get("post_logout_redirect_uris", []):
        return None
    return WayBack(target, client.client_metadata.get("client_name") or client.client_id)


def _texts(locale: str, failed: bool) -> dict[str, str]:
    texts = texts_for(locale)
    title = texts["password_title"]
    return {**texts, "title": f"{texts['error_prefix']}: {title}" if failed else title}


@bp.route("/cuenta/contrasena", methods=["GET", "POST"])
def change():
    """Change the signed-in person's password; a browser not signed in at the provider is asked to sign in first."""
    locale = requested_locale()
    user = sessions.signed_in_user()
    if user is None:
        return _sign_in_first(locale)
    form = PasswordChangeForm()
    if request.method == "GET":
        return _page(form, user, locale, {}, [], 200)
    fields, general, status = _check(form, user, locale)
    if status != 200:
        return _page(form, user, locale, fields, general, status)
    _apply(user, form.new_password.data or "")
    return redirect(url_for(".changed", **_carried()), code=303)


@bp.get("/cuenta/contrasena/cambiada")
def changed():
    """The confirmation, with the way back to the client that linked here."""
    locale = requested_locale()
    return render_template("password_changed.html", t=_texts(locale, False), locale=locale, back=_way_back())


def _check(form: PasswordChangeForm, user: User, locale: str) -> tuple[dict[str, str], list[str], int]:
    """The form's problems (field -> text, texts for the whole form) and the status to answer (200: none)."""
    texts = texts_for(locale)
    if not form.validate_on_submit():  # only the CSRF token can fail
        return {}, [texts["password_expired_form"]], 400
    email = user.email.strip().lower()
    if signin.too_many_failures(email):
        return {}, [texts["locked"]], 429
    current, new = form.current_password.data or "", form.new_password.data or ""
    found = problems(email, current, new, form.confirm_password.data or "")
    if CURRENT not in found:
        if not verify_password(user.password_hash, current):
            signin.record_failure(email)
            found[CURRENT] = "password_current_wrong"
        elif NEW not in found and new == current:
            found[NEW] = "password_new_same"
    if NEW not in found and password_strength.easy_to_guess(new, _about(user)):
        found[NEW] = "password_new_guessable"
    return {field: texts[key] for field, key in found.items()}, [], 422 if found else 200


def _about(user: User) -> list[str]:
    """What an attacker knows of the person: their e-mail, name and companies' names."""
    companies = db.session().scalars(
        select(Company.razon_social)
        .join(Membership, Membership.company_id == Company.id)
        .where(Membership.user_id == user.id)
    )
    return [user.email, user.email.split("@", 1)[0], user.name or "", *companies]


def _apply(user: User, new_password: str) -> None:
    """The new hash, every session, token and code of the user ended, and this browser signed in afresh: one
    commit (sessions.start's); then the user's e-mail notice, enqueued only once that commit is done."""
    store = db.session()
    user.password_hash = hash_password(new_password)
    ended = sessions.end_all(user)
    revoked = revocation.revoke_user_grants(store, user.id)
    sessions.start(user)
    notices.password_changed(user.id, notices.BY_USER)
    log.info(
        "password changed user=%s other_sessions_ended=%d tokens_revoked=%d request_id=%s",
        user.id,
        max(ended - 1, 0),
        revoked,
        g.get("request_id"),
    )


def _page(form, user: User, locale: str, fields: dict[str, str], general: list[str], status: int):
    return render_template(
        "password_change.html",
        form=form,
        user=user,
        fields=fields,
        general=general,
        t=_texts(locale, bool(fields or general)),
        locale=locale,
        action=url_for(".change", **_carried()),
        switch_url=url_for(".change", **_carried(ui_locales=texts_for(locale)["switch_lang"])),
        back=_way_back(),
    ), status


def _sign_in_first(locale: str):
    """The provider's sign-in form, here: once signed in, back to this page."""
    form = SignInForm()
    status = 200
    if request.method == "POST" and "email" in request.form:
        user, status = signin.attempt(form, locale)
        if user is not None:
            return redirect(url_for(".change", **_carried()), code=303)
    texts = texts_for(locale)
    return render_template(
        "signin.html",
        form=form,
        t={**texts, "title": texts["password_title"]},
        locale=locale,
        client=None,
        intro=texts["password_signin_first"],
        switch_url=url_for(".change", **_carried(ui_locales=texts["switch_lang"])),
    ), status
