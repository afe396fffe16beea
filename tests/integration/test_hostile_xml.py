"""A corpus of hostile XML documents sent to firmarXml, 8 at a time, against a live service.

Each is refused (or, when harmless, answered) in about the time an honest document near the size caps takes,
and the service keeps answering /healthz throughout about as fast as when it is idle. The service runs as in
production (gunicorn, deploy/gunicorn.conf.py, threads) in its own process, so the test's own threads do not
compete with it for the GIL; /healthz is asked from a third process. The caps themselves are in
portal/service/cfe/xmlsafe.py.

No bound here is an absolute time: machines differ fourfold in speed, and a shared one more. Each bound is a
ratio between two things measured in the same run (a hostile document against an honest one, /healthz under
load against /healthz idle), generous enough for noise and far below what the attacks cost before their caps
(60,000 attributes on one element took 23 s, a thousand times an honest document). The absolute targets (1 s
per document, /healthz under 100 ms) are measured by bench/bench_hostile_xml.py (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import shutil
import statistics
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


# An honest document near the caps: a thousand elements holding 1 MiB of text, well-formed, no tricks.
HONEST = CFE + b"<eTck>" + (b"<a>" + b"x" * 1000 + b"</a>") * 1000 + b"</eTck></CFE>"

# How many times an honest document's time a hostile one may take, alone and 8 at a time (measured: 0.1 to 1.2
# alone, up to 0.6 together), and how many times its idle p95 /healthz's p95 may be while they are parsed
# (measured 0.8 to 1.4; the target, 100 ms against 25 ms idle, is 4). Figures in docs/PERFORMANCE.md.
ALONE_RATIO = 20
TOGETHER_RATIO = 20
HEALTHZ_RATIO = 5


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
    # deploy/gunicorn.conf.py's 16 threads: the serial test's 8 documents at a time leave /healthz threads.
    server = Gunicorn("portal.service:create_app()", env, folder / "gunicorn.log", threads=16)
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


def honest_time(post, times: int = 3) -> float:
    """The median time of an honest document near the caps, measured now (the ratios' denominator)."""
    return statistics.median(post(HONEST)[1] for _ in range(times))


@pytest.mark.parametrize("name", list(CORPUS))
def test_each_hostile_document_is_refused_in_the_error_shape(post, name):
    body, expected = CORPUS[name]
    honest = honest_time(post)
    status, elapsed, answer = post(body)
    assert status in expected, (name, status, answer)
    if status != 200:
        assert answer["error"]["code"] in ("validation_error", "payload_too_large")
    assert elapsed < ALONE_RATIO * honest, (name, elapsed, honest)


# Runs in a process of its own (see the module docstring): asks /healthz every 20 ms until stdin closes, and
# marks with a line "load" when it reads one on stdin: the answers before it are the idle ones.
PROBE = """
import sys, threading, time, requests
stop, loaded = threading.Event(), threading.Event()
def read():
    sys.stdin.readline()
    loaded.set()
    sys.stdin.read()
    stop.set()
threading.Thread(target=read, daemon=True).start()
session = requests.Session()
print("ready", flush=True)
marked = False
while not stop.is_set():
    if loaded.is_set() and not marked:
        print("load", flush=True)
        marked = True
    started = time.perf_counter()
    status = session.get(sys.argv[1] + "/healthz", timeout=30).status_code
    print(status, time.perf_counter() - started, flush=True)
    time.sleep(0.02)
"""


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


@pytest.mark.serial  # ratios of latencies: run alone, after the parallel suite (Makefile)
def test_eight_at_a_time_each_refused_like_an_honest_document_and_healthz_as_when_idle(service, post):
    url, _token = service
    post(UNSIGNED_ETICKET)  # the first signature loads the key and the XSDs: not what this test measures
    prober = subprocess.Popen(
        [sys.executable, "-c", PROBE, url],
        stdin=subprocess.PIPE,  # noqa: S603
        stdout=subprocess.PIPE,
        text=True,
    )
    assert prober.stdout.readline().strip() == "ready"
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            time.sleep(1)  # /healthz idle, about 40 answers
            # The honest document 8 at a time, as the hostile ones below: the same queue for the intake slots.
            honest = statistics.median(elapsed for _status, elapsed, _ in pool.map(post, [HONEST] * 24))
            prober.stdin.write("load\n")
            prober.stdin.flush()
            results = list(pool.map(lambda name: (name, *post(CORPUS[name][0])), list(CORPUS) * 6))
    finally:
        output, _ = prober.communicate(timeout=30)
    idle_lines, _, load_lines = output.partition("load\n")
    idle, loaded = ([tuple(line.split()) for line in lines.splitlines()] for lines in (idle_lines, load_lines))
    assert len(idle) >= 10 and len(loaded) >= 5 and all(status == "200" for status, _ in idle + loaded)
    idle_p95, loaded_p95 = p95([float(t) for _, t in idle]), p95([float(t) for _, t in loaded])

    slow = [(name, round(elapsed, 3)) for name, _status, elapsed, _ in results if elapsed >= TOGETHER_RATIO * honest]
    wrong = [(name, status) for name, status, _elapsed, _ in results if status not in CORPUS[name][1]]
    assert not wrong and not slow, (wrong, slow, honest)
    assert loaded_p95 < HEALTHZ_RATIO * idle_p95, (loaded_p95, idle_p95)


def test_caps_hold_at_their_edges():
    ok = CFE + b"<eTck " + _attributes(xmlsafe.MAX_ATTRIBUTES_PER_ELEMENT) + b"/></CFE>"
    assert xmlsafe.parse_untrusted(ok).getroot() is not None
    deep = CFE + b"<a>" * (xmlsafe.MAX_DEPTH - 1) + b"</a>" * (xmlsafe.MAX_DEPTH - 1) + b"</CFE>"
    assert xmlsafe.parse_untrusted(deep).getroot() is not None


def test_signing_time_grows_linearly_with_attributes_now_that_crowded_elements_are_refused(post):
    # Before the cap, 60,000 attributes on one element took 23 s: libxml2's C14N sorts them quadratically.
    honest = honest_time(post)
    status, elapsed, answer = post(CFE + b"<eTck " + _attributes(60_000) + b"/></CFE>")
    assert status == 422 and "atributos" in answer["error"]["message"]
    assert elapsed < ALONE_RATIO * honest, (elapsed, honest)
