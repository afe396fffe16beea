"""Reading the portal's pages in integration tests: the parsed page, and the CSRF token a form must send."""

from __future__ import annotations

from bs4 import BeautifulSoup


def soup(response) -> BeautifulSoup:
    """A Flask test client's response as parsed HTML."""
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def csrf(client, path: str = "/") -> str:
    """The CSRF token of the first form on `path` (a signed-in page renders one in its header)."""
    return soup(client.get(path)).find("input", {"name": "csrf_token"})["value"]
