"""The portal's productos area: the company's products and services, searched, paged, edited, and a price list
imported from CSV."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("productos", __name__, url_prefix="/productos")
# The productos area's own strings: `pybabel extract -F portal/web/productos/babel.cfg -k _l -o /tmp/productos.pot .`
