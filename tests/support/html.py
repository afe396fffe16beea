"""Reading the portal's pages in integration tests: the parsed page, and the CSRF token a form must send."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup


def soup(response) -> BeautifulSoup:
    """A Flask test client's response as parsed HTML."""
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def csrf(client, path: str = "/") -> str:
    """The CSRF token of the first form on `path` (a signed-in page renders one in its header)."""
    return soup(client.get(path)).find("input", {"name": "csrf_token"})["value"]


def text(element) -> str:
    """An element's text as a person reads it: its whitespace collapsed, an element inside it (the span that keeps
    a receipt's number on one line) not glued to the word before it as get_text(strip=True) glues it."""
    return re.sub(r"[ \t\r\n\f]+", " ", element.get_text()).strip()  # not \s: a no-break space stays one
