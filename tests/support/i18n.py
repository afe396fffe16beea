"""A request of a bare Flask app with Babel: for unit tests of portal code that says or reads things in the
reader's language (lazy_gettext, numbers and days as its readers write them) without building the portal."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from flask import Flask
from flask_babel import Babel


@contextmanager
def request_in(language: str = "es") -> Iterator[None]:
    """A request context in `language` (by default the portal's, Spanish: portal/web/i18n.py). The app has no
    catalogues, so messages are their msgids; CSRF is off, so a form is built without a session."""
    app = Flask(__name__)
    app.config.update(WTF_CSRF_ENABLED=False, SECRET_KEY="test", BABEL_DEFAULT_LOCALE=language)
    Babel(app)
    with app.test_request_context():
        yield


def asked_in(app: Flask, language: str):
    """A request context of `app` whose reader asks for `language` (Accept-Language), as a browser or a client of
    the API would: the app's own catalogues and language choice at work (`request_in` has neither)."""
    return app.test_request_context("/", headers={"Accept-Language": language})
