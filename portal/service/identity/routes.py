"""The provider's HTTP endpoints: discovery, JWKS, authorize (with its own sign-in page), token,
userinfo, revocation and logout."""

from __future__ import annotations

import logging
from urllib.parse import urlencode

from authlib.oauth2 import OAuth2Error
from flask import Blueprint, current_app, g, jsonify, redirect, render_template, request
from flask_wtf import FlaskForm
from limits import parse
from sqlalchemy import func, select
from wtforms import EmailField, PasswordField
from wtforms.validators import DataRequired, Email, Length

from portal.service.identity import logout_requests, sessions
from portal.service.identity.claims import userinfo as userinfo_claims
from portal.service.identity.passwords import verify_password
from portal.service.identity.provider import TokenRevocation
from portal.service.identity.texts import texts_for
from portal.service.platform import db
from portal.service.platform.auth import decode_access_token, live_user_id
from portal.service.platform.errors import Unauthorized
from portal.service.platform.models import User
from portal.service.platform.ratelimit import limiter

bp = Blueprint("identity", __name__)
log = logging.getLogger("portal.service.identity")

# Sign-in failures are throttled so that guessing is slow but the account's owner is not locked out by others:
# - per account and source address (one source guessing one account): the tight limit;
# - per source address (one source spraying many accounts);
# - per account from every source together (a distributed guess): a looser limit, which a source the account
#   signed in from in the last 30 days (its owner's usual one) does not count against.
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


def _server():
    return current_app.extensions["authorization_server"]


def _locale() -> str:
    wanted = (request.values.get("ui_locales") or request.values.get("lang") or "").split()
    return "en" if wanted and wanted[0].lower().startswith("en") else "es"


def _address() -> str:
    return request.remote_addr or "-"


def _known_source_key(email: str) -> str:
    return f"signin-known/{email}/{_address()}"


def _too_many_failures(email: str) -> bool:
    address = _address()
    if not limiter().test(_FAILS_PER_ACCOUNT_AND_SOURCE, "signin-account-source", email, address):
        return True
    if not limiter().test(_FAILS_PER_ADDRESS, "signin-address", address):
        return True
    if current_app.extensions["ratelimit_storage"].get(_known_source_key(email)) > 0:
        return False  # the owner's usual source: others' failures do not keep them out
    return not limiter().test(_FAILS_PER_ACCOUNT, "signin-account", email)


def _record_failure(email: str) -> None:
    limiter().hit(_FAILS_PER_ACCOUNT_AND_SOURCE, "signin-account-source", email, _address())
    limiter().hit(_FAILS_PER_ADDRESS, "signin-address", _address())
    limiter().hit(_FAILS_PER_ACCOUNT, "signin-account", email)


def _record_success(email: str) -> None:
    current_app.extensions["ratelimit_storage"].incr(_known_source_key(email), _KNOWN_SOURCE_SECONDS)


@bp.get("/.well-known/openid-configuration")
def discovery():
    """The OpenID Provider metadata."""
    issuer = current_app.config["ISSUER"]
    return jsonify(
        {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/oauth/authorize",
            "token_endpoint": f"{issuer}/oauth/token",
            "userinfo_endpoint": f"{issuer}/oauth/userinfo",
            "jwks_uri": f"{issuer}/oauth/jwks",
            "revocation_endpoint": f"{issuer}/oauth/revoke",
            "end_session_endpoint": f"{issuer}/oauth/logout",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": ["openid", "profile", "email", "cfe"],
            "claims_supported": ["sub", "email", "name", "locale", "empresas"],
            "ui_locales_supported": ["es-UY", "en"],
        }
    )


@bp.get("/oauth/jwks")
def jwks():
    """The public keys that verify our ID and access tokens."""
    return jsonify(current_app.extensions["identity_keys"].public_jwks())


@bp.route("/oauth/authorize", methods=["GET", "POST"])
def authorize():
    """Validate the authorization request, sign the user in if needed, and redirect back with a code."""
    locale = _locale()
    try:
        grant = _server().get_consent_grant(end_user=None)
    except OAuth2Error as error:
        if error.redirect_uri:
            # The client and redirect URI are known good: report the error back to the client (RFC 6749).
            return _server().handle_error_response(request, error)
        # A bad client or redirect URI must never be redirected to: show the error here.
        return render_template(
            "signin_error.html", t=texts_for(locale), error=error.error, description=error.description
        ), 400
    form = SignInForm()
    user = sessions.signed_in_user()
    status = 200
    if user is None and request.method == "POST":
        email = (form.email.data or "").strip().lower()
        if _too_many_failures(email):
            form.form_errors.append(texts_for(locale)["locked"])
            status = 429
        elif form.validate_on_submit():
            candidate = db.session().scalar(select(User).where(func.lower(User.email) == email))
            if candidate and candidate.active and verify_password(candidate.password_hash, form.password.data):
                # The language they signed in with is the one the service writes to them in (admins' e-mails,
                # eventos/admin_mail.py) and the `locale` claim, until the portal's language switch changes it
                # (account.py); stored with the session's commit.
                candidate.locale = locale
                sessions.start(candidate)
                _record_success(email)
                user = candidate
                log.info("sign-in ok user=%s request_id=%s", candidate.id, g.get("request_id"))
            else:
                _record_failure(email)
                form.form_errors.append(texts_for(locale)["bad_credentials"])
                status = 422
        else:
            form.form_errors.append(texts_for(locale)[_form_problem(form)])
            status = 422
    if user is None:
        return render_template(
            "signin.html", form=form, t=texts_for(locale), locale=locale, client=grant.client
        ), status
    return _server().create_authorization_response(grant_user=user, grant=grant)


@bp.post("/oauth/token")
def issue_token():
    """The token endpoint: authorization_code (with PKCE) and refresh_token grants."""
    return _server().create_token_response()


@bp.post("/oauth/revoke")
def revoke_token():
    """RFC 7009 token revocation (used by the portal at sign-out)."""
    return _server().create_endpoint_response(TokenRevocation.ENDPOINT_NAME)


@bp.route("/oauth/userinfo", methods=["GET", "POST"])
def userinfo():
    """OIDC userinfo: who the token's user is, their companies, roles and certificates."""
    header = request.headers.get("Authorization", "")
    if not header.lower().startswith("bearer "):
        raise Unauthorized()
    claims = decode_access_token(header[7:].strip())
    user = db.session().get(User, live_user_id(claims))
    return jsonify(userinfo_claims(db.session(), user))


@bp.route("/oauth/logout", methods=["GET", "POST"])
def logout():
    """RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): end the provider's session and return to a
    post-logout URI registered for the client. Without a valid `id_token_hint` of the signed-in user the person is
    asked first (a form with a CSRF token), so a link or an image cannot sign anyone out."""
    locale = _locale()
    params = request.values
    try:
        request_ = logout_requests.read(params)
    except logout_requests.LogoutRefused as refused:
        return render_template(
            "signin_error.html", t=texts_for(locale), error=refused.error, description=refused.description
        ), 400
    form = LogoutForm()
    if "confirm" in params:
        if not form.validate_on_submit():
            return _confirm_page(form, request_, locale, 400)
    elif not logout_requests.hinted_by_this_user(request_, sessions.signed_in_user()):
        if sessions.signed_in_user() is not None:
            return _confirm_page(form, request_, locale, 200)
    sessions.end()
    if request_.redirect_uri:
        state = request_.state
        return redirect(request_.redirect_uri + (("?" + urlencode({"state": state})) if state else ""), code=303)
    return render_template("signed_out.html", t=texts_for(locale))


class LogoutForm(FlaskForm):
    """The confirmation's form: only its CSRF token."""


def _confirm_page(form: LogoutForm, request_: logout_requests.LogoutRequest, locale: str, status: int):
    return render_template(
        "logout_confirm.html",
        form=form,
        logout=request_,
        t={**texts_for(locale), "title": texts_for(locale)["logout_title"]},
        locale=locale,
    ), status
