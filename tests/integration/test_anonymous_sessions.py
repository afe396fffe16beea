"""An anonymous visitor gets no server-side session until signing in needs one: looking at the public pages
writes nothing to the session store and sets no session cookie, so a flood of anonymous requests can neither
fill the store nor make it evict signed-in users' sessions. The language switch works without a session."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from tests.support.oidc import sign_in_portal_client
from tests.support.processes import redis_server

SESSION_COOKIE = "cfe_portal_session"


def _stored_sessions(portal_app) -> list[str]:
    # cachelib's FileSystemCache keeps one file per session plus its item count file, which _list_dir leaves out.
    return list(portal_app.session_interface.cache._list_dir())


@pytest.mark.parametrize("path", ["/", "/no-existe", "/comprobantes/"])
def test_anonymous_page_views_store_no_session_and_set_no_cookie(portal_app, path):
    for _ in range(5):
        client = portal_app.test_client()
        answer = client.get(path)
        assert answer.status_code in (200, 302, 404)
        assert SESSION_COOKIE not in answer.headers.get("Set-Cookie", "")
        assert client.get_cookie(SESSION_COOKIE, domain="127.0.0.1") is None
    assert _stored_sessions(portal_app) == []


@pytest.mark.redis
def test_with_redis_sessions_anonymous_page_views_leave_no_keys_and_sign_in_leaves_one(
    portal_config, live_service, tmp_path
):
    import redis

    from portal.web import create_app

    with redis_server(tmp_path) as url:
        app = create_app({**portal_config, "SESSION_REDIS_URL": url})
        for path in ("/", "/no-existe", "/", "/comprobantes/"):
            app.test_client().get(path)
        store = redis.Redis.from_url(url)
        assert store.dbsize() == 0
        sign_in_portal_client(app.test_client(), live_service.url, "usuario@demo.uy")
        assert store.dbsize() == 1


def test_the_public_page_offers_the_language_switch_without_a_session(portal_app, portal_client):
    html = portal_client.get("/").get_data(as_text=True)
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("input", {"name": "csrf_token"}) is None and "X-CSRFToken" not in html
    link = soup.find("a", {"lang": "en"})
    answer = portal_client.get(link["href"])
    assert answer.status_code == 303 and answer.headers["Location"] == "/"
    cookie = portal_client.get_cookie("lang", domain="127.0.0.1")
    assert cookie.value == "en" and cookie.http_only and cookie.same_site == "Lax"
    assert cookie.expires is not None
    english = portal_client.get("/").get_data(as_text=True)
    assert '<html lang="en"' in english
    assert BeautifulSoup(english, "html.parser").find("a", {"lang": "es"}) is not None
    assert _stored_sessions(portal_app) == []


def test_the_anonymous_language_switch_returns_only_to_the_portal_and_ignores_unknown_languages(portal_client):
    answer = portal_client.get("/idioma/en?next=//evil.example/x")
    assert answer.status_code == 303 and answer.headers["Location"] == "/"
    assert portal_client.get("/idioma/en?next=/comprobantes/").headers["Location"] == "/comprobantes/"
    assert portal_client.get("/idioma/xx").status_code == 404
    assert portal_client.get_cookie("lang", domain="127.0.0.1").value == "en"


def test_the_language_chosen_before_signing_in_is_kept_after_and_sign_in_still_stores_its_state(
    portal_app, portal_client, live_service
):
    portal_client.get("/idioma/en")
    start = portal_client.get("/auth/login")
    assert start.status_code == 302 and len(_stored_sessions(portal_app)) == 1  # the OIDC state and nonce
    sign_in_portal_client(portal_client, live_service.url, "usuario@demo.uy")
    html = portal_client.get("/").get_data(as_text=True)
    assert '<html lang="en"' in html and "X-CSRFToken" in html
    assert BeautifulSoup(html, "html.parser").find("form", {"action": "/idioma"}) is not None
