"""The portal's cotizaciones area: the exchange rates the service keeps, day by day, and the rate a receipt of each
day takes."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("cotizaciones", __name__, url_prefix="/cotizaciones")
# The area's own strings: `pybabel extract -F portal/web/cotizaciones/babel.cfg -k _l -o /tmp/cotizaciones.pot .`
