"""The portal's comprobantes area: issue receipts, see and find them, sign an XML, collection references."""

from flask import Blueprint

bp = Blueprint("comprobantes", __name__, url_prefix="/comprobantes")

WRITERS = ("admin", "usuario")
