"""Webhooks end to end against a real HTTP receiver on 127.0.0.1: registration and the secret shown once,
Standard Webhooks signatures checked with the `standardwebhooks` library, retries with backoff, disabling after
a day of failures (time simulated), secret rotation's overlap, redirects not followed, and the address guard."""

from __future__ import annotations

import json
import re
import socket
import ssl
from datetime import UTC, datetime, timedelta

import pytest
import requests
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from portal.service.correo import mailbox
from portal.service.platform import jobs
from portal.service.webhooks import delivery
from portal.service.webhooks.models import WebhookDelivery, WebhookEndpoint
from tests.support.certificates import make_authority, make_tls_certificate
from tests.support.cfe_bodies import EFACTURA, ETICKET, body, issue
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain
from tests.support.webhook_receiver import WebhookReceiver

ADMIN = "admin@demo.uy"


@pytest.fixture
def receiver():
    server = WebhookReceiver().start()
    yield server
    server.stop()


@pytest.fixture
def app(service_config, tmp_path):
    from portal.service import create_app

    config = {
        **service_config,
        **ENVIOS_CONFIG,
        "WEBHOOKS_DEBOUNCE_SECONDS": 0,
        "WEBHOOKS_ALLOW_PRIVATE": True,
        "MAILBOX_DIR": str(tmp_path / "mailbox"),
    }
    application = create_app(config)
    jobs.use_app(application)
    yield application
    application.extensions["db_engine"].dispose()


@pytest.fixture
def client(app):
    return app.test_client()


def _register(client, headers, url: str, events: list[str]) -> dict:
    answer = client.post("/api/v1/webhooks", json={"url": url, "eventos": events}, headers=headers)
    assert answer.status_code == 201, answer.json
    return answer.json


def _verified(received, secret: str) -> dict:
    return Webhook(secret).verify(received.body, received.headers)


def test_a_receipt_issued_reaches_the_endpoint_signed_as_standard_webhooks_says(app, client, auth_headers, receiver):
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/hook", ["comprobante.emitido", "comprobante.aceptado"])
    assert created["secreto"].startswith("whsec_")
    listed = client.get("/api/v1/webhooks", headers=headers).json["items"]
    assert [w["id"] for w in listed] == [created["id"]] and "secreto" not in listed[0]

    receipt = issue(client, headers, body(EFACTURA))
    drain(app)

    by_type = {}
    for received in receiver.of_path("/hook"):
        payload = _verified(received, created["secreto"])
        assert received.headers["webhook-id"].startswith("evt_")
        assert received.headers["webhook-signature"].startswith("v1,")
        by_type[payload["type"]] = payload
    assert set(by_type) == {"comprobante.emitido", "comprobante.aceptado"}
    assert by_type["comprobante.emitido"]["data"]["idCfe"] == receipt["idCfeEmitido"]
    assert by_type["comprobante.aceptado"]["data"]["estadoDgi"] == "aceptado"
    # Identifiers and states: never the receipt's XML, the certificate or a secret.
    raw = b"".join(r.body for r in receiver.received)
    assert b"whsec_" not in raw and b"<CFE" not in raw and b"PRIVATE KEY" not in raw

    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + "A" * 44).verify(receiver.received[0].body, receiver.received[0].headers)


def test_only_the_events_an_endpoint_hears_and_only_its_company(app, client, auth_headers, receiver):
    own = _register(client, auth_headers(ADMIN, company_id=1), f"{receiver.url}/own", ["comprobante.rechazado"])
    _register(client, auth_headers(ADMIN, company_id=2), f"{receiver.url}/other", ["comprobante.emitido"])
    rejected = body(EFACTURA)
    rejected["receptor"]["rznSocRecep"] = f"Cliente {REJECT_MARKER}E14"
    issue(client, auth_headers(ADMIN, company_id=1), rejected)
    issue(client, auth_headers(ADMIN, company_id=1), body(ETICKET))
    drain(app)

    assert receiver.of_path("/other") == []
    [only] = receiver.of_path("/own")
    payload = _verified(only, own["secreto"])
    assert payload["type"] == "comprobante.rechazado" and payload["data"]["motivos"] == ["E14"]


def test_a_failing_endpoint_is_retried_with_growing_waits_and_every_attempt_is_recorded(
    app, client, auth_headers, receiver
):
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/flaky", ["comprobante.emitido"])
    receiver.script.statuses = [500, 503, 200]
    receiver.script.answer = b'{"error": "temporal"}'
    issue(client, headers, body(ETICKET))
    start = datetime.now(UTC)
    with app.app_context():
        delivery.fan_out(start)
        assert delivery.deliver_due(start) == 1
        waits = [_next_attempt(app) - start]
        assert delivery.deliver_due(start + timedelta(seconds=5)) == 0  # not due yet
        second = start + waits[0]
        assert delivery.deliver_due(second) == 1
        waits.append(_next_attempt(app) - second)
        assert delivery.deliver_due(second + waits[1]) == 1

    assert waits == [timedelta(seconds=10), timedelta(seconds=40)]  # base × 4ⁿ
    assert len(receiver.of_path("/flaky")) == 3
    ids = {r.headers["webhook-id"] for r in receiver.received}
    assert len(ids) == 1  # the same message id on every retry: the receiver can deduplicate
    attempts = client.get(f"/api/v1/webhooks/{created['id']}/entregas", headers=headers).json["items"]
    assert [a["estadoHttp"] for a in attempts] == [200, 503, 500]
    assert attempts[2]["respuesta"] == '{"error": "temporal"}' and not attempts[2]["ok"]
    assert all(a["estadoEntrega"] == "entregada" for a in attempts)
    assert all(a["duracionMs"] >= 0 for a in attempts)


def _next_attempt(app) -> timedelta:
    from portal.service.platform import db

    with db.new_session() as session:
        return session.query(WebhookDelivery).one().next_attempt_at


def test_an_endpoint_failing_for_a_day_is_disabled_and_the_admins_are_told(app, client, auth_headers, receiver):
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/down", ["comprobante.emitido"])
    receiver.script.statuses = [503]
    issue(client, headers, body(ETICKET))
    now = datetime.now(UTC)
    with app.app_context():
        delivery.fan_out(now)
        tried = 0
        while tried < 40:
            tried += delivery.deliver_due(now) or 0
            state = client.get(f"/api/v1/webhooks/{created['id']}", headers=headers).json
            if not state["activo"]:
                break
            now = _next_attempt(app) + timedelta(seconds=1)
    assert state["activo"] is False and "un día" in state["motivoDesactivado"]
    assert 8 <= tried <= 20  # waits grow: about a dozen attempts in a day, not one a minute
    assert _hours(state["desactivadoEn"], state["fallandoDesde"]) >= 24
    with app.app_context():
        assert _delivery_states(app) == ["fallida"]
        notices = mailbox.messages(1)
    assert any("desactivado" in m.subject.lower() for m in notices), [m.subject for m in notices]
    [notice] = client.get("/api/v1/empresa/avisos", headers=headers).json["items"]
    assert notice["tipo"] == "webhook" and notice["enlace"] == f"/webhooks/{created['id']}"

    # Once re-enabled by an admin, it hears new events again, with a clean record.
    receiver.script.statuses = [200]
    again = client.patch(f"/api/v1/webhooks/{created['id']}", json={"activo": True}, headers=headers).json
    assert again["activo"] is True and again.get("fallandoDesde") is None
    issue(client, headers, body(ETICKET))
    drain(app)
    assert client.get(f"/api/v1/webhooks/{created['id']}", headers=headers).json["ultimaEntregaOk"]


def _delivery_states(app) -> list[str]:
    from portal.service.platform import db

    with db.new_session() as session:
        return [d.state for d in session.query(WebhookDelivery).order_by(WebhookDelivery.id)]


def _hours(later: str, earlier: str) -> float:
    return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds() / 3600


def test_during_a_rotations_overlap_both_secrets_sign_then_only_the_new_one(app, client, auth_headers, receiver):
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/rot", ["comprobante.emitido"])
    old = created["secreto"]
    rotated = client.post(
        f"/api/v1/webhooks/{created['id']}/rotar-secreto", json={"solapamientoHoras": 2}, headers=headers
    )
    assert rotated.status_code == 200 and rotated.headers["Cache-Control"] == "no-store"
    new = rotated.json["secreto"]
    assert new != old and new.startswith("whsec_")

    issue(client, headers, body(ETICKET))
    drain(app)
    during = receiver.of_path("/rot")[-1]
    assert len(during.headers["webhook-signature"].split(" ")) == 2
    assert _verified(during, old)["type"] == _verified(during, new)["type"] == "comprobante.emitido"

    issue(client, headers, body(ETICKET))
    with app.app_context():
        later = datetime.now(UTC) + timedelta(hours=2, minutes=1)
        delivery.fan_out(later)
        delivery.deliver_due(later)
    after = receiver.of_path("/rot")[-1]
    assert after.headers["webhook-id"] != during.headers["webhook-id"]
    assert _verified(after, new)
    with pytest.raises(WebhookVerificationError):
        _verified(after, old)


def test_a_redirect_is_not_followed(app, client, auth_headers, receiver):
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/moved", ["comprobante.emitido"])
    receiver.script.redirect_to = f"{receiver.url}/elsewhere"
    sent = client.post(f"/api/v1/webhooks/{created['id']}/prueba", headers=headers)
    assert sent.status_code == 202
    drain(app)
    assert receiver.of_path("/elsewhere") == []
    [attempt] = client.get(f"/api/v1/webhooks/{created['id']}/entregas", headers=headers).json["items"]
    assert attempt["estadoHttp"] == 302 and attempt["ok"] is False and "redirecci" in attempt["error"].lower()
    english = client.get(
        f"/api/v1/webhooks/{created['id']}/entregas", headers={**headers, "Accept-Language": "en"}
    ).json["items"]
    assert english[0]["error"] == f"Redirected to {receiver.url}/elsewhere: redirects are not followed."
    assert attempt["estadoEntrega"] == "pendiente" and attempt["tipo"] == "webhook.prueba"


def test_a_slow_endpoint_times_out(app, client, auth_headers, receiver):
    app.config["WEBHOOKS_TIMEOUT_SECONDS"] = 0.3
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/slow", ["comprobante.emitido"])
    receiver.script.delay = 1.5
    client.post(f"/api/v1/webhooks/{created['id']}/prueba", headers=headers)
    drain(app)
    [attempt] = client.get(f"/api/v1/webhooks/{created['id']}/entregas", headers=headers).json["items"]
    assert attempt.get("estadoHttp") is None and attempt["error"] == "Sin respuesta en 0.3 s."
    # Said in the reader's language (the attempt keeps the message, not only its Spanish).
    english = client.get(
        f"/api/v1/webhooks/{created['id']}/entregas", headers={**headers, "Accept-Language": "en"}
    ).json["items"]
    assert english[0]["error"] == "No answer within 0.3 s."


def test_an_endpoint_that_answers_a_line_at_a_time_is_cut_at_the_timeout(app, client, auth_headers, receiver):
    # Each header line arrives within the timeout (a per-read limit would wait for ever); the attempt as a whole
    # may not take longer: one such endpoint would hold a worker thread, and the batch of every company with it.
    app.config["WEBHOOKS_TIMEOUT_SECONDS"] = 0.5
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/trickle", ["comprobante.emitido"])
    receiver.script.trickle, receiver.script.trickle_lines = 0.2, 25
    client.post(f"/api/v1/webhooks/{created['id']}/prueba", headers=headers)
    drain(app)
    [attempt] = client.get(f"/api/v1/webhooks/{created['id']}/entregas", headers=headers).json["items"]
    assert attempt["ok"] is False and "0.5 s" in attempt["error"] and attempt["duracionMs"] < 1500


def test_a_batch_ends_within_its_lease_however_slow_an_endpoint_answers(
    app, client, auth_headers, receiver, monkeypatch
):
    # Deliveries leased for a batch are recorded when the batch ends; a batch that outlived its lease would be leased
    # again by the next run (the minute sweep on the worker's other thread) and every endpoint in it sent it twice.
    monkeypatch.setattr(delivery, "LEASE", timedelta(seconds=1.6))
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/slow", ["comprobante.emitido"])
    receiver.script.delay = 0.2
    for _ in range(36):  # 4 connections × 9 answers × 0.2 s: 1.8 s, past the lease
        client.post(f"/api/v1/webhooks/{created['id']}/prueba", headers=headers)
    with app.app_context():
        started = datetime.now(UTC)
        first = delivery.deliver_due()
        took = datetime.now(UTC) - started
        assert took < delivery.LEASE and 0 < first < 36
        while delivery.deliver_due():  # what the batch left is due at once: the endpoint did not fail
            pass
    ids = [r.headers["webhook-id"] for r in receiver.of_path("/slow")]
    assert len(ids) == len(set(ids)) == 36


def test_a_webhook_deleted_while_its_batch_is_sent_leaves_the_others_recorded(
    app, client, auth_headers, receiver, monkeypatch
):
    first, other = auth_headers(ADMIN, company_id=1), auth_headers(ADMIN, company_id=2)
    deleted = _register(client, first, f"{receiver.url}/deleted", ["comprobante.emitido"])
    kept = _register(client, other, f"{receiver.url}/kept", ["comprobante.emitido"])
    client.post(f"/api/v1/webhooks/{deleted['id']}/prueba", headers=first)
    client.post(f"/api/v1/webhooks/{kept['id']}/prueba", headers=other)
    send_group = delivery._send_group

    def an_admin_deletes_it_meanwhile(settings, target, group):
        results = send_group(settings, target, group)
        if target.id == deleted["id"]:
            assert client.delete(f"/api/v1/webhooks/{deleted['id']}", headers=first).status_code == 204
        return results

    monkeypatch.setattr(delivery, "_send_group", an_admin_deletes_it_meanwhile)
    with app.app_context():
        assert delivery.deliver_due() == 2
        assert delivery.deliver_due(datetime.now(UTC) + timedelta(hours=1)) == 0  # nothing left to send again
    [attempt] = client.get(f"/api/v1/webhooks/{kept['id']}/entregas", headers=other).json["items"]
    assert attempt["ok"] is True and attempt["estadoEntrega"] == "entregada"
    assert len(receiver.of_path("/kept")) == 1


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/x",
        "http://localhost/x",
        "http://10.1.2.3/x",
        "http://192.168.0.10/x",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/x",
        "http://[::ffff:127.0.0.1]/x",
        "http://0.0.0.0/x",
        # Shared address space (RFC 6598), neither private nor public: Alibaba Cloud's metadata service is
        # 100.100.100.200, and carrier-grade NAT puts internal hosts there.
        "http://100.100.100.200/latest/meta-data",
        "http://100.64.0.1/x",
        "http://[2002:7f00:1::1]/x",  # 6to4 of 127.0.0.1
    ],
)
def test_internal_addresses_are_refused_when_the_setting_is_off(app, client, auth_headers, url):
    app.config["WEBHOOKS_ALLOW_PRIVATE"] = False
    answer = client.post(
        "/api/v1/webhooks",
        json={"url": url, "eventos": ["comprobante.emitido"]},
        headers=auth_headers(ADMIN, company_id=1),
    )
    assert answer.status_code == 422
    assert answer.json["error"]["fields"][0]["code"] in ("private_address", "unresolved")


@pytest.mark.parametrize("allow_private", [False, True])
@pytest.mark.parametrize("url", ["http://[::1/x", "http://a..b/x", "http://" + "a" * 64 + ".example.com/x"])
def test_a_malformed_url_is_a_422_not_a_500(app, client, auth_headers, url, allow_private):
    app.config["WEBHOOKS_ALLOW_PRIVATE"] = allow_private
    answer = client.post(
        "/api/v1/webhooks", json={"url": url, "eventos": ["comprobante.emitido"]}, headers=auth_headers(ADMIN, 1)
    )
    assert answer.status_code == 422 and answer.json["error"]["fields"][0]["field"] == "url"


def test_only_http_urls_are_accepted(client, auth_headers):
    for url in ("ftp://example.com/x", "file:///etc/passwd", "https://user:pw@example.com/"):
        answer = client.post(
            "/api/v1/webhooks",
            json={"url": url, "eventos": ["comprobante.emitido"]},
            headers=auth_headers(ADMIN, company_id=1),
        )
        assert answer.status_code == 422, url


def test_an_address_that_became_internal_is_not_called(app, client, auth_headers, receiver):
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/later", ["comprobante.emitido"])
    app.config["WEBHOOKS_ALLOW_PRIVATE"] = False  # production: the check runs again before each delivery
    client.post(f"/api/v1/webhooks/{created['id']}/prueba", headers=headers)
    drain(app)
    assert receiver.received == []
    [attempt] = client.get(f"/api/v1/webhooks/{created['id']}/entregas", headers=headers).json["items"]
    assert attempt["ok"] is False and "interna" in attempt["error"]


PUBLIC = "93.184.216.34"  # a public address, never reached: the tests' connections to it are refused below


class _Resolver:
    """A DNS server that answers `answers[n]` to the n-th question about `name` (the last one repeats) and leaves
    every other name, and address literals, to the real resolver."""

    def __init__(self, monkeypatch, name: str, answers: list[str]):
        self.name, self.answers, self.asked = name, answers, 0
        self._real = socket.getaddrinfo
        monkeypatch.setattr(socket, "getaddrinfo", self.getaddrinfo)

    def getaddrinfo(self, host, port, *args, **kwargs):
        if host != self.name:
            return self._real(host, port, *args, **kwargs)
        address = self.answers[min(self.asked, len(self.answers) - 1)]
        self.asked += 1
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port))]


def _connections_to_public_refused(monkeypatch) -> list[str]:
    """Every address the process connects to; PUBLIC refuses (the test must not leave the machine)."""
    tried: list[str] = []
    real = socket.socket.connect

    def connect(sock, address):
        tried.append(address[0])
        if address[0] == PUBLIC:
            raise ConnectionRefusedError(111, "Connection refused")
        return real(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return tried


def test_a_name_that_rebinds_to_an_internal_address_after_the_check_is_not_called(
    app, client, auth_headers, receiver, monkeypatch
):
    headers = auth_headers(ADMIN, company_id=1)
    port = receiver.url.rsplit(":", 1)[1]
    created = _register(client, headers, f"http://hooks.example.com:{port}/rebind", ["comprobante.emitido"])
    app.config["WEBHOOKS_ALLOW_PRIVATE"] = False
    # DNS rebinding: a public address for the check, the service's own loopback for whoever asks next.
    resolver = _Resolver(monkeypatch, "hooks.example.com", [PUBLIC, "127.0.0.1"])
    tried = _connections_to_public_refused(monkeypatch)
    client.post(f"/api/v1/webhooks/{created['id']}/prueba", headers=headers)
    drain(app)
    assert receiver.received == []
    assert tried == [PUBLIC] and resolver.asked == 1  # resolved once, connected to what was checked
    [attempt] = client.get(f"/api/v1/webhooks/{created['id']}/entregas", headers=headers).json["items"]
    assert attempt["ok"] is False and attempt.get("estadoHttp") is None and "conectar" in attempt["error"]


def test_a_name_is_called_at_the_address_it_was_checked_at_with_its_own_host_header(
    app, client, auth_headers, receiver, monkeypatch
):
    headers = auth_headers(ADMIN, company_id=1)
    port = receiver.url.rsplit(":", 1)[1]
    created = _register(client, headers, f"http://hooks.example.com:{port}/pinned", ["comprobante.emitido"])
    resolver = _Resolver(monkeypatch, "hooks.example.com", ["127.0.0.1", PUBLIC])
    tried = _connections_to_public_refused(monkeypatch)
    client.post(f"/api/v1/webhooks/{created['id']}/prueba", headers=headers)
    drain(app)
    [received] = receiver.of_path("/pinned")
    assert received.headers["host"] == f"hooks.example.com:{port}"
    assert _verified(received, created["secreto"])["type"] == "webhook.prueba"
    assert PUBLIC not in tried and resolver.asked == 1
    [attempt] = client.get(f"/api/v1/webhooks/{created['id']}/entregas", headers=headers).json["items"]
    assert attempt["ok"] is True


def test_https_to_a_pinned_address_sends_sni_and_checks_the_certificate_for_the_urls_host(monkeypatch, tmp_path):
    authority = make_authority("CA de prueba TLS")
    (tmp_path / "ca.pem").write_bytes(authority.cert_pem)
    _Resolver(monkeypatch, "hooks.example.com", ["10.9.9.9"])  # never asked: the connection goes to the pin
    for name, trusted in (("hooks.example.com", True), ("otro.example.com", False)):
        certificate = make_tls_certificate(name, authority)
        (tmp_path / "server.pem").write_bytes(certificate.cert_pem + certificate.key_pem)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tmp_path / "server.pem")
        server = WebhookReceiver(tls=context).start()
        url = f"https://hooks.example.com:{server.url.rsplit(':', 1)[1]}/tls"
        try:
            with requests.Session() as http:
                http.trust_env = False
                http.mount("https://", delivery._WatchedAdapter(("127.0.0.1",)))
                if trusted:
                    answer = http.post(url, data=b"{}", verify=str(tmp_path / "ca.pem"), timeout=5)
                    assert answer.status_code == 200 and server.received[0].headers["host"].startswith("hooks.")
                else:  # a certificate for another name, although the pinned address is right
                    with pytest.raises(requests.exceptions.SSLError):
                        http.post(url, data=b"{}", verify=str(tmp_path / "ca.pem"), timeout=5)
                    assert server.received == []
            assert server.server_names == ["hooks.example.com"]
        finally:
            server.stop()


def test_roles_and_companies(client, auth_headers, receiver):
    created = _register(client, auth_headers(ADMIN, company_id=1), f"{receiver.url}/x", ["comprobante.emitido"])
    path = f"/api/v1/webhooks/{created['id']}"
    assert client.get("/api/v1/webhooks", headers=auth_headers("usuario@demo.uy")).status_code == 403
    assert client.get(path, headers=auth_headers("soporte@demo.uy")).status_code == 200
    assert client.delete(path, headers=auth_headers("soporte@demo.uy")).status_code == 403
    assert client.get(path, headers=auth_headers(ADMIN, company_id=2)).status_code == 404
    assert client.delete(path, headers=auth_headers(ADMIN, company_id=1)).status_code == 204
    assert client.get(path, headers=auth_headers(ADMIN, company_id=1)).status_code == 404


def test_change_replace_and_the_event_catalogue(client, auth_headers, receiver):
    headers = auth_headers(ADMIN, company_id=1)
    catalogue = {e["nombre"] for e in client.get("/api/v1/eventos", headers=headers).json["items"]}
    assert {"comprobante.emitido", "sobre.rechazado", "reporte.rechazado", "cae.por_agotarse"} <= catalogue
    assert {"certificado.por_vencer", "recibido.nuevo", "intercambio.respuesta"} <= catalogue
    created = _register(client, headers, f"{receiver.url}/x", ["comprobante.emitido"])
    path = f"/api/v1/webhooks/{created['id']}"
    patched = client.patch(path, json={"eventos": ["sobre.rechazado", "comprobante.aceptado"]}, headers=headers)
    assert patched.json["eventos"] == ["comprobante.aceptado", "sobre.rechazado"]  # the catalogue's order
    replaced = client.put(
        path, json={"url": f"{receiver.url}/y", "eventos": ["reporte.rechazado"], "activo": False}, headers=headers
    )
    assert replaced.status_code == 200 and replaced.json["activo"] is False and replaced.json["url"].endswith("/y")
    unknown = client.patch(path, json={"eventos": ["comprobante.inventado"]}, headers=headers)
    assert unknown.status_code == 422


def test_the_outbox_row_is_written_in_the_issuing_transaction(app, client, auth_headers):
    from portal.service.eventos.models import Event
    from portal.service.platform import db

    receipt = issue(client, auth_headers(ADMIN, company_id=1), body(ETICKET))
    with app.app_context(), db.new_session() as session:
        [event] = session.query(Event).filter(Event.type == "comprobante.emitido").all()
    assert event.data["idCfe"] == receipt["idCfeEmitido"] and event.company_id == 1
    assert json.dumps(event.data).count(":") < 12  # ids and states, not the receipt
    assert WebhookEndpoint  # the table exists even with no endpoint registered


def test_an_envelope_dgi_refuses_is_an_event_and_a_problem_of_the_watch(app, client, auth_headers, receiver):
    from portal.service.envios.simulator import SimulatedDgi

    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/sobres", ["sobre.rechazado"])
    issue(client, headers, body(EFACTURA))
    app.extensions["dgi_reception"] = SimulatedDgi(app.config)
    app.config["DGI_RUT"] = "211003420017"  # envelopes addressed to the wrong RUT: DGI refuses them (S02)
    drain(app)
    [refused] = receiver.of_path("/sobres")
    payload = _verified(refused, created["secreto"])
    assert payload["type"] == "sobre.rechazado"
    assert payload["data"]["motivos"] == ["S02"] and payload["data"]["estado"] == "BS"
    assert payload["data"]["cantidadCfe"] == 1
    health = client.get("/api/v1/empresa/salud", headers=headers).json
    [envelopes] = [i for i in health["items"] if i["clave"] == "sobres_rechazados"]
    assert envelopes["estado"] == "problem" and envelopes["datos"]["comprobantes"] == 1
    assert health["estado"] == "problem"


def test_old_events_are_purged_with_their_attempts(app, client, auth_headers, receiver):
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/old", ["comprobante.emitido"])
    issue(client, headers, body(ETICKET))
    drain(app)
    path = f"/api/v1/webhooks/{created['id']}/entregas"
    assert len(client.get(path, headers=headers).json["items"]) == 1
    created_by_company_two = auth_headers(ADMIN, company_id=2)
    issue(client, created_by_company_two, body(ETICKET))  # no webhook hears company 2
    with app.app_context():
        delivery.fan_out()
        assert delivery.purge(datetime.now(UTC) + timedelta(hours=23)) == 0
        assert delivery.purge(datetime.now(UTC) + timedelta(days=2)) == 1  # the event nobody heard
        assert delivery.purge(datetime.now(UTC) + timedelta(days=29)) == 0
        assert delivery.purge(datetime.now(UTC) + timedelta(days=31)) == 1
    assert client.get(path, headers=headers).json["items"] == []


def test_a_refused_url_and_a_missing_webhook_are_said_in_the_callers_language(app, client, auth_headers):
    app.config["WEBHOOKS_ALLOW_PRIVATE"] = False
    english = {**auth_headers(ADMIN, company_id=1), "Accept-Language": "en"}
    internal = client.post(
        "/api/v1/webhooks", json={"url": "http://127.0.0.1/x", "eventos": ["comprobante.emitido"]}, headers=english
    ).json["error"]
    assert internal["message"] == "That URL is not accepted."
    assert internal["fields"][0]["message"].startswith("127.0.0.1 is an internal address (127.0.0.1)")
    scheme = client.post(
        "/api/v1/webhooks", json={"url": "ftp://example.com/x", "eventos": ["comprobante.emitido"]}, headers=english
    ).json["error"]
    assert scheme["fields"][0]["message"] == "The URL must start with https:// (or http://)."
    missing = client.get("/api/v1/webhooks/we_nope", headers=english).json["error"]
    assert missing["message"] == "There is no such webhook in the company."
    spanish = client.get("/api/v1/webhooks/we_nope", headers=auth_headers(ADMIN, company_id=1)).json["error"]
    assert spanish["message"] == "No existe ese webhook en la empresa."


def test_why_a_webhook_is_off_is_said_in_the_callers_language(client, auth_headers, receiver):
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/x", ["comprobante.emitido"])
    english = {**headers, "Accept-Language": "en"}
    off = client.patch(f"/api/v1/webhooks/{created['id']}", json={"activo": False}, headers=english).json
    assert off["motivoDesactivado"] == "Turned off by an administrator."
    spanish = client.get(f"/api/v1/webhooks/{created['id']}", headers=headers).json
    assert spanish["motivoDesactivado"] == "Desactivado por un administrador."


def test_a_test_event_for_a_webhook_that_is_off_is_refused_not_silently_dropped(app, client, auth_headers, receiver):
    headers = auth_headers(ADMIN, company_id=1)
    created = _register(client, headers, f"{receiver.url}/off", ["comprobante.emitido"])
    client.patch(f"/api/v1/webhooks/{created['id']}", json={"activo": False}, headers=headers)
    refused = client.post(f"/api/v1/webhooks/{created['id']}/prueba", headers=headers)
    assert refused.status_code == 409 and refused.json["error"]["code"] == "webhook_inactivo"
    drain(app)
    assert receiver.received == []


def test_a_disabled_webhooks_notice_does_not_show_its_query_to_every_member(app, client, auth_headers, receiver):
    # Notices are read by every member; webhooks only by admins and support. A receiver's URL often carries its
    # own token in the query string.
    created = _register(client, auth_headers(ADMIN, 1), f"{receiver.url}/hook?token=s3cr3t", ["comprobante.emitido"])
    with app.app_context():
        from portal.service.platform import db
        from portal.service.webhooks import notices

        with db.new_session() as session:
            endpoint = session.get(WebhookEndpoint, created["id"])
            session.expunge(endpoint)
        notices.endpoint_disabled(endpoint)
    [notice] = client.get("/api/v1/empresa/avisos", headers=auth_headers("usuario@demo.uy", 1)).json["items"]
    assert "s3cr3t" not in notice["mensaje"] and f"{receiver.url}/hook" in notice["mensaje"]
    with app.app_context():
        [mail] = [m for m in mailbox.messages(1) if "desactivado" in m.subject.lower()]
    assert "s3cr3t" in mail.text  # the admins' own mail names it whole


def test_a_short_url_of_another_scheme_is_refused_for_its_scheme_and_the_schema_says_http(client, auth_headers):
    """`ftp://x` (7 characters) was answered "al menos 8 caracteres"; the scheme is what has to change."""
    for headers, said in (
        (auth_headers(ADMIN, company_id=1), "La URL debe empezar con https:// (o http://)."),
        (
            {**auth_headers(ADMIN, company_id=1), "Accept-Language": "en"},
            "The URL must start with https:// (or http://).",
        ),
    ):
        answer = client.post(
            "/api/v1/webhooks", json={"url": "ftp://x", "eventos": ["comprobante.emitido"]}, headers=headers
        )
        assert answer.status_code == 422
        assert [(f["field"], f["message"]) for f in answer.json["error"]["fields"]] == [("url", said)]
    url = client.get("/api/v1/openapi.json").json["components"]["schemas"]["WebhookCreate"]["properties"]["url"]
    assert re.fullmatch(url["pattern"], "https://erp.example.com/hook") and not re.fullmatch(url["pattern"], "ftp://x")


def test_the_admins_mail_about_a_disabled_webhook_is_in_each_admins_language(app, client, auth_headers, receiver):
    """The mail was a Spanish f-string to every admin; it is said from the catalogue in each admin's locale."""
    from sqlalchemy import update

    from portal.service.platform import db
    from portal.service.platform.models import User
    from portal.service.webhooks import notices

    created = _register(client, auth_headers(ADMIN, 1), f"{receiver.url}/en", ["comprobante.emitido"])
    with app.app_context():
        with db.write_transaction() as session:
            session.execute(update(User).where(User.email == ADMIN).values(locale="en"))
        with db.new_session() as session:
            endpoint = session.get(WebhookEndpoint, created["id"])
            session.expunge(endpoint)
        notices.endpoint_disabled(endpoint)
        [mail] = [m for m in mailbox.messages(1) if "disabled" in m.subject.lower()]
    assert mail.subject == "Webhook disabled: it did not answer for a day"
    assert f"The webhook {receiver.url}/en accepted no delivery for a day" in mail.text
    assert f'PATCH /api/v1/webhooks/{created["id"]} and {{"activo": true}}.' in mail.text
    assert "desactivado" not in mail.text
