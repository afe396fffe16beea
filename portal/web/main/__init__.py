"""The home page, the company switcher and the language switch."""

from flask import Blueprint

bp = Blueprint("main", __name__)
