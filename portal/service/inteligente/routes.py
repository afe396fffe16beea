"""HTTP endpoints of the inteligente group (see ../shared/SERVICE-INTERFACE.md)."""

from flask import Blueprint

bp = Blueprint("inteligente", __name__, url_prefix="/api/v1/cfe")
