"""Every Spanish text the portal shows has an English translation in some area's catalog."""

from __future__ import annotations

import glob
import re
import subprocess
import sys
from pathlib import Path

from babel.messages.pofile import read_po

from portal.domain.cfe_type_names import NAMES

ROOT = Path(__file__).resolve().parents[2]


def _msgid(message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def test_every_portal_string_has_an_english_translation(tmp_path):
    pot = tmp_path / "all.pot"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "babel.messages.frontend",
            "extract",
            "-F",
            "babel.cfg",
            "-k",
            "_l",
            "-o",
            str(pot),
            ".",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    translated = set()
    for path in glob.glob(str(ROOT / "portal/web/**/translations/en/LC_MESSAGES/messages.po"), recursive=True):
        with open(path, "rb") as handle:
            translated |= {_msgid(m) for m in read_po(handle, locale="en") if m.id and m.string}
    with open(pot, "rb") as handle:
        extracted = {_msgid(m) for m in read_po(handle) if m.id}
    assert len(extracted) > 400
    assert sorted(extracted - translated) == []


def _english(paths: list[str]):
    for path in paths:
        with open(path, "rb") as handle:
            for message in read_po(handle, locale="en"):
                if message.id and message.string:
                    strings = message.string if isinstance(message.string, tuple) else (message.string,)
                    yield _msgid(message), " ".join(strings)


def test_uruguays_tasa_minima_is_the_minimum_rate_in_english_everywhere():
    """One English name for IVA's tasa mínima (10 %) across the portal and the service: "minimum rate", as the
    issuing form, the receipt and the reports say; "reduced rate" on one page read as another rate."""
    paths = glob.glob(str(ROOT / "portal/web/**/translations/en/LC_MESSAGES/messages.po"), recursive=True)
    paths.append(str(ROOT / "portal/service/translations/en/LC_MESSAGES/messages.po"))
    minima = [(msgid, text) for msgid, text in _english(paths) if "mínima" in msgid]
    assert len(minima) > 10
    assert [(msgid, text) for msgid, text in minima if "reduced" in text.lower()] == []


def test_dgis_names_of_receipts_stay_dgis_names_in_english():
    """e-Factura and e-Remito are DGI's names, kept in English as e-Ticket is ("e-Factura credit note"): the form's
    list said "e-Factura" beside "Export e-Invoice" and "e-Invoice, sale on behalf of others", three names that a
    reader could not tell were one family."""
    paths = glob.glob(str(ROOT / "portal/web/**/translations/en/LC_MESSAGES/messages.po"), recursive=True)
    paths.append(str(ROOT / "portal/service/translations/en/LC_MESSAGES/messages.po"))
    english = [*_english(paths), *NAMES.values()]  # the types' own names: portal.domain.cfe_type_names
    named = [(msgid, text) for msgid, text in english for name in ("e-Factura", "e-Remito") if name in msgid]
    assert len(named) > 20
    assert [(msgid, text) for msgid, text in english if "e-Invoice" in text or "e-Delivery" in text] == []
    assert [
        (msgid, text) for msgid, text in named if not all(n in text for n in ("e-Factura", "e-Remito") if n in msgid)
    ] == []


def test_a_receipts_serie_is_its_series_in_english():
    """DGI's "serie" is "series" in English, as the receipt and the lists say ("Series and number"): the paper
    receipt's field read "Serie on the paper"."""
    paths = glob.glob(str(ROOT / "portal/web/**/translations/en/LC_MESSAGES/messages.po"), recursive=True)
    paths.append(str(ROOT / "portal/service/translations/en/LC_MESSAGES/messages.po"))
    placeholders = re.compile(r"%\([a-z_]+\)[sd]|\{[a-z_]+(:[^}]*)?\}")
    english = [
        (msgid, placeholders.sub("", text)) for msgid, text in _english(paths) if re.search(r"(?i)\bserie\b", msgid)
    ]
    assert len(english) > 15
    assert [(msgid, text) for msgid, text in english if re.search(r"(?i)\bserie\b", text)] == []


def test_english_says_vat_and_quotes_the_english_way():
    """IVA is VAT in English, as the portal's 76 other texts say (only the regime's name "IVA mínimo" stays DGI's),
    and English quotes with “ ”, not Spanish «»: smart issuance's reasons read "An export carries no IVA" and a
    price list's refusal "«abc» is not a price" on English pages."""
    paths = glob.glob(str(ROOT / "portal/web/**/translations/en/LC_MESSAGES/messages.po"), recursive=True)
    paths.append(str(ROOT / "portal/service/translations/en/LC_MESSAGES/messages.po"))
    english = list(_english(paths))
    assert len([text for _, text in english if "VAT" in text]) > 50
    assert [text for _, text in english if re.search(r"\bIVA\b(?! mínimo)", text)] == []
    assert [text for _, text in english if re.search(r"«[^»]+»", text)] == []


def test_a_spanish_text_has_one_english_text_across_the_areas_catalogs():
    """The portal merges every area's catalog into one, the last area's English winning: two areas that translate
    one text two ways show one of them everywhere. The reports' "Cantidad" (how many receipts) read "Quantity" (of
    goods, the issuing form's), the receipt's "Vencimiento" (a sale's due date) read "Expiry" (a certificate's, from
    Empresa), and "VAT at basic rate" stood beside "VAT at the minimum rate". A text that means two things takes a
    context (pgettext)."""
    english: dict[tuple[str | None, str], dict[str, str]] = {}
    for path in sorted(glob.glob(str(ROOT / "portal/web/**/translations/en/LC_MESSAGES/messages.po"), recursive=True)):
        area = Path(path).parents[3].name
        with open(path, "rb") as handle:
            for message in read_po(handle, locale="en"):
                if message.id and message.string:
                    text = message.string if isinstance(message.string, str) else message.string[0]
                    english.setdefault((message.context, _msgid(message)), {})[area] = text
    assert len(english) > 400
    assert {key: areas for key, areas in english.items() if len(set(areas.values())) > 1} == {}
