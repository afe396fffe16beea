"""HTTP endpoints of the apikeys group (see ../shared/SERVICE-INTERFACE.md)."""

from flask import Blueprint

bp = Blueprint("apikeys", __name__, url_prefix="/api/v1/apikeys")
