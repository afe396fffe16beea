"""Views of the inteligente area."""

from flask import Blueprint
from flask_login import login_required

from portal.web.rendering import render

bp = Blueprint("inteligente", __name__, url_prefix="/inteligente")


@bp.get("/")
@login_required
def index():
    """The area's landing page."""
    return render("inteligente/index.html")
