"""Sign-in through the service's OpenID Connect provider, the server-side session, and role checks."""

from flask import Blueprint

bp = Blueprint("auth", __name__, url_prefix="/auth")
