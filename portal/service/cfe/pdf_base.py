"""What the A4 page (pdf.py) and the thermal roll (pdf_roll.py) share: the font, one line of text in a box,
the QR image and the logo."""

from __future__ import annotations

import io

from fpdf import FPDF
from PIL import Image

from portal.domain.cfe_types import with_cfc
from portal.service.cfe import pdf_text as words
from portal.service.cfe.fonts import FontSet, font_set
from portal.service.cfe.qr import qr_png
from portal.service.platform.i18n import _

PAPERS = ("a4", "80mm", "57mm")
# DGI admits thermal paper for e-Tickets and their notes, those of sales on behalf of others (131-133) too, and
# the paper e-Tickets keyed in (201-203, 231-233), which print as their 1xx type does (Printable.electronic_type)
ROLL_TYPES = with_cfc(frozenset({101, 102, 103, 131, 132, 133}))


class PaperNotAllowed(ValueError):
    """A thermal roll asked for a type DGI does not admit on thermal paper, or an unknown paper."""


def check_paper(tipo_cfe: int, paper: str) -> None:
    if paper not in PAPERS:
        raise PaperNotAllowed(_("Formato desconocido: {paper}.", paper=paper))
    if paper != "a4" and tipo_cfe not in ROLL_TYPES:
        raise PaperNotAllowed(
            _("El rollo térmico es solo para e-Tickets y sus notas (101-103, 131-133, 201-203, 231-233).")
        )


_FALLBACK = "Fallback"  # the family fpdf knows FontSet.fallback by


class ReceiptPage(FPDF):
    """An FPDF in millimetres with the receipt's font and DGI's line width."""

    def __init__(self, format: str | tuple[float, float], fonts: FontSet | None = None):
        super().__init__(orientation="P", unit="mm", format=format)
        self.fontset = fonts or font_set()
        if self.fontset.files:
            for style, path in self.fontset.files.items():
                self.add_font(self.fontset.family, style, str(path))
            if self.fontset.fallback is not None:
                self.add_font(_FALLBACK, "", str(self.fontset.fallback))
            for font in self.fonts.values():
                # Skips re-encoding every glyph when fpdf2 subsets the font at output (the bounding boxes of
                # the pre-cut DejaVu are already right): a third of the embedded font's cost.
                if hasattr(font, "ttfont"):
                    font.ttfont.recalcBBoxes = False
        else:
            self.core_fonts_encoding = "windows-1252"
        self.set_line_width(words.LINE_MM)
        self._font_now: tuple[float, bool] | None = None
        self.set_creator("CFE portal")

    def add_page(self, *args, **kwargs) -> None:
        # fpdf sets and restores fonts itself around the footer and header: forget what use_font knew.
        self._font_now = None
        super().add_page(*args, **kwargs)
        self._font_now = None

    def _runs(self, text: str) -> list[tuple[str, bool]] | None:
        """`text` cut into runs the family draws (False) and runs its fallback font draws (True); None when the
        family draws all of it, as it does on every receipt without Chinese, Japanese or Korean."""
        own = self.fontset.own
        if self.fontset.fallback is None or all(ord(ch) in own for ch in text):
            return None
        runs: list[tuple[str, bool]] = []
        for ch in text:
            other = ord(ch) not in own and ch not in "\n\t"
            if runs and runs[-1][1] == other:
                runs[-1] = (runs[-1][0] + ch, other)
            else:
                runs.append((ch, other))
        return runs

    # fpdf2's own fallback fonts serve cell(), multi_cell() and write() only; these pages draw with text() (put
    # is twice as fast as cell), so the runs the family lacks are measured and drawn with the fallback here.
    def get_string_width(self, s: str, normalized: bool = False, markdown: bool = False) -> float:
        runs = self._runs(s)
        if runs is None:
            return super().get_string_width(s, normalized, markdown)
        family, style, size = self.font_family, self.font_style, self.font_size_pt
        width = 0.0
        for run, other in runs:
            if other:
                self.set_font(_FALLBACK, "", size)
            width += super().get_string_width(run, normalized, markdown)
            if other:
                self.set_font(family, style, size)
        return width

    def text(self, x: float, y: float, text: str = "") -> None:
        runs = self._runs(text)
        if runs is None:
            super().text(x, y, text)
            return
        family, style, size = self.font_family, self.font_style, self.font_size_pt
        for run, other in runs:
            if other:
                self.set_font(_FALLBACK, "", size)  # its one style stands in for bold
            super().text(x, y, run)
            x += super().get_string_width(run)
            if other:
                self.set_font(family, style, size)

    def use_font(self, size: float, bold: bool = False) -> None:
        if (size, bold) != self._font_now:  # set_font copies fpdf's graphics state: skip it when nothing changes
            self.set_font(self.fontset.family, "B" if bold else "", size)
            self._font_now = (size, bold)

    def put(
        self,
        x: float,
        y: float,
        w: float,
        text: str,
        size: float = words.TEXT_PT,
        bold: bool = False,
        align: str = "L",
        h: float = 4.2,
        shrink: bool = False,
    ) -> None:
        """One line of text in the box (x, y, w, h), aligned like fpdf's cell() but about twice as fast.
        Text wider than the box is first set smaller when `shrink` (amounts: never below TEXT_PT), then cut
        with "..." rather than spilling over a neighbour; callers size their boxes so that mandatory text
        never is (the tests check it)."""
        self.use_font(size, bold)
        text = self.fontset.clean(text)
        room = w - 2 * self.c_margin
        width = self.get_string_width(text)
        while shrink and width > room and size > words.TEXT_PT:
            size = max(words.TEXT_PT, size - 0.5)
            self.use_font(size, bold)
            width = self.get_string_width(text)
        if width > room:
            while text and self.get_string_width(text + "...") > room:
                text = text[:-1]
            text += "..."
            width = self.get_string_width(text)
        if align == "R":
            left = x + w - self.c_margin - width
        elif align == "C":
            left = x + (w - width) / 2
        else:
            left = x + self.c_margin
        self.text(left, y + 0.5 * h + 0.3 * self.font_size, text)

    def fitted_title(self, title: str, width: float) -> str:
        """The type's name, with "Nota de Crédito/Débito" as "NC"/"ND" when it does not fit (DGI allows it)."""
        self.use_font(words.MANDATORY_PT, bold=True)
        if self.get_string_width(title) <= width - 2 * self.c_margin:
            return title
        return title.replace("Nota de Crédito de ", "NC ").replace("Nota de Débito de ", "ND ")

    def lines_of(self, text: str, width: float, size: float = words.TEXT_PT, bold: bool = False) -> list[str]:
        """`text` split into the lines that fit in `width` millimetres (words kept whole when they fit)."""
        self.use_font(size, bold)
        room = width - 2 * self.c_margin
        result: list[str] = []
        for paragraph in self.fontset.clean(text).split("\n"):
            line = ""
            for word in paragraph.split(" "):
                candidate = f"{line} {word}" if line else word
                if self.get_string_width(candidate) <= room:
                    line = candidate
                    continue
                if line:
                    result.append(line)
                while self.get_string_width(word) > room:  # a word longer than the line: cut it
                    cut = len(word)
                    while cut > 1 and self.get_string_width(word[:cut]) > room:
                        cut -= 1
                    result.append(word[:cut])
                    word = word[cut:]
                line = word
            result.append(line)
        return result

    def qr(self, url: str, x: float, y: float, size: float) -> None:
        """The QR of `url`, made once per receipt (fpdf embeds an image once however many pages draw it)."""
        self.image(io.BytesIO(qr_png(url)), x=x, y=y, w=size, h=size)

    def logo(self, data: bytes, x: float, y: float, max_w: float, max_h: float, centred: bool = False) -> float:
        """The company's logo (PNG or JPEG) scaled to fit max_w x max_h; returns the height it took."""
        with Image.open(io.BytesIO(data)) as picture:
            width_px, height_px = picture.size
        scale = min(max_w / width_px, max_h / height_px)
        width, height = width_px * scale, height_px * scale
        self.image(io.BytesIO(data), x=x + (max_w - width) / 2 if centred else x, y=y, w=width, h=height)
        return height
