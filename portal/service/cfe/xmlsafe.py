"""Parsing XML that comes from outside: no DTD, no entities, no network, a size cap.

A DOCTYPE is refused outright rather than merely not expanded: CFEs, CAEs and envelopes never carry one,
so its presence is either a mistake or an attack (entity expansion, external fetches).
"""

from __future__ import annotations

import re

from lxml import etree

from portal.service.cfe.errors import XmlInputError

MAX_XML_BYTES = 2 * 1024 * 1024  # DGI's own cap for an envelope of 250 CFEs
_DOCTYPE = re.compile(rb"<!DOCTYPE", re.IGNORECASE)


def _parser() -> etree.XMLParser:
    # A parser per call: lxml parsers keep state and are not meant to be shared between threads.
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                           huge_tree=False, remove_comments=False, remove_pis=False)


def parse_untrusted(data: bytes, *, max_bytes: int = MAX_XML_BYTES) -> etree._ElementTree:
    """Parse bytes received from a caller; XmlInputError (with line and column when known) on any problem."""
    if not isinstance(data, (bytes, bytearray)):
        raise XmlInputError("Se esperaba el XML como bytes.")
    if len(data) > max_bytes:
        raise XmlInputError(f"El XML supera el máximo de {max_bytes // 1024} KB.")
    if not data.strip():
        raise XmlInputError("El XML está vacío.")
    if _DOCTYPE.search(data):
        raise XmlInputError("El XML no puede declarar un DOCTYPE.")
    try:
        root = etree.fromstring(bytes(data), _parser())
    except etree.XMLSyntaxError as exc:
        line, column = exc.position if exc.position else (None, None)
        raise XmlInputError(f"XML mal formado: {exc.msg}", line, column) from None
    tree = root.getroottree()
    # Catches a DOCTYPE the byte scan missed (UTF-16 input, for instance).
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise XmlInputError("El XML no puede declarar un DOCTYPE.")
    return tree
