"""The portal in English: every page a signed-in admin can open without arguments, rendered with the English
locale, shows no Spanish text of the portal's own templates and views. Text from data (company and item names)
and messages written by the service may stay Spanish (docs/VOICE.md)."""

from __future__ import annotations

import glob
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[2]

# Words of the portal's own Spanish that no seeded record contains: if one shows in English mode, a template
# or view wrote Spanish outside _().
SPANISH_UI = re.compile(
    r"\b(Revisá|Ingresá|Elegí|Escribí|Volvé|Buscar|Guardar|Volver|Cancelar|Emitir|Descargar|Siguiente|"
    r"Anterior|Cerrar sesión|Comprobantes|Claves de API|Envíos a DGI|Emisión inteligente|tu empresa|"
    r"Acciones|Fecha|Estado|Importe|Número|Ninguno|Todavía|Cargando)\b"
)


def _telling_part(msgid: str) -> str:
    """The longest piece of a msgid between its placeholders ("%(name)s: ahora trabajás..." -> ": ahora...")."""
    return max((p.strip() for p in re.split(r"%\([a-z_]+\)[sd]", msgid)), key=len)


# DGI's own names, kept in Spanish in the English text on purpose so a user can find them on DGI's forms.
DGI_TERMS = re.compile(r"Fecha emisor|Certificado Único")


def _catalog() -> dict[str, str]:
    """The telling part of every Spanish msgid whose English differs and is long enough to be telling."""
    pairs = {}
    for path in glob.glob(str(ROOT / "portal/web/**/translations/en/LC_MESSAGES/messages.po"), recursive=True):
        with open(path, "rb") as handle:
            for message in read_po(handle, locale="en"):
                msgid = message.id if isinstance(message.id, str) else message.id[0]
                english = message.string if isinstance(message.string, str) else (message.string or [""])[0]
                text = _telling_part(msgid) if msgid else ""
                if english and english != msgid and len(text) >= 12 and " " in text and text not in english:
                    pairs[text] = english
    return pairs


def _pages(portal_app) -> list[str]:
    """GET routes of the portal without path arguments: its pages (downloads and fragments are skipped below)."""
    rules = [r for r in portal_app.url_map.iter_rules() if "GET" in r.methods and not r.arguments]
    skip = ("static", "/auth/", "/idioma", "/salud", "/health", ".csv", "/logout", "/salir")
    return sorted({r.rule for r in rules if not any(s in r.rule for s in skip)})


def _visible_text(html: str) -> str:
    soup = BeautifulSoup(html, "html.parser")
    for hidden in soup(["script", "style", "template"]):
        hidden.decompose()
    return soup.get_text(" ", strip=True)


def test_every_page_in_english_shows_no_spanish_of_the_portal(portal_app, signed_in):
    client = signed_in("admin@demo.uy")
    token = BeautifulSoup(client.get("/").data, "html.parser").find("input", {"name": "csrf_token"})["value"]
    assert client.post("/idioma", data={"lang": "en", "csrf_token": token}).status_code in (302, 303)
    catalog = _catalog()
    assert len(catalog) > 300
    seen, found = [], []
    for path in _pages(portal_app):
        answer = client.get(path)
        if answer.status_code != 200 or not answer.mimetype == "text/html":
            continue
        seen.append(path)
        text = DGI_TERMS.sub("", _visible_text(answer.get_data(as_text=True)))
        found += [f"{path}: {spanish!r}" for spanish in catalog if spanish in text]
        found += [f"{path}: {m.group(0)!r}" for m in SPANISH_UI.finditer(text)]
    assert len(seen) >= 8, seen
    assert found == []


@pytest.mark.parametrize("path", ["/", "/comprobantes/"])
def test_the_check_sees_spanish_when_the_page_is_spanish(signed_in, path):
    """Not vacuous: the same pages in Spanish trip both checks."""
    text = _visible_text(signed_in("admin@demo.uy").get(path).get_data(as_text=True))
    assert SPANISH_UI.search(text)
    assert any(spanish in text for spanish in _catalog())
