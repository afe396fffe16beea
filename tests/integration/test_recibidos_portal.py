"""Comprobantes recibidos in the portal: the list with filters, totals and CSV, upload (a hostile file refused
with a clear message), a received CFE's page, accept, reject with a commercial motive in words, book; roles."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime

import pytest
from bs4 import BeautifulSoup

from portal.service.platform import db
from portal.service.recibidos.models import ProcessedMail
from tests.support import recibidos as sup


@pytest.fixture
def usuario(signed_in):
    return signed_in("usuario@demo.uy")


def _upload(client, *files: tuple[str, bytes]):
    page = BeautifulSoup(client.get("/recibidos/").data, "html.parser")
    token = page.select_one("form[data-dropzone] input[name=csrf_token]")["value"]
    data = {"csrf_token": token, "archivos": [(io.BytesIO(content), name) for name, content in files]}
    return client.post("/recibidos/subir", data=data, content_type="multipart/form-data")


def _first_received(client, *cfes: bytes):
    """Upload one supplier envelope of `cfes` (by default one good e-Factura) and open the first CFE listed: its
    link and its page."""
    answer = _upload(client, ("Sob_211003420017_1.xml", sup.envelope(list(cfes) or [sup.cfe(1)])))
    assert answer.status_code == 303
    page = BeautifulSoup(client.get(answer.headers["Location"]).data, "html.parser")
    link = page.select_one("#received-results tbody tr a")["href"]
    return link, BeautifulSoup(client.get(link).data, "html.parser")


def test_upload_list_and_act_on_a_received_cfe(usuario):
    answer = _upload(usuario, ("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1), sup.cfe(2)])))
    assert answer.status_code == 303  # a reload of the list does not post the files again
    page = BeautifulSoup(usuario.get(answer.headers["Location"]).data, "html.parser")
    assert "2 aceptado(s) y 0 rechazado(s)" in page.select_one(".flash-success").get_text()
    rows = page.select("#received-results tbody tr")
    assert len(rows) == 2 and "Comercial del Norte S.R.L." in rows[0].get_text()
    assert "2 comprobantes" in page.select_one("[data-testid=received-totals]").get_text()

    filtered = BeautifulSoup(usuario.get("/recibidos/?numero=A-2").data, "html.parser")
    assert len(filtered.select("#received-results tbody tr")) == 1
    csv = usuario.get("/recibidos/recibidos.csv?numero=A-2")
    assert csv.mimetype == "text/csv" and len(csv.get_data(as_text=True).strip().splitlines()) == 2
    assert csv.headers["Content-Disposition"] == 'attachment; filename="recibidos.csv"'
    # Named by the days filtered, as the IVA books: a month's file and the next one's were both recibidos.csv.
    month = usuario.get("/recibidos/recibidos.csv?desde=01/11/2026&hasta=30/11/2026")
    assert month.headers["Content-Disposition"] == 'attachment; filename="recibidos-20261101-20261130.csv"'
    since = usuario.get("/recibidos/recibidos-xml.zip?desde=01/11/2026")
    assert since.headers["Content-Disposition"] == 'attachment; filename="recibidos-xml-desde-20261101.zip"'

    link = rows[1].select_one("a")["href"]
    detail = BeautifulSoup(usuario.get(link).data, "html.parser")
    assert "Cajas de cartón" in detail.get_text() and "ACKCFE" in detail.get_text()
    # On a phone the lines are cards, as the issued receipt's (the same classes); they scrolled sideways.
    assert {"receipt-lines", "stacked-table"} <= set(detail.select_one("[data-testid=received-lines]")["class"])
    assert detail.select_one("[data-testid=received-lines] td[data-label=Detalle]").get_text() == "Cajas de cartón"
    options = [o.get_text() for o in detail.select("select[name=motivo] option")]
    assert "E24 · Precios o descuentos" in options  # short enough for its box on a phone; the decision says all
    token = detail.select_one("form[action$=rechazar] input[name=csrf_token]")["value"]
    missing = usuario.post(f"{link}/rechazar", data={"csrf_token": token, "motivo": "E40", "detalle": ""})
    assert missing.status_code == 422 and "E40" in missing.get_data(as_text=True)
    done = usuario.post(f"{link}/rechazar", data={"csrf_token": token, "motivo": "E24", "detalle": "Precio $ 140"})
    assert done.status_code == 303
    after = BeautifulSoup(usuario.get(link).data, "html.parser")
    assert "Diferencia de precios y/o descuentos" in after.select_one("[data-testid=decision]").get_text()
    assert usuario.get(f"{link}/pdf").data.startswith(b"%PDF")
    # In English, the catalogue's English words (portal/domain/commercial_motives.py), the form's and the decision's.
    usuario.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": token})
    english = BeautifulSoup(usuario.get(link).data, "html.parser")
    assert "E24 · Price or discount difference" in english.select_one("[data-testid=decision]").get_text()
    other = BeautifulSoup(usuario.get(rows[0].select_one("a")["href"]).data, "html.parser")
    options = [o.get_text() for o in other.select("select[name=motivo] option")]
    assert {"E24 · Prices or discounts", "E26 · Payment term difference", "E27 · other motive (write it)"} <= set(
        options
    )


def test_the_pdf_of_a_cfe_rejected_on_arrival_says_why_on_its_page_not_an_error_page(usuario):
    forged = sup.cfe(1).replace("Cajas de cartón".encode(), b"Cajas de madera")  # its signature no longer holds
    link, _ = _first_received(usuario, forged)
    printed = usuario.get(f"{link}/pdf")
    assert printed.status_code == 303 and printed.headers["Location"].endswith(link)
    landed = BeautifulSoup(usuario.get(printed.headers["Location"]).data, "html.parser")
    assert "no se puede imprimir" in landed.select_one(".flash-error").get_text()


def test_a_hostile_upload_is_refused_with_a_clear_message(usuario):
    answer = _upload(usuario, ("lote.zip", b"PK\x03\x04 no es un zip"))
    assert answer.status_code == 422
    assert "no es un ZIP que se pueda leer" in answer.get_data(as_text=True)


def test_soporte_reads_but_does_not_act(signed_in):
    soporte = signed_in("soporte@demo.uy")
    page = BeautifulSoup(soporte.get("/recibidos/").data, "html.parser")
    assert page.select_one("form[data-dropzone]") is None
    token = json.loads(page.select_one("main")["hx-headers"])["X-CSRFToken"]
    assert soporte.post("/recibidos/subir", headers={"X-CSRFToken": token}).status_code == 403


def test_the_home_shows_received_today_and_unbooked(usuario):
    _upload(usuario, ("s.xml", sup.envelope([sup.cfe(1), sup.cfe(2)])))
    home = BeautifulSoup(usuario.get("/").data, "html.parser")
    assert home.select_one("[data-testid=received-today]").get_text(strip=True) == "2"
    assert home.select_one("[data-testid=received-unbooked]").get_text(strip=True) == "2"


def test_the_type_filter_offers_what_suppliers_send(usuario):
    page = BeautifulSoup(usuario.get("/recibidos/").data, "html.parser")
    offered = {o.get_text(strip=True) for o in page.select("select[name=tipo] option")}
    assert {"e-Factura venta por cuenta ajena", "Nota de crédito de e-Ticket", "e-Resguardo"} <= offered
    assert not {"e-Boleta de entrada", "e-Factura de exportación"} & offered  # the buyer's own, and abroad's


def test_in_english_a_refused_envelope_and_a_cfe_rejected_on_arrival_say_our_detail_in_english(usuario):
    """DGI's glosa ("Formato del archivo no es el indicado") stays as DGI defines it; what we add is English."""
    token = BeautifulSoup(usuario.get("/").data, "html.parser").select_one("input[name=csrf_token]")["value"]
    usuario.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": token})
    answer = _upload(usuario, ("no.xml", b"<no>"))
    page = BeautifulSoup(usuario.get(answer.headers["Location"]).data, "html.parser")
    said = page.select_one(".flash-error").get_text()
    assert "The XML is malformed: it ends before all its tags are closed (line 1, column 5)" in said
    assert ".)" not in said  # the detail's own period is not set inside the parentheses
    assert "mal formado" not in said and "línea" not in said
    forged = sup.cfe(1).replace("Cajas de cartón".encode(), b"Cajas de madera")
    _, detail = _first_received(usuario, forged)
    assert "The CFE's signature does not verify with the envelope's certificate." in detail.get_text()
    assert "La firma del CFE no verifica" not in detail.get_text()


def test_a_zip_whose_entry_is_larger_than_any_envelope_is_refused_whole_saying_which(usuario):
    """An entry past DGI's 2 MB is not an envelope cut to 2 MB and answered S07 "2048 KB; the maximum is 2048 KB"
    (a ZIP bomb of one entry): the upload is refused with nothing received, naming the entry."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("uno.xml", sup.envelope([sup.cfe(1)], idemisor=30))
        archive.writestr("enorme.xml", b"<a>" + b" " * (5 * 1024 * 1024) + b"</a>")
    answer = _upload(usuario, ("lote.zip", buffer.getvalue()))
    assert answer.status_code == 422
    error = BeautifulSoup(answer.data, "html.parser").select_one("#archivos-error").get_text()
    assert "enorme.xml" in error and "2048 KB" in error
    assert "Todavía no hay comprobantes recibidos." in answer.get_data(as_text=True)  # uno.xml was not received


def test_an_upload_the_service_is_too_busy_to_take_whole_says_which_file_and_that_nothing_was_received(
    usuario, monkeypatch
):
    """The service could not take the upload's second envelope in (its XML slots busy): the person read the
    generic "El servicio CFE no está respondiendo" page, while the first envelope had been received. Now nothing
    is received and the upload's form says which file stopped it and that none was received."""
    sup.busy_on_the_second_envelope(monkeypatch)
    answer = _upload(
        usuario,
        ("uno.xml", sup.envelope([sup.cfe(1)], idemisor=31)),
        ("dos.xml", sup.envelope([sup.cfe(2)], idemisor=32)),
    )
    assert answer.status_code == 503
    error = BeautifulSoup(answer.data, "html.parser").select_one("#archivos-error").get_text()
    assert "«dos.xml»" in error and "No se recibió ningún sobre" in error
    assert "Todavía no hay comprobantes recibidos." in answer.get_data(as_text=True)


def test_a_decision_the_service_did_not_answer_in_time_is_not_said_to_be_sent_again(usuario, portal_app, monkeypatch):
    """A read timeout leaves the outcome unknown (the service may have accepted it): the page says so and leads
    back to where the person can see how it stands, rather than telling them to send the form again."""
    from portal.client.errors import ServiceUnavailable
    from portal.client.recibidos import RecibidosApi

    _upload(usuario, ("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1)])))
    link = BeautifulSoup(usuario.get("/recibidos/").data, "html.parser").select_one("#received-results tbody a")["href"]
    token = BeautifulSoup(usuario.get(link).data, "html.parser").select_one("form[action$=aceptar] input")["value"]

    def timed_out(self, received_id):
        raise ServiceUnavailable("El servicio CFE no respondió a tiempo.", code="timeout")

    monkeypatch.setattr(RecibidosApi, "accept_received", timed_out)
    referer = f"http://{portal_app.config['SERVER_NAME']}{link}"  # the page the form was on, as a browser says it
    page = usuario.post(f"{link}/aceptar", data={"csrf_token": token}, headers={"Referer": referer})
    assert page.status_code == 503
    banner = BeautifulSoup(page.data, "html.parser").select_one("[role=alert]")
    assert "enviá el formulario de nuevo" not in banner.get_text()
    assert "no sabemos si se hizo" in banner.get_text()
    assert banner.find("a", string="Ver cómo quedó")["href"] == link


def test_the_totals_over_a_list_with_a_rejected_cfe_say_that_rejected_ones_do_not_add_up(usuario):
    """Two rows under "1 comprobante · $ ..." read as a wrong count unless the totals say what they leave out."""
    _upload(usuario, ("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1), sup.cfe(2)])))
    link = BeautifulSoup(usuario.get("/recibidos/").data, "html.parser").select_one("#received-results tbody a")["href"]
    token = BeautifulSoup(usuario.get(link).data, "html.parser").select_one("form[action$=rechazar] input")["value"]
    assert usuario.post(f"{link}/rechazar", data={"csrf_token": token, "motivo": "E21"}).status_code == 303
    page = BeautifulSoup(usuario.get("/recibidos/").data, "html.parser")
    assert len(page.select("#received-results tbody tr")) == 2
    totals = page.select_one("[data-testid=received-totals]").get_text(" ", strip=True)
    assert "1 comprobante" in totals and "Los rechazados no suman" in totals


def test_an_upload_says_whether_the_supplier_gets_our_answer(usuario, live_service):
    """A file that is no readable envelope is answered BS S01 with no one to send it to, yet the flash said "se le
    avisa al proveedor" (and the form's hint promised it for every broken envelope). Each case now says what
    happens."""
    from portal.service.envios.consultas import ElectronicIssuer
    from portal.service.intercambio.directory import upsert_issuer
    from portal.service.platform import db

    form = BeautifulSoup(usuario.get("/recibidos/").data, "html.parser").select_one("form[data-dropzone]")
    assert "si se puede saber quién lo envió" in form.get_text()
    assert "queda rechazado (BS) y se le avisa al proveedor" not in form.get_text()

    answer = _upload(usuario, ("no.xml", b"<no>"))
    assert answer.status_code == 303
    page = BeautifulSoup(usuario.get(answer.headers["Location"]).data, "html.parser")
    said = page.select_one(".flash-error")
    assert "no.xml: rechazado (S01 " in said.get_text()
    assert "no se pudo saber quién lo envió, así que nadie recibe la respuesta" in said.get_text()
    assert "se le avisa al proveedor" not in said.get_text()

    envelope = sup.envelope([sup.cfe(1)])
    answer = _upload(usuario, ("Sob_211003420017_1.xml", envelope))
    page = BeautifulSoup(usuario.get(answer.headers["Location"]).data, "html.parser")
    assert "se le responde al proveedor" in page.select_one(".flash-success").get_text()
    again = _upload(usuario, ("Sob_211003420017_1.xml", envelope))  # S20: its sender is known and listed
    page = BeautifulSoup(usuario.get(again.headers["Location"]).data, "html.parser")
    assert "rechazado (S20 " in page.select_one(".flash-error").get_text()
    assert "se le avisa al proveedor." in page.select_one(".flash-error").get_text()

    with live_service.app.app_context():
        upsert_issuer(
            db.session(), ElectronicIssuer(sup.SUPPLIER_RUT, "Comercial del Norte S.R.L.", None, None, None, None)
        )
        db.session().commit()
    answer = _upload(usuario, ("Sob_211003420017_2.xml", sup.envelope([sup.cfe(2)], idemisor=2)))
    page = BeautifulSoup(usuario.get(answer.headers["Location"]).data, "html.parser")
    warned = page.select_one(".flash-warning").get_text()
    assert (
        "1 aceptado(s)" in warned
        and f"DGI no lista un servicio web ni un correo de intercambio de {sup.SUPPLIER_RUT}" in warned
    )
    assert "se le responde al proveedor" not in warned


def test_in_english_an_unreadable_upload_says_no_one_gets_the_answer(usuario):
    token = BeautifulSoup(usuario.get("/").data, "html.parser").select_one("input[name=csrf_token]")["value"]
    usuario.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": token})
    form = BeautifulSoup(usuario.get("/recibidos/").data, "html.parser").select_one("form[data-dropzone]")
    assert "the supplier is told only if it can be known who sent it" in form.get_text()
    answer = _upload(usuario, ("no.xml", b"<no>"))
    page = BeautifulSoup(usuario.get(answer.headers["Location"]).data, "html.parser")
    said = page.select_one(".flash-error").get_text()
    assert "no.xml: rejected (S01 " in said and "who sent it could not be known, so no one gets the answer" in said
    assert "the supplier is told" not in said


def test_the_list_after_an_upload_with_a_refused_envelope_says_error_and_its_flash_takes_the_focus(usuario):
    """Sent as a full page (a file chosen, or dropped: the script submits the form), the upload redirects to the list;
    a refused envelope's flash was a plain banner, so the focus stayed on the body and the title said nothing,
    where every form sent back with errors says "Error: " in its title and has a summary the page's script
    focuses ([data-error-summary], static/js/app.js). The flash is now that summary."""
    answer = _upload(
        usuario, ("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1)])), ("no.xml", b"<no>"), ("pdf.xml", b"%PDF")
    )
    page = BeautifulSoup(usuario.get(answer.headers["Location"]).data, "html.parser")
    assert page.title.get_text() == "Error: Comprobantes recibidos · Portal CFE"
    refused, second = page.select(".flash-error")
    assert "no.xml" in refused.get_text() and "pdf.xml" in second.get_text()
    assert refused.has_attr("data-error-summary") and refused["tabindex"] == "-1" and refused["role"] == "alert"
    # Without script the first one takes the focus as the page opens; with it, app.js gives it the focus.
    assert refused.has_attr("autofocus") and not second.has_attr("autofocus")
    assert not page.select_one(".flash-success").has_attr("data-error-summary")

    answer = _upload(usuario, ("Sob_211003420017_2.xml", sup.envelope([sup.cfe(2)], idemisor=2)))
    page = BeautifulSoup(usuario.get(answer.headers["Location"]).data, "html.parser")
    assert page.title.get_text() == "Comprobantes recibidos · Portal CFE"
    assert page.select_one("[data-error-summary]") is None


def test_in_english_dgis_motives_of_a_refusal_are_english(usuario):
    """The code's text in English on the pages (DGI's Spanish stays in the signed answer): E04 "The electronic
    signature is not valid", S01 "The file is not in the required format"."""
    token = BeautifulSoup(usuario.get("/").data, "html.parser").select_one("input[name=csrf_token]")["value"]
    usuario.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": token})
    forged = sup.cfe(1).replace("Cajas de cartón".encode(), b"Cajas de madera")
    _, detail = _first_received(usuario, forged)
    assert "E04 · The electronic signature is not valid" in detail.get_text()
    assert "Firma electrónica no es válida" not in detail.get_text()


def test_a_booked_cfe_rejected_is_refused_in_the_form_with_the_motive_kept(usuario):
    """Booked then rejected, it stayed booked and the page no longer offered to take the mark off. The rejection is
    refused beside its button, the motive and its words kept, saying to take the mark off first."""
    link, detail = _first_received(usuario)
    token = detail.select_one("form[action$=contabilizar] input[name=csrf_token]")["value"]
    assert usuario.post(f"{link}/contabilizar", data={"csrf_token": token}).status_code == 303
    words = "No pedimos cinta, pedimos cajas."
    refused = usuario.post(f"{link}/rechazar", data={"csrf_token": token, "motivo": "E27", "detalle": words})
    assert refused.status_code == 409
    page = BeautifulSoup(refused.data, "html.parser")
    form = page.select_one("form[action$=rechazar]")
    assert "quitá la marca antes de rechazarlo" in form.select_one("[data-error-summary]").get_text()
    assert form.select_one("select[name=motivo] option[selected]")["value"] == "E27"
    assert form.select_one("textarea[name=detalle]").get_text().strip() == words
    assert page.select_one("form[action$=contabilizar] input[name=deshacer]") is not None  # the way forward
    unbooked = usuario.post(f"{link}/contabilizar", data={"csrf_token": token, "deshacer": "1"})
    assert unbooked.status_code == 303
    assert (
        usuario.post(f"{link}/rechazar", data={"csrf_token": token, "motivo": "E27", "detalle": words}).status_code
        == 303
    )
    page = BeautifulSoup(usuario.get(link).data, "html.parser")
    documents = [cell.get_text(" ", strip=True) for cell in page.select(".answers-table td[data-label=Documento]")]
    assert documents == ["ACKSobre al recibirlo", "ACKCFE al recibirlo", "ACKCFE decisión"]  # were "ACKCFE" twice
    decision = page.select_one("[data-testid=decision]").get_text()
    # The decision reads as taken, not as the form's instruction ("otro motivo (escribilo)").
    assert "E27 · Otro motivo acordado entre las partes — No pedimos cinta, pedimos cajas." in decision
    assert "escribilo" not in decision


def test_the_chosen_ones_are_booked_from_the_list_and_the_list_comes_back_as_it_was_filtered(usuario, signed_in):
    """An accountant marks a month's purchases as booked from the list, without opening each one: only the
    bookable rows can be chosen, the list comes back with its filters, and soporte is offered no boxes."""
    tampered = sup.cfe(3).replace(b"Cajas de cart", b"Cajas de CART")  # refused on arrival: never bookable
    envelope = sup.envelope([sup.cfe(1), sup.cfe(2), tampered])
    assert _upload(usuario, ("Sob_211003420017_1.xml", envelope)).status_code == 303
    page = BeautifulSoup(usuario.get("/recibidos/?moneda=UYU").data, "html.parser")
    form = page.select_one("form#book-many")
    assert form["action"] == "/recibidos/contabilizar?moneda=UYU"
    boxes = page.select("input[type=checkbox][form=book-many]")
    assert len(boxes) == 2 and all("Elegir e-Factura A-" in box["aria-label"] for box in boxes)
    token = form.select_one("input[name=csrf_token]")["value"]
    ids = [box["value"] for box in boxes]

    done = usuario.post(form["action"], data={"csrf_token": token, "ids": ids})
    assert done.status_code == 303 and done.headers["Location"] == "/recibidos/?moneda=UYU"
    after = BeautifulSoup(usuario.get(done.headers["Location"]).data, "html.parser")
    assert "Marcaste 2 comprobantes como contabilizados." in after.select_one(".flash-success").get_text()
    assert after.select("input[type=checkbox][form=book-many]") == [] and not after.select_one("form#book-many")
    assert len(after.select("#received-results tbody tr .badge-ok")) == 2  # "Contabilizado"

    none = usuario.post(form["action"], data={"csrf_token": token})
    landed = BeautifulSoup(usuario.get(none.headers["Location"]).data, "html.parser")
    assert "Elegí al menos un comprobante" in landed.select_one(".flash-error").get_text()
    for hostile in (["²"], ["99999999999999999999"]):  # a digit that is not 0-9; an id past any id: no 500
        refused = usuario.post(form["action"], data={"csrf_token": token, "ids": hostile})
        assert refused.status_code == 303, hostile
        assert BeautifulSoup(usuario.get(refused.headers["Location"]).data, "html.parser").select_one(".flash-error")
    soporte = BeautifulSoup(signed_in("soporte@demo.uy").get("/recibidos/").data, "html.parser")
    assert not soporte.select_one("form#book-many") and not soporte.select("input[type=checkbox]")


def test_a_chosen_one_that_cannot_be_booked_is_said_by_its_number(usuario, live_service):
    """Chosen in a list that has since changed (rejected in another tab): the others are booked, and it is named."""
    _upload(usuario, ("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1), sup.cfe(2)])))
    page = BeautifulSoup(usuario.get("/recibidos/").data, "html.parser")
    form = page.select_one("form#book-many")
    token = form.select_one("input[name=csrf_token]")["value"]
    ids = [box["value"] for box in page.select("input[type=checkbox][form=book-many]")]
    detail = BeautifulSoup(usuario.get(f"/recibidos/{ids[0]}").data, "html.parser")
    reject_token = detail.select_one("form[action$=rechazar] input[name=csrf_token]")["value"]
    rejected = usuario.post(f"/recibidos/{ids[0]}/rechazar", data={"csrf_token": reject_token, "motivo": "E21"})
    assert rejected.status_code == 303
    usuario.get(rejected.headers["Location"])  # its page, and the flash that says it
    done = usuario.post(form["action"], data={"csrf_token": token, "ids": ids})
    after = BeautifulSoup(usuario.get(done.headers["Location"]).data, "html.parser")
    assert "Marcaste 1 comprobante como contabilizado." in after.select_one(".flash-success").get_text()
    number = detail.select_one("h1").get_text().split(" · ")[0]  # "e-Factura A-2"
    errors = [flash.get_text().strip() for flash in after.select(".flash-error")]
    assert errors == [f"No se marcó {number}: No se puede contabilizar: el CFE está rechazado."], errors


def test_the_chosen_ones_are_rejected_with_one_motive_once_asked_and_each_one_not_rejected_is_named(usuario, signed_in):
    """Chosen in the list, asked for one motive (a dialog with script, a page of its own without) that says how
    many: each that can be is rejected and its supplier told; one already accepted is named with why; a motive that
    needs its words comes back with what was chosen and typed; sending the same form again rejects nothing twice;
    the list comes back as it was filtered."""
    _upload(usuario, ("Sob_211003420017_1.xml", sup.envelope([sup.cfe(1), sup.cfe(2), sup.cfe(3)])))
    page = BeautifulSoup(usuario.get("/recibidos/?moneda=UYU").data, "html.parser")
    ids = [box["value"] for box in page.select("input[type=checkbox][form=book-many]")]
    accepted = ids[-1]  # A-1, the oldest
    detail = BeautifulSoup(usuario.get(f"/recibidos/{accepted}").data, "html.parser")
    accept_token = detail.select_one("form[action$=aceptar] input[name=csrf_token]")["value"]
    assert usuario.post(f"/recibidos/{accepted}/aceptar", data={"csrf_token": accept_token}).status_code == 303

    page = BeautifulSoup(usuario.get("/recibidos/?moneda=UYU").data, "html.parser")
    chosen_form = page.select_one("form#book-many")
    ask = chosen_form.select_one("button[formaction]")
    assert ask.get_text() == "Rechazar los elegidos…" and ask["formaction"] == "/recibidos/rechazar/pregunta?moneda=UYU"
    assert ask["hx-post"] == ask["formaction"] and ask["hx-target"] == "#reject-many-slot"
    token = chosen_form.select_one("input[name=csrf_token]")["value"]

    in_dialog = usuario.post(ask["formaction"], data={"csrf_token": token, "ids": ids}, headers={"HX-Request": "true"})
    dialog = BeautifulSoup(in_dialog.data, "html.parser")
    assert dialog.select_one("dialog#reject-many[open][data-show-modal]") and not dialog.select_one("header")
    assert dialog.select_one("h3").get_text() == "¿Rechazar los 3 comprobantes elegidos?"
    assert dialog.select_one("button[data-close-dialog]")  # Cancelar closes the dialog

    asked = BeautifulSoup(usuario.post(ask["formaction"], data={"csrf_token": token, "ids": ids}).data, "html.parser")
    assert asked.select_one("h1").get_text() == "¿Rechazar los 3 comprobantes elegidos?"
    form = asked.select_one("main form[action]")
    assert form["action"] == "/recibidos/rechazar?moneda=UYU"
    assert [i["value"] for i in form.select("input[name=ids]")] == ids
    assert form.select_one("a[role=button]")["href"] == "/recibidos/?moneda=UYU"  # Cancelar, without script
    assert form.select_one("button[type=submit]").get_text() == "Rechazar 3 comprobantes"
    fields = {i["name"]: i["value"] for i in form.select("input[type=hidden]") if i["name"] != "ids"}
    assert set(fields) == {"csrf_token", "idempotency_key"}

    needs_words = usuario.post(form["action"], data={**fields, "ids": ids, "motivo": "E40"})
    assert needs_words.status_code == 422
    again = BeautifulSoup(needs_words.data, "html.parser")
    assert "E40" in again.select_one("#detalle-error").get_text()
    assert again.select_one("#motivo option[selected]")["value"] == "E40"
    assert [i["value"] for i in again.select("input[name=ids]")] == ids

    answer = {**fields, "ids": ids, "motivo": "E21", "detalle": "Llegaron mojadas"}
    done = usuario.post(form["action"], data=answer)
    assert done.status_code == 303 and done.headers["Location"] == "/recibidos/?moneda=UYU"
    after = BeautifulSoup(usuario.get(done.headers["Location"]).data, "html.parser")
    assert "Rechazaste 2 comprobantes; se le avisa a cada proveedor" in after.select_one(".flash-success").get_text()
    errors = [flash.get_text().strip() for flash in after.select(".flash-error")]
    assert len(errors) == 1 and errors[0].startswith("No se rechazó e-Factura A-1: Este CFE ya fue aceptado el ")
    twice = usuario.post(form["action"], data=answer)  # a second click, the browser sending the form again
    repeated = BeautifulSoup(usuario.get(twice.headers["Location"]).data, "html.parser")
    assert "Rechazaste 2 comprobantes" in repeated.select_one(".flash-success").get_text()  # the first one's outcome
    for received_id in ids[:2]:
        decided = BeautifulSoup(usuario.get(f"/recibidos/{received_id}").data, "html.parser")
        assert "E21" in decided.select_one("[data-testid=decision]").get_text()
        assert decided.get_text().count("ACKCFE") == 2  # on arrival, and the rejection: once

    none = usuario.post(ask["formaction"], data={"csrf_token": token})
    landed = BeautifulSoup(usuario.get(none.headers["Location"]).data, "html.parser")
    assert "Elegí al menos un comprobante para rechazar." in landed.select_one(".flash-error").get_text()
    soporte = signed_in("soporte@demo.uy")
    own = json.loads(BeautifulSoup(soporte.get("/recibidos/").data, "html.parser").select_one("main")["hx-headers"])
    for action in (ask["formaction"], form["action"]):
        assert soporte.post(action, data={**answer, "csrf_token": own["X-CSRFToken"]}).status_code == 403


def test_every_page_of_a_filtered_list_is_booked_at_once_once_asked_and_not_what_arrived_after(usuario, signed_in):
    """A month of purchases spans pages: the list offers to book all of them that match, counted over every page;
    asked first (a dialog, or a page of its own without script), it books those and not a CFE that arrived after
    the count, and the list comes back with its filters."""
    tampered = sup.cfe(4).replace(b"Cajas de cart", b"Cajas de CART")  # refused on arrival: never booked
    envelope = sup.envelope([sup.cfe(1), sup.cfe(2), sup.cfe(3), tampered])
    assert _upload(usuario, ("Sob_211003420017_1.xml", envelope)).status_code == 303
    page = BeautifulSoup(usuario.get("/recibidos/?moneda=UYU").data, "html.parser")
    offer = page.select_one("[data-testid=book-matching]")
    assert offer.get_text().strip() == "Marcar los 3 sin contabilizar"
    assert offer["href"] == "/recibidos/contabilizar-filtrados?moneda=UYU"
    dialog = page.select_one("dialog#book-matching")
    assert "¿Marcar como contabilizados los 3 comprobantes" in dialog.select_one("h3").get_text()
    form = dialog.select_one("form")
    asked = BeautifulSoup(usuario.get(offer["href"]).data, "html.parser")  # the question without script
    assert asked.select_one("h1").get_text() == dialog.select_one("h3").get_text()
    assert asked.select_one("main form")["action"] == form["action"] == offer["href"]
    counted = form.select_one("input[name=hasta]")["value"]
    later = ("Sob_211003420017_2.xml", sup.envelope([sup.cfe(5)], idemisor=2))
    assert _upload(usuario, later).status_code == 303
    usuario.get("/recibidos/")  # the page that says the upload's outcome

    token = form.select_one("input[name=csrf_token]")["value"]
    done = usuario.post(form["action"], data={"csrf_token": token, "hasta": counted})
    assert done.status_code == 303 and done.headers["Location"] == "/recibidos/?moneda=UYU"
    after = BeautifulSoup(usuario.get(done.headers["Location"]).data, "html.parser")
    assert "Marcaste 3 comprobantes como contabilizados." in after.select_one(".flash-success").get_text()
    assert after.select_one("[data-testid=book-matching]").get_text().strip() == "Marcar el 1 sin contabilizar"
    again = usuario.post(form["action"], data={"csrf_token": token, "hasta": counted})
    landed = BeautifulSoup(usuario.get(again.headers["Location"]).data, "html.parser")
    assert "No queda ninguno sin contabilizar" in landed.select_one(".flash-success").get_text()
    for hostile in ("", "²", "99999999999999999999"):  # taken out or changed by hand: said, never a 500
        refused = usuario.post(form["action"], data={"csrf_token": token, "hasta": hostile})
        assert refused.status_code == 303, hostile
        assert BeautifulSoup(usuario.get(refused.headers["Location"]).data, "html.parser").select_one(".flash-error")
    soporte = signed_in("soporte@demo.uy")
    assert not BeautifulSoup(soporte.get("/recibidos/").data, "html.parser").select_one("#book-matching")
    assert soporte.get("/recibidos/contabilizar-filtrados").status_code == 403


def test_the_signed_xmls_of_the_filtered_list_download_as_one_zip(usuario):
    envelope = sup.envelope([sup.cfe(1), sup.cfe(2)])
    _upload(usuario, ("Sob_211003420017_1.xml", envelope))
    page = BeautifulSoup(usuario.get("/recibidos/?numero=A-2").data, "html.parser")
    link = page.select_one("[data-testid=xml-download]")["href"]
    assert link == "/recibidos/recibidos-xml.zip?numero=A-2"
    with usuario.get(link) as download:
        assert download.status_code == 200 and download.mimetype == "application/zip" and download.is_streamed
        archive = zipfile.ZipFile(io.BytesIO(download.data))
    [name] = archive.namelist()
    signed = archive.read(name)  # the CFE byte for byte as the supplier's envelope carried it
    assert name == "211003420017_111_A-0000002.xml" and signed.startswith(b"<CFE") and signed in envelope


def test_a_purchase_in_dollars_shows_its_rate_and_its_total_in_pesos(usuario):
    """What the accountant books: a dollar invoice's rate as the supplier signed it, and its total in pesos as the
    purchases book carries it (the page showed the dollars only)."""
    dollars = {**sup.EFACTURA, "tpoMoneda": "USD", "tpoCambio": "40.125"}
    _link, in_pesos = _first_received(usuario, sup.cfe(1, body=dollars), sup.cfe(2))  # the newest first: A-2
    assert in_pesos.select_one("[data-testid=exchange-rate]") is None
    listed = BeautifulSoup(usuario.get("/recibidos/").data, "html.parser")
    page = BeautifulSoup(usuario.get(listed.select("#received-results tbody tr a")[1]["href"]).data, "html.parser")
    assert page.select_one("[data-testid=exchange-rate]").get_text(strip=True) == "40,125"
    # U$S 2.215,28 at 40,125: what the purchases book carries.
    assert page.select_one("[data-testid=total-in-pesos]").get_text(strip=True) == "$\xa088.888,11"


def test_the_mail_the_mailbox_could_not_receive_is_listed_with_whom_to_ask(usuario, live_service):
    empty = BeautifulSoup(usuario.get("/recibidos/correos-no-recibidos").data, "html.parser")
    assert "Ningún correo quedó sin recibir" in empty.select_one(".empty-state").get_text()
    with live_service.app.app_context(), db.write_transaction() as session:
        session.add(
            ProcessedMail(
                company_id=1,
                message_id="<grande@norte>",
                sha256="",
                uid=1,
                sender="facturas@norte.com.uy",
                outcome="aparte",
                reason="muy_grande",
                detail="para soporte",
                received_at=datetime.now(UTC),
            )
        )
    listed = BeautifulSoup(usuario.get("/recibidos/").data, "html.parser")
    link = listed.find("a", string="Correos del buzón que no se pudieron recibir")["href"]
    page = BeautifulSoup(usuario.get(link).data, "html.parser")
    [row] = page.select("[data-testid=unreceived-mail] tbody tr")
    cells = [cell.get_text(" ", strip=True) for cell in row.select("td")]
    assert cells[1:] == ["facturas@norte.com.uy", "Pesaba demasiado para leerlo"]
