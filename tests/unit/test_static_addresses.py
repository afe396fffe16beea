"""The portal's and the service's templates and scripts reach static files only through url_for, which gives
each its content address (portal/static_files.py): an address written out would be kept by no browser, or, in
an older shape, be kept after the file changed."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# An address under /static/ opened by a quote or a CSS url(.
WRITTEN = re.compile(r"""["'(]/static/[^"')]*""")


def test_no_template_or_script_writes_a_static_address():
    written = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for folder in ("templates", "portal/service/templates", "static/js", "static/css")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in {".html", ".js", ".css"}
        for match in WRITTEN.finditer(path.read_text(encoding="utf-8"))
    ]
    assert written == []


def test_the_check_finds_a_written_address_and_leaves_url_for_alone():
    assert WRITTEN.findall('<link href="/static/css/app.css">') == ['"/static/css/app.css']
    assert WRITTEN.findall("background: url(/static/img/x.png)") == ["(/static/img/x.png"]
    assert WRITTEN.findall("<script src=\"{{ url_for('static', filename='js/app.js') }}\">") == []
