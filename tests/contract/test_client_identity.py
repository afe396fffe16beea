"""The real backend client against a live service: typed results, error mapping, request ids."""

from __future__ import annotations

import socket

import pytest

from portal.client import CfeClient, ServiceUnavailable, Unauthorized
from portal.client.models import UserInfo


def test_userinfo_is_typed(live_service, live_token_for):
    info = CfeClient(live_service.url).as_user(live_token_for("admin@demo.uy")).userinfo()
    assert isinstance(info, UserInfo)
    assert info.email == "admin@demo.uy"
    assert [c.role for c in info.companies] == ["admin", "admin"]
    assert info.companies[0].certificates and info.companies[0].certificates[0].expires.year >= 2026


def test_the_users_language_is_kept_by_the_service(live_service, live_token_for):
    api = CfeClient(live_service.url).as_user(live_token_for("soporte@demo.uy"))
    assert api.userinfo().locale == "es"
    api.set_language("en")
    assert api.userinfo().locale == "en"


def test_401_maps_to_unauthorized_with_the_services_code_and_request_id(live_service):
    api = CfeClient(live_service.url).as_user("garbage", request_id="contract-test-1")
    with pytest.raises(Unauthorized) as caught:
        api.userinfo()
    assert caught.value.status == 401
    assert caught.value.code == "invalid_token"
    assert caught.value.request_id == "contract-test-1"


def test_a_closed_port_is_service_unavailable_quickly():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = CfeClient(f"http://127.0.0.1:{port}", connect_timeout=0.5, read_timeout=0.5, retries=1)
    with pytest.raises(ServiceUnavailable) as caught:
        client.as_user("t").userinfo()
    assert caught.value.code == "unreachable"


def test_a_slow_service_times_out_as_service_unavailable(live_urls):
    import time

    def slow_app(environ, start_response):
        time.sleep(1.5)
        start_response("200 OK", [("Content-Type", "application/json")])
        return [b"{}"]

    server = live_urls[0].start(slow_app)
    client = CfeClient(server.url, connect_timeout=0.5, read_timeout=0.3, retries=0)
    with pytest.raises(ServiceUnavailable) as caught:
        client.as_user("t").userinfo()
    assert caught.value.code == "timeout"
