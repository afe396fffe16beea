"""The PDF's font: the PDF core Helvetica by default, or DejaVu Sans embedded (CFE_PDF_FONT=dejavu; the
service's settings choose it through `configure`, called at start by cfe.warm_up).

Helvetica is one of the 14 fonts every PDF reader and printer has, so nothing is embedded or subset per
receipt: that is most of what keeps a receipt under 10 ms of CPU. It is written in Windows-1252, which
covers Spanish and Portuguese and the typographic marks people paste from word processors (“ ” – — … €).
Other characters print as "?".

DejaVu Sans (Debian's fonts-dejavu-core; CFE_FONT_DIR overrides its folder) is embedded when asked for: it
is cut down once per process to the same characters, but fpdf2 still parses and subsets it for every
document, about 25 ms more per receipt.

A receipt whose texts need more than that (a buyer abroad named in Cyrillic or Greek, a Czech or Turkish
address) is printed with the whole of DejaVu Sans embedded (`for_texts`), paying those milliseconds only then.
What DejaVu has no glyph for (a Chinese, Japanese or Korean buyer's name on an export invoice) is drawn from
Droid Sans Fallback (Debian's fonts-droid-fallback), fpdf2's fallback font for the glyphs DejaVu lacks: the
printed receipt says what its signed XML says. Parsing and subsetting that 4 MB font costs such a receipt a
few hundred milliseconds; no other receipt loads it. What neither font draws (emoji) prints as "?".
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
# Chinese, Japanese and Korean (this file of the package has Hangul too; its "Full" one has not), one style.
FALLBACK_FONT = Path("/usr/share/fonts-droid-fallback/truetype/DroidSansFallback.ttf")
_FILES = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf"}
# Latin-1 covers Spanish and Portuguese; the rest are the typographic marks people paste from word processors.
_RANGES = (
    (0x20, 0x7E),
    (0xA0, 0xFF),
    (0x152, 0x153),
    (0x160, 0x161),
    (0x178, 0x178),
    (0x17D, 0x17E),
    (0x2013, 0x2014),
    (0x2018, 0x201A),
    (0x201C, 0x201E),
    (0x2022, 0x2022),
    (0x2026, 0x2026),
    (0x20AC, 0x20AC),
    (0x2116, 0x2116),
    (0x2122, 0x2122),
)
_lock = threading.Lock()
_cached: FontSet | None = None
_choice: tuple[str, Path] = ("core", DEFAULT_FONT_DIR)


def _cp1252() -> frozenset[int]:
    found = set()
    for byte in range(0x20, 0x100):
        try:
            found.add(ord(bytes([byte]).decode("cp1252")))
        except UnicodeDecodeError:  # the five bytes cp1252 leaves undefined
            continue
    return frozenset(found - {0x7F})


_CP1252 = _cp1252()


@dataclass(frozen=True)
class FontSet:
    """A family for fpdf2: TTF files per style ("" and "B"), or None for the core Helvetica fallback."""

    family: str
    files: dict[str, Path] | None
    charset: frozenset[int]  # what the family and its fallback draw
    fallback: Path | None = None  # a font for the glyphs the family lacks
    own: frozenset[int] = frozenset()  # with a fallback: what the family itself draws (the rest is the fallback's)

    def clean(self, text: str) -> str:
        """`text` with every character the font cannot draw replaced by "?" (newlines and tabs kept)."""
        if all(ord(ch) in self.charset or ch in "\n\t" for ch in text):
            return text
        return "".join(ch if ord(ch) in self.charset or ch in "\n\t" else "?" for ch in text)


def _subset(source: Path, target: Path, codepoints: list[int]) -> None:
    from fontTools import subset  # fpdf2's own dependency; imported here because only this path needs it

    options = subset.Options()
    options.layout_features = []
    options.hinting = False
    options.drop_tables += ["FFTM"]
    options.name_IDs = ["*"]
    font = subset.load_font(str(source), options)
    try:
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=codepoints)
        subsetter.subset(font)
        subset.save_font(font, str(target), options)
    finally:
        font.close()


def configure(font: str, folder: Path) -> None:
    """Choose the process's font ("core" or "dejavu", and DejaVu's folder); the next font_set() builds it."""
    global _cached, _choice
    with _lock:
        if _choice != (font, Path(folder)):
            _choice, _cached = (font, Path(folder)), None


def font_set() -> FontSet:
    """The process-wide FontSet, built on first use."""
    global _cached
    with _lock:
        if _cached is None:
            _cached = _build(*_choice)
        return _cached


_wide: FontSet | None = None
_wide_built = False


def for_texts(texts: Iterable[str]) -> FontSet:
    """The process's font, or the whole of DejaVu Sans when one of `texts` has a character the process's font
    cannot draw and DejaVu can."""
    usual = font_set()
    for text in texts:
        if text.isascii() or all(ord(ch) in usual.charset or ch in "\n\t" for ch in text):
            continue
        wide = _wide_font_set()
        if wide is not None and any(ord(ch) in wide.charset and ord(ch) not in usual.charset for ch in text):
            return wide
    return usual


def _wide_font_set() -> FontSet | None:
    """DejaVu Sans whole (regular and bold) with Droid Sans Fallback for what it lacks (when installed), built
    once per process; None without DejaVu's files."""
    global _wide, _wide_built
    with _lock:
        if not _wide_built:
            folder = _choice[1]
            files = {style: folder / name for style, name in _FILES.items()}
            if all(path.is_file() for path in files.values()):
                from fontTools.ttLib import TTFont  # fpdf2's own dependency, as in _subset

                with TTFont(str(files[""]), lazy=True) as regular, TTFont(str(files["B"]), lazy=True) as bold:
                    drawn = set(regular.getBestCmap()) & set(bold.getBestCmap())
                fallback = FALLBACK_FONT if FALLBACK_FONT.is_file() else None
                extra: set[int] = set()
                if fallback is not None:
                    with TTFont(str(fallback), lazy=True) as font:
                        extra = set(font.getBestCmap())
                _wide = FontSet("DejaVuWide", files, frozenset(drawn | extra), fallback, frozenset(drawn))
            _wide_built = True
        return _wide


def _build(font: str = "core", folder: Path = DEFAULT_FONT_DIR) -> FontSet:
    codepoints = [cp for low, high in _RANGES for cp in range(low, high + 1)]
    sources = {style: folder / name for style, name in _FILES.items()}
    if font != "dejavu" or not all(path.is_file() for path in sources.values()):
        return FontSet("Helvetica", None, _CP1252)
    folder = Path(tempfile.mkdtemp(prefix="cfe-fonts-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    files = {}
    for style, source in sources.items():
        files[style] = folder / source.name
        _subset(source, files[style], codepoints)
    return FontSet("DejaVu", files, frozenset(codepoints))
