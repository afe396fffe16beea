"""The portal's comprobantes area: issue receipts, see and find them, sign an XML, collection references."""

from flask import Blueprint

from portal.web.comprobantes.choices import type_name

bp = Blueprint("comprobantes", __name__, url_prefix="/comprobantes")
# Every page names CFE types the same way, in its language: "{{ type_name(code) }}".
bp.add_app_template_global(type_name, "type_name")
