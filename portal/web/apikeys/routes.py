"""Views of the apikeys area."""

from flask import Blueprint

from portal.web.auth.session import role_required
from portal.web.rendering import render

bp = Blueprint("apikeys", __name__, url_prefix="/apikeys")


@bp.get("/")
@role_required("admin", "soporte")
def index():
    """The area's landing page."""
    return render("apikeys/index.html")
