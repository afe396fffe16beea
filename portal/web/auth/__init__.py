"""Sign-in through the service's OpenID Connect provider, the server-side session, and role checks."""

from flask import Blueprint

bp = Blueprint("auth", __name__, url_prefix="/auth")

from portal.web.auth import routes  # noqa: E402,F401  (registers the views on bp)
