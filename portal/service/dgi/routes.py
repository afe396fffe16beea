"""HTTP endpoints of the dgi group (see ../shared/SERVICE-INTERFACE.md)."""

from flask import Blueprint

bp = Blueprint("dgi", __name__, url_prefix="/api/v1/dgi")
