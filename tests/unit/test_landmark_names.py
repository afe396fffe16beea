"""No two landmarks of a page share a name (axe's landmark-unique): a table's scrolling box is a region named by
its heading, so the section around it must not be a region named by the same heading. The branches, certificates,
CAE, contingency and DGI lookup pages each said their table's name twice to a screen reader's landmark list."""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
REGION = re.compile(r'role="region"[^>]*aria-labelledby="([^"]+)"')
# Elements that are landmarks when named: section (region), aside, nav, form, main, header, footer.
NAMED_LANDMARK = re.compile(r'<(?:section|aside|nav|form)\b[^>]*aria-labelledby="([^"]+)"')


def test_a_scrolling_box_and_the_landmark_around_it_are_not_named_alike():
    twice = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        names = set(REGION.findall(text)) & set(NAMED_LANDMARK.findall(text))
        twice += [f"{path.relative_to(TEMPLATES)}: {name}" for name in sorted(names)]
    assert twice == []
