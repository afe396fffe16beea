"""Views of the comprobantes area."""

from flask import Blueprint
from flask_login import login_required

from portal.web.rendering import render

bp = Blueprint("comprobantes", __name__, url_prefix="/comprobantes")


@bp.get("/")
@login_required
def index():
    """The area's landing page."""
    return render("comprobantes/index.html")
