"""Signing a portal test client in through the real identity provider (no shortcut, no mock)."""

from __future__ import annotations

from urllib.parse import parse_qs, urljoin, urlsplit

import requests
from bs4 import BeautifulSoup

DEMO_PASSWORD = "demo-password"


def filled_sign_in_form(page_url: str, html: str, email: str, password: str = DEMO_PASSWORD) -> tuple[str, dict]:
    """The provider's sign-in form at `page_url` filled in: where it posts, and what (its CSRF field included)."""
    form = BeautifulSoup(html, "html.parser").find("form")
    data = {i["name"]: i.get("value", "") for i in form.find_all("input") if i.get("name")}
    data.update(email=email, password=password)
    return urljoin(page_url, form["action"]), data


def provider_sign_in(authorize_url: str, email: str, password: str = DEMO_PASSWORD) -> requests.Response:
    """Open the provider's sign-in page at `authorize_url`, post the credentials, stop at the redirect."""
    browser = requests.Session()
    page = browser.get(authorize_url, allow_redirects=False, timeout=10)
    page.raise_for_status()
    action, data = filled_sign_in_form(authorize_url, page.text, email, password)
    return browser.post(action, data=data, allow_redirects=False, timeout=10)


def sign_in_portal_client(client, service_url: str, email: str, password: str = DEMO_PASSWORD) -> None:
    start = client.get("/auth/login")
    assert start.status_code == 302, start.status_code
    authorize_url = start.headers["Location"]
    assert authorize_url.startswith(service_url)
    answer = provider_sign_in(authorize_url, email, password)
    assert answer.status_code == 302, answer.text[:500]
    callback = urlsplit(answer.headers["Location"])
    assert "code" in parse_qs(callback.query)
    done = client.get(f"{callback.path}?{callback.query}")
    assert done.status_code == 302, done.get_data(as_text=True)[:500]
