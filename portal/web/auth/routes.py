"""Sign-in (OIDC code flow with PKCE, state and nonce), the callback, and sign-out."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlencode

import requests
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from flask import current_app, flash, redirect, request, session, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import login_user

from portal.client import CfeError, ServiceUnavailable
from portal.web.auth import bp
from portal.web.auth.session import PortalUser, end_session, safe_next, start_session
from portal.web.backend import service_client
from portal.web.extensions import oidc
from portal.web.rendering import render

log = logging.getLogger("portal.web.auth")


def _locale() -> str:
    return str(get_locale() or "es")


@contextmanager
def _provider_reachable() -> Iterator[None]:
    """The provider is the service: when it does not answer, say so as for any call through the client (the 503
    page with "Reintentar"), not as an error of ours."""
    try:
        yield
    except (requests.ConnectionError, requests.Timeout) as exc:
        raise ServiceUnavailable(f"identity provider unreachable: {exc}", status=503, code="unavailable") from exc


@bp.get("/login")
def login():
    """Start the code flow at the service's identity provider."""
    session["after_login"] = safe_next(request.args.get("next")) or url_for("main.home")
    redirect_uri = url_for("auth.callback", _external=True)
    # The provider's metadata is read once per process: after that, nothing here would notice the service is
    # down, and the browser would be sent to an address that refuses it.
    service_client().check_available()
    with _provider_reachable():
        return oidc().authorize_redirect(redirect_uri, ui_locales=_locale())


@bp.get("/callback")
def callback():
    """Finish the code flow: exchange the code (PKCE verifier, state and nonce checked by authlib)."""
    if "error" in request.args:
        return render(
            "auth/signin_failed.html", reason=request.args.get("error_description") or request.args["error"], status=400
        )
    try:
        with _provider_reachable():
            token = oidc().authorize_access_token()
    except OAuthError as exc:
        log.warning("sign-in failed: %s", exc)
        return render("auth/signin_failed.html", reason=exc.description or exc.error, status=400)
    claims = token.get("userinfo") or {}
    if claims.get("aud") and current_app.config["OIDC_CLIENT_ID"] not in (
        claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    ):
        return render("auth/signin_failed.html", reason="audience", status=400)
    after = session.get("after_login") or url_for("main.home")
    try:
        begin_session(token)
    except CfeError as exc:
        return render("auth/signin_failed.html", reason=exc.message, status=503)
    return redirect(after)


def begin_session(token: dict) -> None:
    """Sign the user in with the provider's tokens: their companies from the service's userinfo, a fresh session,
    flask-login's user. Raises CfeError when the service does not answer (nothing is stored then)."""
    info = service_client().as_user(token["access_token"], locale=_locale()).userinfo()
    start_session(info, token)
    login_user(PortalUser(session["user"]))


@bp.post("/logout")
def logout():
    """Revoke the tokens at the provider, end the portal session, then the provider's."""
    tokens = session.get("tokens") or {}
    # Revoking the refresh token revokes its access token too (the API refuses it from then on); with no
    # refresh token, the access token is revoked by itself.
    hint = "refresh_token" if tokens.get("refresh_token") else "access_token"
    if tokens.get(hint):
        try:
            metadata = oidc().load_server_metadata()
            with OAuth2Session(
                current_app.config["OIDC_CLIENT_ID"], current_app.config["OIDC_CLIENT_SECRET"]
            ) as client:
                client.revoke_token(metadata["revocation_endpoint"], tokens[hint], token_type_hint=hint, timeout=5)
        except Exception:  # noqa: BLE001 - sign-out must still end the local session
            log.warning("could not revoke the tokens at sign-out", exc_info=True)
    id_token = tokens.get("id_token")
    end_session()
    try:
        metadata = oidc().load_server_metadata()
    except (requests.ConnectionError, requests.Timeout):
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
    end_session_url = metadata.get("end_session_endpoint")
    if not end_session_url:
        return redirect(url_for("main.home"))
    params = {
        "client_id": current_app.config["OIDC_CLIENT_ID"],
        "post_logout_redirect_uri": url_for("main.home", _external=True),
    }
    if id_token:
        params["id_token_hint"] = id_token
    return redirect(f"{end_session_url}?{urlencode(params)}", code=303)
