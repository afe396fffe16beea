"""Views of the dgi area."""

from flask import Blueprint
from flask_login import login_required

from portal.web.rendering import render

bp = Blueprint("dgi", __name__, url_prefix="/dgi")


@bp.get("/")
@login_required
def index():
    """The area's landing page."""
    return render("dgi/index.html")
