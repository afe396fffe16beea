"""The portal's clientes area: the company's customers (kept from its receipts), searched, paged and edited."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("clientes", __name__, url_prefix="/clientes")
# The clientes area's own strings: `pybabel extract -F portal/web/clientes/babel.cfg -k _l -o /tmp/clientes.pot .`
