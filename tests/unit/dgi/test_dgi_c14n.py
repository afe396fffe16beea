"""The pure-Python Exclusive C14N: identical to libxml2's wherever libxml2 works, and it works where libxml2
refuses (DGI's relative namespace URI)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from portal.service.dgi.c14n import exclusive_c14n

PREFIX_URIS = {"a": ("http://a.example/", "http://a2.example/"), "b": ("urn:b",), "c": ("http://c.example/x",)}
DEFAULT_URIS = ("", "http://d.example/", "http://e.example/")
TEXT = st.text(alphabet="ab &<>\"'\t\n\r\u00f1", max_size=6)


def _escape(text: str, quote: bool = False) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")
    if quote:
        text = text.replace('"', "&quot;").replace("\t", "&#9;").replace("\n", "&#10;")
    return text


@st.composite
def elements(draw, scope=None, depth=0):
    """XML source of an element whose prefixes are all declared, with redeclarations and xmlns=""."""
    scope = dict(scope or {None: ""})
    declared = {}
    for prefix, uris in PREFIX_URIS.items():
        if draw(st.integers(0, 3)) == 0:
            declared[prefix] = draw(st.sampled_from(uris))
    if draw(st.integers(0, 2)) == 0:
        declared[None] = draw(st.sampled_from(DEFAULT_URIS))
    scope.update(declared)
    prefix = draw(st.sampled_from(sorted((p for p in scope if p), key=str) + [None]))
    tag = f"{prefix}:{draw(st.sampled_from('xyz'))}" if prefix else draw(st.sampled_from("xyz"))
    attrs, seen = [], set()
    for name in draw(st.lists(st.sampled_from("klm"), max_size=3, unique=True)):
        attrs.append(f'{name}="{_escape(draw(TEXT), quote=True)}"')
    for attr_prefix in draw(st.lists(st.sampled_from([p for p in scope if p] or ["-"]), max_size=2)):
        local = draw(st.sampled_from("kq"))
        if attr_prefix != "-" and (scope[attr_prefix], local) not in seen:
            seen.add((scope[attr_prefix], local))
            attrs.append(f'{attr_prefix}:{local}="{_escape(draw(TEXT), quote=True)}"')
    decls = [f'xmlns:{p}="{u}"' if p else f'xmlns="{u}"' for p, u in declared.items()]
    parts = [_escape(draw(TEXT))]
    if depth < 3:
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(("element", "element", "comment", "pi")))
            if kind == "element":
                parts.append(draw(elements(scope, depth + 1)))
            else:
                parts.append("<!--c-->" if kind == "comment" else "<?pi some data?>")
            parts.append(_escape(draw(TEXT)))
    return f"<{' '.join([tag, *decls, *attrs])}>{''.join(parts)}</{tag}>"


@settings(max_examples=300, deadline=None)
@given(elements())
def test_same_bytes_as_libxml2_for_every_element_of_random_documents(source):
    root = etree.fromstring(source.encode("utf-8"))
    for element in root.iter(etree.Element):
        expected = etree.tostring(element, method="c14n", exclusive=True, with_comments=False)
        assert exclusive_c14n(element) == expected, source


def test_the_dgi_payload_that_libxml2_refuses():
    envelope = etree.fromstring(
        b'<soap-env:Envelope xmlns:soap-env="http://schemas.xmlsoap.org/soap/envelope/"'
        b' xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd">'
        b'<soap-env:Body wsu:Id="id-1"><ns0:WS_PersonaGetActEmpresarial.Execute'
        b' xmlns:ns0="DGI_Modernizacion_Consolidado"><ns0:Rut>219000090011</ns0:Rut>'
        b"</ns0:WS_PersonaGetActEmpresarial.Execute></soap-env:Body></soap-env:Envelope>"
    )
    body = envelope[0]
    with pytest.raises(etree.C14NError):
        etree.tostring(body, method="c14n", exclusive=True)
    assert exclusive_c14n(body) == (
        b'<soap-env:Body xmlns:soap-env="http://schemas.xmlsoap.org/soap/envelope/"'
        b' xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"'
        b' wsu:Id="id-1"><ns0:WS_PersonaGetActEmpresarial.Execute xmlns:ns0="DGI_Modernizacion_Consolidado">'
        b"<ns0:Rut>219000090011</ns0:Rut></ns0:WS_PersonaGetActEmpresarial.Execute></soap-env:Body>"
    )
