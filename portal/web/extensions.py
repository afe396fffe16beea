"""Extension objects, created once and bound to the app in create_app."""

from authlib.integrations.flask_client import OAuth
from flask import current_app
from flask_babel import Babel
from flask_htmx import HTMX
from flask_login import LoginManager
from flask_session import Session
from flask_wtf import CSRFProtect

csrf = CSRFProtect()
login_manager = LoginManager()
babel = Babel()
server_session = Session()
htmx = HTMX()


def oidc():
    """This app's OIDC client for the service's provider (one OAuth registry per app, not per process)."""
    return current_app.extensions["oidc_registry"].cfe


def new_oauth_registry() -> OAuth:
    return OAuth()
