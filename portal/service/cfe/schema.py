"""Validation against DGI's XSD 1.44.2, read from `portal.paths.xsd_dir()` and never from the network.

Each schema is compiled once per process (CFEDGI.xsd takes a noticeable fraction of a second) and shared.
"""

from __future__ import annotations

import threading
from functools import cache

from lxml import etree

from portal import paths
from portal.service.cfe.xmlsafe import parse_untrusted
from portal.service.platform.i18n import _

CFE_SCHEMA = "CFEDGI.xsd"
CAE_SCHEMA = "CAE.xsd"
_lock = threading.Lock()


def schema_available(name: str = CFE_SCHEMA) -> bool:
    """Whether the XSD folder holds `name` (CFEDGI.xsd by default)."""
    return (paths.xsd_dir() / name).is_file()


@cache
def _compiled(path: str) -> etree.XMLSchema:
    # The XSDs are DGI's and W3C's own files, trusted; their internal entities (xmldsig-core-schema.xsd
    # declares some) must be expanded for the schema to compile. The network stays off.
    parser = etree.XMLParser(no_network=True, load_dtd=False)
    return etree.XMLSchema(etree.parse(path, parser))


def load_schema(name: str = CFE_SCHEMA) -> etree.XMLSchema:
    """The compiled schema `name` from the XSD folder; FileNotFoundError when it is not there."""
    path = paths.xsd_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"No se encuentra {name} en {paths.xsd_dir()} (CFE_XSD_DIR).")
    with _lock:
        return _compiled(str(path))


def validate_xml(document: bytes | etree._Element | etree._ElementTree, name: str) -> list[str]:
    """Schema errors of `document` against the XSD `name`, each prefixed with its line number."""
    if not isinstance(document, (bytes, bytearray)):
        # Re-read from bytes so that line numbers refer to the serialized document, not to an in-memory tree.
        root = document.getroot() if isinstance(document, etree._ElementTree) else document
        document = etree.tostring(root, encoding="UTF-8")
    return [message for message, _path in located_errors(parse_untrusted(bytes(document)), name)]


def located_errors(tree: etree._ElementTree, name: str) -> list[tuple[str, str | None]]:
    """Schema errors of an already parsed `tree` against the XSD `name`: each message prefixed with its line
    number, and libxml2's XPath of the element it is about (None when it names none). A line alone does not
    say which element: a document written on one line has every error on it."""
    schema = load_schema(name)
    # XMLSchema keeps its error log on the object: serialise validations so each reads its own log.
    with _lock:
        if schema.validate(tree):
            return []
        # libxml2's English after our "línea N", a catalogue message: said in each reader's language.
        return [(_("línea {line}: {message}", line=e.line, message=e.message), e.path) for e in schema.error_log]  # type: ignore[attr-defined]  # iterable; lxml-stubs miss it


def validate_cfe(document: bytes | etree._Element | etree._ElementTree) -> list[str]:
    """Errors of a signed CFE against CFEDGI.xsd (empty when valid). An unsigned CFE fails: ds:Signature
    is required by the schema."""
    return validate_xml(document, CFE_SCHEMA)
