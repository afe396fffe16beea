"""The portal's empresa area (admins): fiscal settings, branches, logo, certificates, CAE ranges, audit (which
support reads too)."""

from flask import Blueprint

bp = Blueprint("empresa", __name__, url_prefix="/empresa")
