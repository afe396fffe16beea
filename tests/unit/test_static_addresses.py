"""Static files under content addresses (portal/static_files.py): an address follows its file, and both apps'
templates and scripts reach static files only through url_for (an address written out would be kept by no
browser, or, in an older shape, be kept after the file changed)."""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask, url_for

from portal import static_files

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


def test_a_static_files_address_changes_when_the_file_does(tmp_path):
    app = Flask(__name__, static_folder=None)
    static_files.init_app(app, str(tmp_path), endpoint="static")
    script = tmp_path / "app.js"
    script.write_text("console.log(1);")
    with app.test_request_context():
        before = url_for("static", filename="app.js")
        script.write_text("console.log(22);")  # another size, so a coarse clock cannot hide the change
        after = url_for("static", filename="app.js")
        missing = url_for("static", filename="missing.js")
    assert before != after and before.split("?")[0] == after.split("?")[0] == "/static/app.js"
    assert missing == "/static/missing.js"
    client = app.test_client()
    with client.get(before) as stale:
        assert stale.headers["Cache-Control"] == "no-cache"  # the file is no longer what this address named
    with client.get(after) as kept:
        assert kept.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert kept.get_data() == b"console.log(22);"
    assert client.get("/static/../secret").status_code == 404


def test_addresses_that_name_one_file_in_other_words_keep_one_digest(tmp_path):
    """A digest is kept per file, not per address: an address can name one file in endless ways, and keeping one
    per address would let anyone grow the portal's memory one request at a time."""
    app = Flask(__name__, static_folder=None)
    static_files.init_app(app, str(tmp_path), endpoint="static")
    (tmp_path / "css").mkdir()
    (tmp_path / "css" / "app.css").write_text("p {}")
    client = app.test_client()
    for alias in ("css/app.css", "./css/app.css", "css/../css/app.css", "css/./././app.css"):
        with client.get(f"/static/{alias}?v=0") as answer:
            assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-cache"
    assert list(app.extensions["static_files.static"]._known) == [str(tmp_path / "css" / "app.css")]
