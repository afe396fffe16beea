"""The Empresa group's blueprint and what its route modules share (routes.py: settings, branches, logo,
certificates, CAE, audit; member_routes.py: the company's people). routes.py imports member_routes so that
registering `routes.bp` registers every endpoint of the area."""

from __future__ import annotations

from flask import Blueprint

from portal.service.platform.auth import JWT

bp = Blueprint("empresa", __name__, url_prefix="/api/v1/empresa")

TAG = "Empresa"
AUTH = (JWT,)
