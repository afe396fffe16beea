"""Measuring a PDF from its own content (pdfminer.six reads the content streams): every character with its
font size, cap height and position, every stroke with its width, every image with its box. Millimetres,
measured from the top-left corner of the page.

A character's height is its cap height: the font's CapHeight (from the font's published metrics, as
pdfminer ships them for the PDF core fonts, or from the embedded font's descriptor) times the font size.
That is the height of a capital letter or a digit, the strictest reading of DGI's "caracteres de N mm de
alto".
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from pdfminer.fontmetrics import FONT_METRICS
from pdfminer.high_level import extract_pages
from pdfminer.layout import LAParams, LTChar, LTCurve, LTFigure, LTImage, LTRect, LTTextContainer, LTTextLine

PT = 25.4 / 72


@dataclass(frozen=True)
class Box:
    x0: float
    top: float
    x1: float
    bottom: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.bottom - self.top

    def gap(self, other: Box) -> float:
        """The clear distance between two boxes (0 when they touch or overlap)."""
        dx = max(other.x0 - self.x1, self.x0 - other.x1, 0)
        dy = max(other.top - self.bottom, self.top - other.bottom, 0)
        return max(dx, dy)

    def contains(self, other: Box, slack: float = 0.2) -> bool:
        return (
            self.x0 - slack <= other.x0
            and other.x1 <= self.x1 + slack
            and self.top - slack <= other.top
            and other.bottom <= self.bottom + slack
        )


@dataclass(frozen=True)
class Char:
    text: str
    size_pt: float
    cap_mm: float
    box: Box


@dataclass(frozen=True)
class Stroke:
    box: Box
    width_mm: float
    is_rect: bool


@dataclass
class Page:
    width: float
    height: float
    lines: list[list[Char]]  # text lines, characters in reading order
    strokes: list[Stroke]
    images: list[Box]

    @property
    def chars(self) -> list[Char]:
        return [char for line in self.lines for char in line]

    def find(self, text: str) -> list[Char]:
        """The characters of the first occurrence of `text` (spaces ignored) on one text line."""
        wanted = text.replace(" ", "")
        for line in self.lines:
            visible = [char for char in line if char.text.strip()]
            joined = "".join(char.text for char in visible)
            at = joined.find(wanted)
            if at >= 0:
                return visible[at : at + len(wanted)]
        raise AssertionError(f"{text!r} is not on the page")

    def box_around(self, chars: list[Char]) -> Box:
        """The smallest drawn rectangle that contains `chars`."""
        span = Box(
            min(c.box.x0 for c in chars),
            min(c.box.top for c in chars),
            max(c.box.x1 for c in chars),
            max(c.box.bottom for c in chars),
        )
        frames = [s.box for s in self.strokes if s.is_rect and s.box.contains(span)]
        assert frames, "no frame drawn around the text"
        return min(frames, key=lambda b: b.width * b.height)


def _cap_height(char: LTChar) -> float:
    """CapHeight / 1000 em: pdfminer's metrics of the PDF core fonts, or DejaVu Sans's (1493 / 2048 units)."""
    name = char.fontname.split("+")[-1]
    if name in FONT_METRICS:
        return float(FONT_METRICS[name][0]["CapHeight"]) / 1000
    assert name.startswith("DejaVu"), f"no cap height known for {name}"
    return 1493 / 2048


def _box(item, height_pt: float) -> Box:
    return Box(item.x0 * PT, (height_pt - item.y1) * PT, item.x1 * PT, (height_pt - item.y0) * PT)


def _walk(node, page: Page, height_pt: float) -> None:
    for item in node:
        if isinstance(item, LTTextLine):
            page.lines.append(
                [
                    Char(c.get_text(), c.size, c.size * _cap_height(c) * PT, _box(c, height_pt))
                    for c in item
                    if isinstance(c, LTChar)
                ]
            )
        elif isinstance(item, LTTextContainer | LTFigure):
            _walk(item, page, height_pt)
        elif isinstance(item, LTImage):
            page.images.append(_box(item, height_pt))
        elif isinstance(item, LTCurve) and item.stroke:
            page.strokes.append(Stroke(_box(item, height_pt), item.linewidth * PT, isinstance(item, LTRect)))


def measure(pdf: bytes) -> list[Page]:
    pages = []
    for layout in extract_pages(io.BytesIO(pdf), laparams=LAParams(char_margin=1.0, line_margin=0.2)):
        page = Page(layout.width * PT, layout.height * PT, [], [], [])
        _walk(layout, page, layout.height)
        pages.append(page)
    return pages
