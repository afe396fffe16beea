"""Extension objects, created once and bound to the app in create_app."""

from flask import current_app
from flask_babel import Babel
from flask_htmx import HTMX
from flask_login import LoginManager
from flask_session import Session
from flask_wtf import CSRFProtect

from portal.client.oidc import OidcClient

csrf = CSRFProtect()
login_manager = LoginManager()
babel = Babel()
server_session = Session()
htmx = HTMX()


def oidc() -> OidcClient:
    """This app's OpenID Connect client for the service's provider (one per app: discovery and keys kept)."""
    client: OidcClient = current_app.extensions["oidc_client"]
    return client
