"""The home page, the company switcher and the language switch."""

from flask import Blueprint

bp = Blueprint("main", __name__)

from portal.web.main import routes  # noqa: E402,F401
