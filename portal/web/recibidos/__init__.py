"""Comprobantes recibidos: the CFEs the company's suppliers sent it, and what the company does with them."""

from flask import Blueprint

bp = Blueprint("recibidos", __name__, url_prefix="/recibidos")
