"""The portal's comprobantes area: issue receipts, see and find them, sign an XML, collection references."""

from flask import Blueprint

from portal.web.comprobantes.choices import type_name, unbroken_numbers, unbroken_type

bp = Blueprint("comprobantes", __name__, url_prefix="/comprobantes")
# Every page names CFE types the same way, in its language: "{{ type_name(code) }}".
bp.add_app_template_global(type_name, "type_name")
# A receipt's number is never split across lines ("{{ view.title|unbroken_numbers }}"), wherever it is shown.
bp.add_app_template_filter(unbroken_numbers, "unbroken_numbers")
# ... and a type's "e-" word neither ("{{ type_name(code)|unbroken_type }}", where a column is narrow).
bp.add_app_template_filter(unbroken_type, "unbroken_type")
