"""Sign-in (OIDC code flow with PKCE, state and nonce), the callback, and sign-out."""

from __future__ import annotations

import logging

from flask import flash, redirect, request, session, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import login_user
from werkzeug.wrappers import Response

from portal.client import CfeError, ServiceUnavailable, SignInRefused
from portal.client.oidc import Tokens
from portal.web.auth import bp
from portal.web.auth.session import PortalUser, end_session, safe_next, start_session
from portal.web.backend import service_client
from portal.web.extensions import oidc
from portal.web.rendering import render

log = logging.getLogger("portal.web.auth")
# Sign-ins under way (state -> nonce, PKCE verifier, redirect URI), a few at once for several tabs.
_PENDING = "oidc_pending"
_MAX_PENDING = 5


def _locale() -> str:
    return str(get_locale() or "es")


def password_change_url() -> str:
    """The provider's password page, linked from the header: the provider owns passwords, the portal only links
    there (as to its logout), and the page links back to the home page."""
    return oidc().password_change_url(return_to=url_for("main.home", _external=True), ui_locales=_locale())


@bp.app_context_processor
def _account_links() -> dict[str, object]:
    return {"password_change_url": password_change_url}


@bp.get("/login")
def login() -> Response:
    """Start the code flow at the service's identity provider."""
    session["after_login"] = safe_next(request.args.get("next")) or url_for("main.home")
    redirect_uri = url_for("auth.callback", _external=True)
    # The provider's metadata is read once per process: after that, nothing here would notice the service is
    # down, and the browser would be sent to an address that refuses it.
    service_client().check_available()
    start = oidc().authorization(redirect_uri, ui_locales=_locale())
    pending = dict(session.get(_PENDING) or {})
    pending[start.state] = {"nonce": start.nonce, "code_verifier": start.code_verifier, "redirect_uri": redirect_uri}
    session[_PENDING] = dict(list(pending.items())[-_MAX_PENDING:])
    return redirect(start.url)


@bp.get("/callback")
def callback() -> Response:
    """Finish the code flow: the state must be one we started; the code is exchanged with the PKCE verifier and
    the ID token checked (signature, issuer, audience, nonce) by the client."""
    if "error" in request.args:
        return render(
            "auth/signin_failed.html", reason=request.args.get("error_description") or request.args["error"], status=400
        )
    pending = dict(session.get(_PENDING) or {})
    started = pending.pop(request.args.get("state", ""), None)
    session[_PENDING] = pending
    if started is None:
        return render("auth/signin_failed.html", reason="state", status=400)
    try:
        tokens = oidc().exchange_code(
            request.args.get("code", ""),
            redirect_uri=started["redirect_uri"],
            code_verifier=started["code_verifier"],
            nonce=started["nonce"],
        )
    except SignInRefused as exc:
        log.warning("sign-in failed: %s", exc.message)
        return render("auth/signin_failed.html", reason=exc.message, status=400)
    after = session.get("after_login") or url_for("main.home")
    try:
        begin_session(tokens)
    except CfeError as exc:
        return render("auth/signin_failed.html", reason=exc.message, status=503)
    return redirect(after)


def begin_session(tokens: Tokens) -> None:
    """Sign the user in with the provider's tokens: their companies from the service's userinfo, a fresh session,
    flask-login's user. Raises CfeError when the service does not answer (nothing is stored then)."""
    info = service_client().as_user(tokens.access_token, locale=_locale()).userinfo()
    start_session(info, tokens)
    login_user(PortalUser(session["user"]))


@bp.post("/logout")
def logout() -> Response:
    """Revoke the tokens at the provider, end the portal session, then the provider's."""
    provider = oidc()
    tokens = session.get("tokens") or {}
    # Revoking the refresh token revokes its access token too (the API refuses it from then on); with no
    # refresh token, the access token is revoked by itself.
    hint = "refresh_token" if tokens.get("refresh_token") else "access_token"
    if tokens.get(hint):
        try:
            provider.revoke(tokens[hint], token_type_hint=hint)
        except CfeError:  # sign-out must still end the local session
            log.warning("could not revoke the tokens at sign-out", exc_info=True)
    id_token = tokens.get("id_token")
    end_session()
    try:
        # RP-Initiated Logout 1.0: with the ID token as hint the provider signs its session out at once; a
        # session without one gets the provider's confirmation page, in the user's language.
        provider_logout = provider.end_session_url(
            post_logout_redirect_uri=url_for("main.home", _external=True), id_token_hint=id_token, ui_locales=_locale()
        )
    except ServiceUnavailable:
        log.warning("identity provider unreachable at sign-out; the portal session ended anyway")
        flash(
            _(
                "Cerraste la sesión en el portal. El servicio no respondió, así que la sesión de ingreso puede "
                "seguir abierta en este navegador: si la computadora es compartida, cerrá el navegador."
            ),
            "warning",
        )
        return redirect(url_for("main.home"), code=303)
    flash(_("Cerraste la sesión."), "info")
    if not provider_logout:
        return redirect(url_for("main.home"))
    return redirect(provider_logout, code=303)
