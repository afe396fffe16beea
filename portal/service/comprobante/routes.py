"""HTTP endpoints of the comprobante group (see ../shared/SERVICE-INTERFACE.md)."""

from flask import Blueprint

bp = Blueprint("comprobante", __name__, url_prefix="/api/v1/comprobante")
