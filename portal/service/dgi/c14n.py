"""Exclusive XML Canonicalization 1.0 (without comments) of an lxml subtree, in pure Python.

Why not libxml2: DGI's lookup service puts its payload in the relative namespace URI
`DGI_Modernizacion_Consolidado`. The C14N specs tell implementations to fail on relative namespace URIs and
libxml2 does (lxml raises "C14N failed", xmlsec "failed to sign"), for every c14n mode and even when the
declaration only sits on an ancestor. DGI's own stack (IBM DataPower, like Java's Apache Santuario) writes
the URI as it is, so the bytes to digest are well defined: that is what this function produces.

Scope: elements, attributes, namespaces, text and processing instructions of one subtree, which is what a
WS-Security `Reference URI="#id"` to an element needs. No InclusiveNamespaces prefix list. The property test
in tests/unit/dgi compares it with libxml2's output on documents libxml2 accepts.
"""

from __future__ import annotations

from lxml import etree

XML_NS = "http://www.w3.org/XML/1998/namespace"


def _text(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#xD;")


def _attr(value: str) -> str:
    return (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace('"', "&quot;")
        .replace("\t", "&#x9;")
        .replace("\n", "&#xA;")
        .replace("\r", "&#xD;")
    )


def _as_text(value: str | bytes) -> str:
    """lxml gives text as str; its stubs allow bytes too."""
    return value if isinstance(value, str) else value.decode()


def _attributes(el: etree._Element) -> tuple[list[tuple[str, str, str, str]], dict[str, str]]:
    """(namespace, local name, qualified name, value) of each attribute, and the prefixes they use."""
    attrs, used = [], {}
    for index, (key, value) in enumerate(el.attrib.items(), start=1):
        qname = etree.QName(key)
        if qname.namespace is None:
            attrs.append(("", qname.localname, qname.localname, _as_text(value)))
            continue
        if qname.namespace == XML_NS:
            prefix = "xml"
        else:
            # lxml does not expose an attribute's prefix; XPath's name() gives the qualified name as written.
            prefix = str(el.xpath(f"name(@*[{index}])")).partition(":")[0]
            used[prefix] = qname.namespace
        attrs.append((qname.namespace, qname.localname, f"{prefix}:{qname.localname}", _as_text(value)))
    attrs.sort(key=lambda a: (a[0], a[1]))
    return attrs, used


def _element(el: etree._Element, rendered: dict[str | None, str], out: list[str]) -> None:
    qname = etree.QName(el)
    attrs, utilized = _attributes(el)
    utilized = {el.prefix: qname.namespace or "", **utilized}
    declare, inner = [], dict(rendered)
    for prefix, uri in utilized.items():
        # Output ancestors' declarations are in force; an unqualified element under a rendered default
        # namespace needs xmlns="" (the apex has none in force, so it never gets one).
        if rendered.get(prefix, "" if prefix is None else None) != uri:
            declare.append((prefix or "", uri))
            inner[prefix] = uri
    tag = f"{el.prefix}:{qname.localname}" if el.prefix else qname.localname
    out.append("<" + tag)
    for prefix, uri in sorted(declare):
        out.append(f' xmlns:{prefix}="{_attr(uri)}"' if prefix else f' xmlns="{_attr(uri)}"')
    out.extend(f' {name}="{_attr(value)}"' for _, _, name, value in attrs)
    out.append(">")
    if el.text:
        out.append(_text(el.text))
    for child in el:
        if isinstance(child, etree._ProcessingInstruction):
            out.append(f"<?{_as_text(child.target)}{' ' + _as_text(child.text) if child.text else ''}?>")
        elif isinstance(child, etree._Element) and not isinstance(child, (etree._Comment, etree._Entity)):
            _element(child, inner, out)
        if child.tail:
            out.append(_text(child.tail))
    out.append(f"</{tag}>")


def exclusive_c14n(element: etree._Element) -> bytes:
    """The exc-c14n (http://www.w3.org/2001/10/xml-exc-c14n#) bytes of `element` and its subtree."""
    out: list[str] = []
    _element(element, {}, out)
    return "".join(out).encode("utf-8")
