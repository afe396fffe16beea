"""The receipt page's QR (portal/web/comprobantes/qr.py) is segno's, text for text, for every version a DGI link
can take and for the data segno would put in other modes or in a Micro QR symbol."""

from __future__ import annotations

import random
import string

import pytest

from portal.web.comprobantes.qr import _segno_svg, qr_svg_text

_LINK = "https://www.efactura.dgi.gub.uy/consultaQR/cfe?211003420017,101,A,1234567,123456.78,20261127,"


def _links() -> list[str]:
    chance = random.Random(31)  # noqa: S311 - test data
    alphabet = string.ascii_letters + string.digits + "%+/="
    return [_LINK + "".join(chance.choice(alphabet) for _ in range(n)) for n in (*range(0, 400, 9), 900)]


@pytest.mark.parametrize("url", _links())
def test_a_link_makes_segnos_symbol_and_text(url: str) -> None:
    assert qr_svg_text(url, "Código QR de verificación") == _segno_svg(url, "Código QR de verificación")


@pytest.mark.parametrize("url", ["12345", "HTTPS://X.UY/A1", "ñandú", _LINK + "é" * 40])
def test_other_modes_and_micro_symbols_are_segnos_too(url: str) -> None:
    assert qr_svg_text(url, "QR") == _segno_svg(url, "QR")


def test_the_title_is_escaped_as_segno_does() -> None:
    title = 'a <b> & "c"'
    text = qr_svg_text(_LINK + "x", title)
    assert text == _segno_svg(_LINK + "x", title)
    assert "<b>" not in text
