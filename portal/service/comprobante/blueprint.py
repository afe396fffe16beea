"""The comprobante area's blueprint and what its two route modules share (routes.py: receipts, previews and
references; note_routes.py: credit and debit notes). Both add their views to `bp`; routes.py imports
note_routes so that registering `routes.bp` registers every endpoint of the area."""

from __future__ import annotations

from flask import Blueprint

from portal.service.platform.api import idempotency_header
from portal.service.platform.auth import API_KEY, JWT

bp = Blueprint("comprobante", __name__, url_prefix="/api/v1/comprobante")

TAG = "Comprobante"
BOTH = (JWT, API_KEY)
IDEMPOTENCY = {
    "Idempotency-Key": idempotency_header(
        "Clave única por comprobante (hasta 255 caracteres): repetir la solicitud con la misma clave devuelve el "
        "mismo comprobante, sin emitir otro."
    )
}
