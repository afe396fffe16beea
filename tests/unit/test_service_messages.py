"""The service's one message catalogue: every message the service marks with `_()` is in the English
catalogue, translated, with the same placeholders, and the catalogue holds nothing the code no longer says."""

from __future__ import annotations

import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from flask import Flask

from portal.service.platform import i18n
from tests.support.i18n import asked_in

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "portal/service/translations/en/LC_MESSAGES/messages.po"


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> set[str]:
    pot = tmp_path_factory.mktemp("service-messages") / "messages.pot"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel-service.cfg"]
        + ["--no-default-keywords", "-k", "_", "-o", str(pot), "."],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with open(pot, "rb") as handle:
        return {m.id for m in read_po(handle) if m.id}


@pytest.fixture(scope="module")
def english() -> dict[str, str]:
    with open(CATALOGUE, "rb") as handle:
        return {m.id: m.string for m in read_po(handle, locale="en") if m.id}


def _holes(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_message_the_service_marks_is_translated(extracted, english):
    assert len(extracted) > 80
    assert sorted(extracted - english.keys()) == []
    assert sorted(m for m in extracted if not english[m]) == []


def test_the_catalogue_holds_only_what_the_code_says(extracted, english):
    assert sorted(english.keys() - extracted) == []


def test_a_translation_keeps_the_placeholders(english):
    assert [m for m, t in english.items() if _holes(m) != _holes(t)] == []


def test_english_reads_as_english(english):
    spanish_words = re.compile(r"\b(el|la|los|las|que|tiene|comprobante|válido|número)\b", re.IGNORECASE)
    assert [t for t in english.values() if spanish_words.search(t)] == []


def test_a_text_says_itself_in_each_language_and_stays_spanish_as_a_string():
    text = i18n._("Máximo {max_length} caracteres.", max_length=5)
    assert text == "Máximo 5 caracteres." and isinstance(text, str)
    assert i18n.say(text, "en") == "At most 5 characters." and i18n.say(text, "es") == text
    assert i18n.say("No existe ese comprobante en tu empresa.", "en") == "That receipt does not exist in your company."
    assert i18n.say("Un texto que el catálogo no tiene.", "en") == "Un texto que el catálogo no tiene."
    kept = i18n.stored(
        i18n._("Quedan {cantidad} números de CAE para el tipo {tipo}. Pedí un nuevo CAE a DGI.", cantidad=3, tipo=101)
    )
    assert kept["mensaje"].startswith("Quedan 3 números")
    assert i18n.said(kept) == kept["mensaje"]  # outside a request: Spanish


def test_a_cfe_type_is_named_in_the_readers_language_even_when_the_message_is_read_later():
    """A message names a CFE type as people do, DGI's name in the reader's language, never its code; stored, it
    keeps the code and names it when it is read."""
    message = i18n._(
        "Se agotaron los números de CAE para el tipo {tipo}. Pedí un nuevo CAE a DGI.", tipo=i18n.cfe_type(124)
    )
    assert message == "Se agotaron los números de CAE para el tipo e-Remito de exportación. Pedí un nuevo CAE a DGI."
    assert i18n.say(message, "en") == "The CAE numbers for type Export e-Remito have run out. Ask DGI for a new CAE."
    kept = i18n.stored(message)
    assert kept["valores"]["tipo"] == {"plantilla": "{tipo:cfe}", "valores": {"tipo": "124"}}
    with asked_in(Flask(__name__), "en"):
        assert i18n.said(kept) == i18n.say(message, "en")


def test_a_grouped_count_is_written_as_the_reader_writes_it():
    message = i18n._("quedan solo {left:,} de sus números, menos del 1%", left=99_994)
    assert message == "quedan solo 99.994 de sus números, menos del 1%"
    assert i18n.say(message, "en") == "only 99,994 of its numbers are left, less than 1%"
    with asked_in(Flask(__name__), "en"):
        assert i18n.said(i18n.stored(message)) == "only 99,994 of its numbers are left, less than 1%"


def test_a_decimal_is_written_as_the_reader_writes_it_when_it_is_said():
    """`{n:.1f}` writes the decimal in the language the message is said in, from the number kept as text."""
    message = i18n._("{n:.1f} horas", n="1.5")
    assert message == "1,5 horas"
    assert i18n.say(message, "en") == "1.5 hours"
    assert i18n.stored(message)["valores"] == {"n": "1.5"}
    with asked_in(Flask(__name__), "en"):
        assert i18n.said(i18n.stored(message)) == "1.5 hours"
    assert (i18n.fixed("1234.5", 1, "es"), i18n.fixed(3, 1, "en"), i18n.fixed("2.25", 2, "en")) == (
        "1.234,5",
        "3.0",
        "2.25",
    )
