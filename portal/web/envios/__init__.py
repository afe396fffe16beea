"""The portal's envios area: a receipt's DGI state (the shared badge and its self-refreshing fragments), the
corrected re-issue of a rejected receipt, and the "Envíos a DGI" page for support staff and admins."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("envios", __name__, url_prefix="/envios")
