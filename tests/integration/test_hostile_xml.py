"""A corpus of hostile XML documents sent to firmarXml, 8 at a time, against a live service.

Each is refused (or, when harmless, answered) within a second, and with 8 at a time the service keeps
answering /healthz near its idle latency (a ratio measured in the same run; bench/bench_hostile_xml.py reports
the milliseconds). The service runs as in production (gunicorn, deploy/gunicorn.conf.py, threads) in
its own process, so the test's own threads do not compete with it for the GIL; /healthz is asked from a
third process. The caps themselves are in portal/service/cfe/xmlsafe.py.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from portal.service.cfe import xmlsafe
from tests.support.processes import Gunicorn

MiB = 1024 * 1024
CFE = b'<CFE xmlns="http://cfe.dgi.gub.uy" version="1.0">'
UNSIGNED_ETICKET = CFE + b"<eTck><Encabezado/></eTck></CFE>"
LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + b"".join(
        b'<!ENTITY lol%d "%s">' % (i, b"&lol%d;" % (i - 1) * 10 if i > 1 else b"&lol;" * 10) for i in range(1, 10)
    )
    + b']><CFE xmlns="http://cfe.dgi.gub.uy">&lol9;</CFE>'
)


def _attributes(count: int) -> bytes:
    return b" ".join(b'a%d="v"' % i for i in range(count))


CORPUS: dict[str, tuple[bytes, set[int]]] = {
    "entity expansion": (LAUGHS, {422}),
    "external entity": (
        b'<?xml version="1.0"?><!DOCTYPE CFE [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b'<CFE xmlns="http://cfe.dgi.gub.uy">&x;</CFE>',
        {422},
    ),
    "external DTD": (b'<!DOCTYPE CFE SYSTEM "http://127.0.0.1:9/cfe.dtd"><CFE xmlns="http://cfe.dgi.gub.uy"/>', {422}),
    "parameter entities": (b'<!DOCTYPE CFE [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]><CFE/>', {422}),
    "xinclude": (
        CFE + b'<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd" parse="text"/></CFE>',
        {422},
    ),
    "huge": (CFE + b"x" * (2 * MiB) + b"</CFE>", {413}),
    "huge chunk of text just under the cap": (CFE + b"<eTck>" + b"x" * (2 * MiB - 200) + b"</eTck></CFE>", {413}),
    "deep": (CFE + b"<a>" * 20_000 + b"</a>" * 20_000 + b"</CFE>", {422}),
    "deep under the parser's own limit": (CFE + b"<a>" * 200 + b"</a>" * 200 + b"</CFE>", {422}),
    "wide": (CFE + b"<a/>" * 400_000 + b"</CFE>", {422}),
    "wide under the element cap": (CFE + b"<a/>" * 24_000 + b"</CFE>", {200, 422}),
    "comments": (CFE + b"<!---->" * 250_000 + b"</CFE>", {422}),
    "many attributes on one element": (CFE + b"<eTck " + _attributes(60_000) + b"/></CFE>", {422}),
    "attributes just over the per-element cap": (CFE + b"<eTck " + _attributes(33) + b"/></CFE>", {422}),
    "many namespaces on one element": (
        CFE + b"<eTck " + b" ".join(b'xmlns:p%d="urn:p%d"' % (i, i) for i in range(60_000)) + b"/></CFE>",
        {422},
    ),
    "many attributes across elements": (CFE + b'<a x="1" y="2"/>' * 20_000 + b"</CFE>", {422}),
    "utf-16": ('<?xml version="1.0" encoding="UTF-16"?><CFE xmlns="http://cfe.dgi.gub.uy"/>'.encode("utf-16"), {422}),
    "utf-7 declared": (b'<?xml version="1.0" encoding="UTF-7"?><CFE xmlns="http://cfe.dgi.gub.uy"/>', {422}),
    "ebcdic declared": (b'<?xml version="1.0" encoding="EBCDIC-US"?><CFE/>', {422}),
    "invalid utf-8 bytes": (CFE + b"<eTck>\xff\xfe\xc3\x28</eTck></CFE>", {422}),
    "nul bytes": (CFE + b"\x00" * 1000 + b"</CFE>", {422}),
    "unclosed": (CFE + b"<eTck>" * 10, {422}),
    # C14N (signing) refuses a relative namespace URI; it was a 500 from xmlsec.
    "relative namespace URI": (b'<CFE xmlns="http://cfe.dgi.gub.uy"><a xmlns:p="x"/></CFE>', {422}),
    "relative default namespace URI": (CFE + b'<a xmlns="rel/ns"/></CFE>', {422}),
}


@pytest.fixture(scope="module")
def service(service_db_template, tmp_path_factory):
    """The service under gunicorn with the production settings, on a free port; yields (url, token).

    Started once per module (a gunicorn start costs more than a test here): firmarXml signs and stores
    nothing, so every document is sent to the same fresh process, as the serial test sends them all at once."""
    from portal.service import create_app
    from tests.conftest import mint_token

    folder = tmp_path_factory.mktemp("hostile")
    database = folder / "service.db"
    shutil.copyfile(service_db_template, database)
    service_config = {"DATABASE_URL": f"sqlite:///{database}", "TESTING": True, "JOBS_URL": "memory://"}
    env = {"CFE_DATABASE_URL": service_config["DATABASE_URL"]}
    # 8 threads, as many as the serial test's documents at a time: waiting for an intake slot must not take
    # them all (deploy/gunicorn.conf.py has 16, make run 32).
    server = Gunicorn("portal.service:create_app()", env, folder / "gunicorn.log", threads=8)
    server.env["CFE_ISSUER_URL"] = server.url
    try:
        server.start()
        app = create_app({**service_config, "ISSUER": server.url})
        token = mint_token(app, "usuario@demo.uy")
        app.extensions["db_engine"].dispose()
        yield server.url, token
    finally:
        server.stop()


@pytest.fixture
def post(service):
    url, token = service
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/xml"}

    def send(body: bytes) -> tuple[int, float, dict]:
        started = time.perf_counter()
        answer = requests.post(url + "/api/v1/comprobante/firmarXml", data=body, headers=headers, timeout=30)
        return answer.status_code, time.perf_counter() - started, answer.json() if answer.status_code != 200 else {}

    return send


@pytest.mark.parametrize("name", list(CORPUS))
def test_each_hostile_document_is_refused_in_the_error_shape(post, name):
    body, expected = CORPUS[name]
    status, elapsed, answer = post(body)
    assert status in expected, (name, status, answer)
    if status != 200:
        assert answer["error"]["code"] in ("validation_error", "payload_too_large")
    assert elapsed < 1.0, (name, elapsed)


# Runs in a process of its own (see the module docstring): asks /healthz every 20 ms until stdin closes.
PROBE = """
import sys, threading, time, requests
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
session = requests.Session()
print("ready", flush=True)
while not stop.is_set():
    started = time.perf_counter()
    status = session.get(sys.argv[1] + "/healthz", timeout=5).status_code
    print(status, time.perf_counter() - started, flush=True)
    time.sleep(0.02)
"""


def _healthz_latencies(url: str, work) -> list[float]:
    """/healthz latencies asked by a process of its own (PROBE) while `work()` runs in this one."""
    prober = subprocess.Popen(
        [sys.executable, "-c", PROBE, url],
        stdin=subprocess.PIPE,  # noqa: S603
        stdout=subprocess.PIPE,
        text=True,
    )
    assert prober.stdout.readline().strip() == "ready"
    try:
        work()
    finally:
        output, _ = prober.communicate(timeout=30)
    probes = [(int(status), float(latency)) for status, latency in (line.split() for line in output.splitlines())]
    assert probes and all(status == 200 for status, _ in probes), probes
    return [latency for _, latency in probes]


def _p95(latencies: list[float]) -> float:
    ordered = sorted(latencies)
    return ordered[int(0.95 * (len(ordered) - 1))]


# /healthz p95 under 8 hostile documents at a time over its p95 idle, in the same run. Waiting for a server
# thread (every one taken) costs seconds, hundreds of times idle (the audit saw 580 ms p95 against 25 idle);
# sharing the GIL with the two documents being signed (portal/service/cfe/xmlsafe.py, `intake`) costs a few
# times idle. The milliseconds are bench/bench_hostile_xml.py's to report, not a test's to bound: the old bound
# of 100 ms failed on a slower machine.
MAX_LATENCY_RATIO = 15


@pytest.mark.serial  # latency ratio: run alone, after the parallel suite (Makefile)
def test_eight_at_a_time_are_answered_and_healthz_stays_near_its_idle_latency(service, post):
    url, _token = service
    post(UNSIGNED_ETICKET)  # the first signature loads the key and the XSDs: not what this test measures
    idle = _healthz_latencies(url, lambda: time.sleep(2))
    results: list = []

    def hostile() -> None:
        with ThreadPoolExecutor(max_workers=8) as pool:
            results.extend(pool.map(lambda name: (name, *post(CORPUS[name][0])), list(CORPUS) * 3))

    loaded = _healthz_latencies(url, hostile)
    # A document that waited longer than INTAKE_WAIT_SECONDS for an intake slot is told to come back (503).
    wrong = [(name, status) for name, status, _elapsed, _ in results if status not in CORPUS[name][1] | {503}]
    busy = [answer for _name, status, _elapsed, answer in results if status == 503]
    assert not wrong, wrong
    assert all(answer["error"]["code"] == "servicio_ocupado" for answer in busy)
    assert len(busy) < len(results)  # most are answered, not all turned away
    assert len(loaded) >= 5
    ratio = _p95(loaded) / _p95(idle)
    assert ratio < MAX_LATENCY_RATIO, (round(ratio, 1), sorted(loaded)[-5:], sorted(idle)[-5:])


def test_caps_hold_at_their_edges():
    ok = CFE + b"<eTck " + _attributes(xmlsafe.MAX_ATTRIBUTES_PER_ELEMENT) + b"/></CFE>"
    assert xmlsafe.parse_untrusted(ok).getroot() is not None
    deep = CFE + b"<a>" * (xmlsafe.MAX_DEPTH - 1) + b"</a>" * (xmlsafe.MAX_DEPTH - 1) + b"</CFE>"
    assert xmlsafe.parse_untrusted(deep).getroot() is not None


def test_signing_time_grows_linearly_with_attributes_now_that_crowded_elements_are_refused(post):
    # Before the cap, 60,000 attributes on one element took 23 s: libxml2's C14N sorts them quadratically.
    status, elapsed, answer = post(CFE + b"<eTck " + _attributes(60_000) + b"/></CFE>")
    assert status == 422 and "atributos" in answer["error"]["message"] and elapsed < 1.0
