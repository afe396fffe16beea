"""When the client retries and when it must not."""

from __future__ import annotations

import json

import pytest

from portal.client import CfeClient, RateLimited, ServiceUnavailable


def _counting_app(status: str, headers=()):
    hits = []

    def app(environ, start_response):
        hits.append(environ["PATH_INFO"])
        start_response(status, [("Content-Type", "application/json"), *headers])
        return [json.dumps({"error": {"code": "x", "message": "m", "fields": [], "requestId": "r"}}).encode()]

    return app, hits


def test_a_get_that_meets_a_bad_gateway_is_retried(live_urls):
    app, hits = _counting_app("502 Bad Gateway")
    server = live_urls[0].start(app)
    with pytest.raises(ServiceUnavailable):
        CfeClient(server.url, retries=2).as_user("t").userinfo()
    assert len(hits) == 3


def test_dgi_lookups_are_not_retried_on_status(live_urls):
    app, hits = _counting_app("504 Gateway Timeout")
    server = live_urls[0].start(app)
    with pytest.raises(ServiceUnavailable):
        CfeClient(server.url, retries=2).as_user("t").lookup_rut("219999830019", company_id=1, certificate_id=1)
    assert len(hits) == 1


def test_a_post_without_idempotency_key_is_never_retried_on_status(live_urls):
    app, hits = _counting_app("503 Service Unavailable")
    server = live_urls[0].start(app)
    with pytest.raises(ServiceUnavailable):
        CfeClient(server.url, retries=2).as_user("t").reapply_reference("abc", "COB-1")
    assert len(hits) == 1


def test_a_429_goes_back_to_the_caller_at_once_with_retry_after(live_urls):
    app, hits = _counting_app("429 Too Many Requests", [("Retry-After", "30")])
    server = live_urls[0].start(app)
    with pytest.raises(RateLimited) as caught:
        CfeClient(server.url, retries=2).as_user("t").userinfo()
    assert len(hits) == 1 and caught.value.retry_after == 30
