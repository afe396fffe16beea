"""The provider's HTTP endpoints: discovery, JWKS, authorize (with its own sign-in page), token,
userinfo, revocation and logout."""

from __future__ import annotations

from urllib.parse import urlencode

from authlib.oauth2 import OAuth2Error
from flask import Blueprint, current_app, jsonify, redirect, render_template, request
from flask_wtf import FlaskForm

from portal.service.identity import logout_requests, sessions, signin
from portal.service.identity.claims import userinfo as userinfo_claims
from portal.service.identity.provider import TokenRevocation
from portal.service.identity.signin import SignInForm
from portal.service.identity.texts import requested_locale as _locale
from portal.service.identity.texts import texts_for
from portal.service.platform import db
from portal.service.platform.auth import decode_access_token, live_user_id
from portal.service.platform.errors import Unauthorized
from portal.service.platform.models import User

bp = Blueprint("identity", __name__)


def _server():
    return current_app.extensions["authorization_server"]


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


# RFC 6749's parameters are printable ASCII (its VSCHAR, %x20-7E). authlib echoes some of them in an error's
# description (an unknown response_type), and refuses to build one with anything else: a 500 where this error page
# belonged. Checked first, so an error always has a page.
_OAUTH_PARAMETERS = (
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "nonce",
    "code_challenge",
    "code_challenge_method",
    "prompt",
    "max_age",
)


def _unprintable_parameter() -> str | None:
    """The first OAuth parameter of the request that is not printable ASCII, or None."""
    for name in _OAUTH_PARAMETERS:
        value = request.values.get(name)
        if value is not None and not all(" " <= character <= "~" for character in value):
            return name
    return None


@bp.route("/oauth/authorize", methods=["GET", "POST"])
def authorize():
    """Validate the authorization request, sign the user in if needed, and redirect back with a code."""
    locale = _locale()
    unreadable = _unprintable_parameter()
    if unreadable is not None:
        description = texts_for(locale)["bad_parameter"].format(name=unreadable)
        return render_template(
            "signin_error.html", t=texts_for(locale), error="invalid_request", description=description
        ), 400
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
        user, status = signin.attempt(form, locale)
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
