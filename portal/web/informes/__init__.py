"""The portal's informes area: a period's sales at a glance with charts, and the IVA sales book to download."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("informes", __name__, url_prefix="/informes")
# The informes area's own strings: `pybabel extract -F portal/web/informes/babel.cfg -k _l -o /tmp/informes.pot .`
