"""Parsing XML that comes from outside: no DTD, no entities, no network, caps on size and shape, a CPU budget.

A DOCTYPE is refused outright rather than merely not expanded: CFEs, CAEs and envelopes never carry one,
so its presence is either a mistake or an attack (entity expansion, external fetches). XInclude elements
are refused too: nothing here ever processes them, and a document that carries one is not a CFE.

Shape caps come before any signing or validation. They matter most for attributes on one element:
libxml2's canonicalization (C14N, which every signature and digest runs) sorts each element's attributes
by insertion into a sorted list, which is quadratic in their number (60,000 attributes on one element took
23 s to sign). CFEs and CAEs carry a handful of attributes per element at most.

`intake()` wraps a whole pipeline over one received document (parse, sign, re-parse for schema validation):
it bounds the CPU the pipeline may spend (every `parse_untrusted` inside checks the budget first and refuses
once it is spent) and how many such pipelines run at once in the process. Signing and validating hold
Python's GIL for milliseconds at a time; eight large documents at once would leave /healthz and every
other request waiting their turn, while two keep the cores busy and the rest of the service responsive.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import threading
import time
from collections.abc import Iterator
from typing import cast

from lxml import etree

from portal.service.cfe.errors import CfeError, XmlInputError
from portal.service.platform.i18n import Text, _

MAX_XML_BYTES = 2 * 1024 * 1024  # DGI's own cap for an envelope of 250 CFEs
# A CFE of 700 lines (DGI's maximum) with every optional part has about 21,000 elements.
MAX_ELEMENTS = 25_000
MAX_ATTRIBUTES = 25_000  # counted as "=" signs, before parsing: text has no business holding that many
MAX_ATTRIBUTES_PER_ELEMENT = 32
MAX_NAMESPACES = 32  # in scope on one element; C14N sorts these the same way
# libxml2 checks each namespace declaration of an element against the others, quadratically: count them in
# the bytes, before parsing (a CFE declares two or three).
MAX_NAMESPACE_DECLARATIONS = 1_000
MAX_DEPTH = 48
CPU_SECONDS_PER_DOCUMENT = 0.5
CONCURRENT_INTAKES = 2  # per process; one per core
INTAKE_WAIT_SECONDS = 5.0
XINCLUDE_NS = "http://www.w3.org/2001/XInclude"
# Spelled with classes, not IGNORECASE, so that the engine scans for the literal "<!" (30 times faster on 2 MB).
_DOCTYPE = re.compile(rb"<![Dd][Oo][Cc][Tt][Yy][Pp][Ee]")
_DECLARED_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
# Encodings in which every markup character is its ASCII byte, so that the byte counts below are honest.
# DGI's documents are UTF-8.
_ASCII_COMPATIBLE = {b"utf-8", b"utf8", b"us-ascii", b"ascii", b"iso-8859-1", b"latin1", b"latin-1"}
_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("xml_cpu_deadline", default=None)
_intake_slots = threading.BoundedSemaphore(CONCURRENT_INTAKES)

# Exact checks, in C, run only when a cheap count over the bytes says the document could break the cap.
_CROWDED_ELEMENT = etree.XPath(f"(//*[@*[{MAX_ATTRIBUTES_PER_ELEMENT + 1}] or namespace::*[{MAX_NAMESPACES + 1}]])[1]")
_TOO_DEEP = etree.XPath(f"boolean(/{'/*' * (MAX_DEPTH + 1)})")
_XINCLUDE = etree.XPath("(//xi:*)[1]", namespaces={"xi": XINCLUDE_NS})


def _parser() -> etree.XMLParser:
    # A parser per call: lxml parsers keep state and are not meant to be shared between threads.
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=False,
        remove_pis=False,
    )


class XmlIntakeBusy(CfeError):
    """Every intake slot stayed taken for INTAKE_WAIT_SECONDS: the caller should retry in a moment."""

    def __init__(self, message: Text):
        super().__init__(message)
        self.text = message  # the catalogue message, said in the reader's language (str(exc) loses it)


@contextlib.contextmanager
def intake(cpu_seconds: float = CPU_SECONDS_PER_DOCUMENT, wait: float = INTAKE_WAIT_SECONDS) -> Iterator[None]:
    """One of the process's intake slots and a CPU budget for the work on one received document."""
    if not _intake_slots.acquire(timeout=wait):
        raise XmlIntakeBusy(_("Hay demasiados documentos XML en proceso; reintentá en unos segundos."))
    token = _deadline.set(time.thread_time() + cpu_seconds)
    try:
        yield
    finally:
        _deadline.reset(token)
        _intake_slots.release()


def check_cpu_budget() -> None:
    """XmlInputError once the current `intake`'s CPU budget is spent (nothing outside one)."""
    deadline = _deadline.get()
    if deadline is not None and time.thread_time() > deadline:
        raise XmlInputError(_("El XML es demasiado costoso de procesar; enviá un documento más simple."))


def parse_untrusted(data: bytes, *, max_bytes: int = MAX_XML_BYTES) -> etree._ElementTree:
    """Parse bytes received from a caller; XmlInputError (with line and column when known) on any problem."""
    if not isinstance(data, (bytes, bytearray)):
        raise XmlInputError(_("Se esperaba el XML como bytes."))
    if len(data) > max_bytes:
        raise XmlInputError(_("El XML supera el máximo de {kb} KB.", kb=max_bytes // 1024))
    if not data.strip():
        raise XmlInputError(_("El XML está vacío."))
    check_encoding(data)
    if _DOCTYPE.search(data):
        raise XmlInputError(_("El XML no puede declarar un DOCTYPE."))
    # Every element opens with "<" (text must escape it): more tags than the cap is refused unparsed.
    tags = data.count(b"<") - data.count(b"</")
    if tags > MAX_ELEMENTS:
        raise XmlInputError(_("El XML tiene más de {count} elementos.", count=MAX_ELEMENTS))
    if data.count(b"=") > MAX_ATTRIBUTES:
        raise XmlInputError(_("El XML tiene más de {count} atributos.", count=MAX_ATTRIBUTES))
    if data.count(b"xmlns") > MAX_NAMESPACE_DECLARATIONS:
        raise XmlInputError(_("El XML declara más de {count} espacios de nombres.", count=MAX_NAMESPACE_DECLARATIONS))
    check_cpu_budget()
    try:
        root = etree.fromstring(bytes(data), _parser())
    except etree.XMLSyntaxError as exc:
        line, column = exc.position if exc.position else (None, None)
        raise XmlInputError(_("El XML está mal formado: {reason}.", reason=_syntax_reason(exc)), line, column) from None
    tree = root.getroottree()
    # Catches a DOCTYPE the byte scan missed (UTF-16 input, for instance).
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:  # type: ignore[union-attr]  # lxml-stubs lack DocInfo.doctype
        raise XmlInputError(_("El XML no puede declarar un DOCTYPE."))
    _check_shape(root, bytes(data), tags)
    check_cpu_budget()
    return tree


# libxml2's English, said for people; the line and column go with it. Codes: lxml.etree.ErrorTypes.
_REASON_BY_NAME = {
    "ERR_DOCUMENT_EMPTY": _("no empieza con una etiqueta"),
    "ERR_DOCUMENT_END": _("hay contenido después del elemento principal"),
    "ERR_TAG_NAME_MISMATCH": _("una etiqueta se cierra con otro nombre"),
    "ERR_TAG_NOT_FINISHED": _("termina antes de cerrar todas sus etiquetas"),
    "ERR_GT_REQUIRED": _("una etiqueta no está cerrada con >"),
    "ERR_ATTRIBUTE_NOT_STARTED": _("el valor de un atributo tiene que ir entre comillas"),
    "ERR_ATTRIBUTE_WITHOUT_VALUE": _("un atributo no tiene valor"),
    "ERR_ATTRIBUTE_REDEFINED": _("un atributo aparece dos veces en la misma etiqueta"),
    "ERR_UNDECLARED_ENTITY": _("usa una entidad que no existe (un & se escribe &amp;)"),
    "ERR_NAME_REQUIRED": _("tiene un & suelto (se escribe &amp;)"),
    "ERR_ENTITYREF_SEMICOL_MISSING": _("tiene un & suelto (se escribe &amp;)"),
    "ERR_LT_IN_ATTRIBUTE": _("el valor de un atributo tiene un < (se escribe &lt;)"),
    "ERR_INVALID_CHAR": _("tiene un carácter que XML no admite"),
    "ERR_INVALID_ENCODING": _("tiene bytes que no son UTF-8"),
    "ERR_RESERVED_XML_NAME": _("la declaración <?xml ...?> tiene que ir al principio"),
    "NS_ERR_UNDEFINED_NAMESPACE": _("usa un prefijo de espacio de nombres que no declaró"),
}
_SYNTAX_REASONS = {getattr(etree.ErrorTypes, name): reason for name, reason in _REASON_BY_NAME.items()}


def _syntax_reason(exc: etree.XMLSyntaxError) -> Text:
    code: int = exc.code  # type: ignore[attr-defined]  # lxml sets it (ParseError.code); lxml-stubs lack it
    return _SYNTAX_REASONS.get(code, _("no se puede leer"))


def check_encoding(data: bytes) -> None:
    """XmlInputError unless `data` is UTF-8 (or ASCII-compatible, as declared): DGI's documents are UTF-8."""
    declared = _DECLARED_ENCODING.match(data)
    if (
        b"\x00" in data
        or data.startswith((b"\xfe\xff", b"\xff\xfe"))
        or (declared and declared.group(1).lower() not in _ASCII_COMPATIBLE)
    ):
        raise XmlInputError(_("El XML debe estar codificado en UTF-8."))


# An absolute URI starts with its scheme (RFC 3986); "" undeclares the default namespace.
_ABSOLUTE_URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:|$)")
_ABSOLUTE_URI_BYTES = re.compile(rb"^([A-Za-z][A-Za-z0-9+.-]*:|$)")
_DECLARED_URIS = re.compile(rb"""xmlns(?::[^\s=>]+)?\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _relative_namespace(root: etree._Element, data: bytes) -> tuple[int | None, str] | None:
    """(line, URI) of the first namespace declared with a relative URI, which C14N (and so signing and
    verifying) refuses.

    The bytes are read first: a scheme written in them is a scheme once parsed (references cannot make one
    or unmake one), so a document whose declarations all start with one costs a regular expression. Only
    otherwise the tree is walked (about 4 µs an element): a declaration shows there as a prefix whose URI
    differs from the parent's."""
    if all(_ABSOLUTE_URI_BYTES.match(b"".join(uri)) for uri in _DECLARED_URIS.findall(data)):
        return None
    parent_maps: dict[etree._Element | None, dict] = {None: {}}
    for element in root.iter(etree.Element):
        nsmap = element.nsmap
        inherited = parent_maps.get(element.getparent(), {})
        for prefix, uri in nsmap.items():
            if inherited.get(prefix) != uri and not _ABSOLUTE_URI.match(uri):
                return source_line(element), uri
        parent_maps[element] = nsmap
    return None


def _check_shape(root: etree._Element, data: bytes, tags: int) -> None:
    """Caps on attributes and namespaces per element, depth and XInclude; each exact check runs only when the
    bytes allow a breach (every attribute has an "="), so ordinary documents pay microseconds."""
    if data.count(b"=") > min(MAX_ATTRIBUTES_PER_ELEMENT, MAX_NAMESPACES):
        crowded = _elements(_CROWDED_ELEMENT(root))
        if crowded:
            raise XmlInputError(
                _(
                    "Un elemento tiene más de {count} atributos o espacios de nombres.",
                    count=MAX_ATTRIBUTES_PER_ELEMENT,
                ),
                source_line(crowded[0]),
                None,
            )
    if tags > MAX_DEPTH and _TOO_DEEP(root):
        raise XmlInputError(_("El XML anida más de {count} niveles de elementos.", count=MAX_DEPTH))
    relative = _relative_namespace(root, data)
    if relative is not None:
        raise XmlInputError(
            _(
                "El espacio de nombres «{uri}» tiene que ser una URI absoluta (como http://... o urn:...).",
                uri=relative[1],
            ),
            relative[0],
            None,
        )
    xinclude = _elements(_XINCLUDE(root)) if XINCLUDE_NS.encode() in data else []
    if xinclude:
        raise XmlInputError(_("El XML no puede usar XInclude."), source_line(xinclude[0]), None)


def _elements(found: object) -> list[etree._Element]:
    """What an element-selecting XPath (`_CROWDED_ELEMENT`, `_XINCLUDE`) answers: a list of elements."""
    return cast(list[etree._Element], found)


def source_line(element: etree._Element) -> int | None:
    """The element's line in the document (lxml-stubs type `sourceline` as a bare `...`)."""
    return cast(int | None, element.sourceline)
