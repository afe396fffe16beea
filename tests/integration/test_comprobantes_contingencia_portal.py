"""The portal's side of paper contingency receipts (CFC): the issuing form's "Comprobante de contingencia (papel)"
choice with the book's numbers left, keyed in and sent to DGI only; an observed one shows DGI's codes in words
and the times it was observed, and is corrected and sent again; the Empresa page counts used, voided and free
numbers per book and voids unused ones; the page that explains the two situations links to the form."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from portal.domain.cfe_types import CFC_TYPES
from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante.models import IssuedCfe
from portal.service.correo.models import MailSend
from portal.service.platform import db
from tests.integration.test_comprobantes_portal import RECEIPT_URL, efactura
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain
from tests.support.html import csrf, soup, text


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def book(signed_in):
    admin = signed_in("admin@demo.uy")
    today = today_montevideo()
    form = {
        "tipo_cfe": "211",
        "serie": "B",
        "desde": "1",
        "hasta": "50",
        "cae_id": "90261234567",
        "fecha_autorizacion": f"{today - timedelta(days=30):%d/%m/%Y}",
        "vencimiento": f"{today + timedelta(days=700):%d/%m/%Y}",
    }
    answer = admin.post("/empresa/contingencia", data={**form, "csrf_token": csrf(admin, "/empresa/contingencia")})
    assert answer.status_code == 303
    return admin


@pytest.fixture
def api_book(api_client, auth_headers):
    """book(tipo) -> registers a book of that CFC type, serie P, numbers 1-9, through the API."""

    def book(tipo: int) -> None:
        today = today_montevideo()
        body = {"tipoCFE": tipo, "serie": "P", "desde": 1, "hasta": 9, "caeId": f"902612{tipo:05d}"}  # one per type
        body |= {"fechaAutorizacion": f"{today - timedelta(days=30)}", "vencimiento": f"{today + timedelta(days=90)}"}
        answer = api_client.post("/api/v1/empresa/contingencia", json=body, headers=auth_headers("admin@demo.uy", 1))
        assert answer.status_code == 201, answer.json

    return book


def _paper(client, nro: str, **changes) -> dict:
    data = efactura(client)
    data.update(
        contingencia="y",
        cfc_serie="b",
        cfc_nro=nro,
        fch_emis=f"{today_montevideo() - timedelta(days=2):%d/%m/%Y}",
        **changes,
    )
    return data


def test_the_form_offers_the_paper_choice_with_the_books_numbers_left(signed_in, book):
    user = signed_in("usuario@demo.uy")
    page = soup(user.get("/comprobantes/nuevo?tipoCFE=111", follow_redirects=True))
    paper = page.find(attrs={"data-testid": "cfc-paper"})
    assert paper is not None and paper.summary.get_text(strip=True) == "Comprobante de contingencia (papel)"
    assert paper.find("input", attrs={"name": "cfc_serie"}) and paper.find("input", attrs={"name": "cfc_nro"})
    row = paper.find(attrs={"data-testid": "cfc-books"}).tbody.tr
    assert [c.get_text(strip=True) for c in row.find_all("td")][0:2] == ["B", "1–50"]
    assert row.find_all("td")[-1].get_text(strip=True) == "50"
    assert paper.find("a", href="/envios/contingencia") is not None
    export = soup(user.get("/comprobantes/nuevo?tipoCFE=121", follow_redirects=True))
    export_paper = export.find(attrs={"data-testid": "cfc-paper"})  # an export has its contingency type too (221)
    assert export_paper is not None
    assert "221" in export_paper.find(attrs={"data-testid": "cfc-no-books"}).get_text()


def test_addresses_typed_beside_a_paper_cfc_are_refused_not_dropped(signed_in, book, live_service):
    """A paper receipt goes to DGI only: an address typed for the customer is answered on its field, with
    everything typed kept, and nothing is issued until the person chooses."""
    user = signed_in("usuario@demo.uy")
    with live_service.app.app_context():
        before = db.new_session().scalar(select(func.count()).select_from(IssuedCfe))
    answer = user.post("/comprobantes/nuevo", data=_paper(user, "8", enviar_a="cliente@example.com"))
    assert answer.status_code == 422
    page = soup(answer)
    assert "va solo a DGI" in page.select_one("#enviar_a-error").get_text()
    # The error summary, which takes the focus, leads to the field at the form's foot.
    link = page.select_one("[data-error-summary] a[href='#enviar_a']")
    assert link.get_text().startswith("Enviar por correo a: Un comprobante de contingencia va solo a DGI")
    assert page.find("input", {"name": "enviar_a"})["value"] == "cliente@example.com"
    assert page.find("input", {"name": "cfc_nro"})["value"] == "8"
    with live_service.app.app_context():
        assert db.new_session().scalar(select(func.count()).select_from(IssuedCfe)) == before


def test_a_paper_cfc_is_keyed_in_observed_and_corrected_in_the_portal(signed_in, book, live_service):
    user = signed_in("usuario@demo.uy")
    data = _paper(user, "7", rzn_soc_recep=f"{REJECT_MARKER}E05")
    answer = user.post("/comprobantes/nuevo", data=data)
    assert answer.status_code == 303, answer.get_data(as_text=True)[:2000]
    receipt_id = RECEIPT_URL.match(answer.headers["Location"])[1]
    drain(live_service.app)
    page = soup(user.get(f"/comprobantes/{receipt_id}"))
    assert "e-Factura de contingencia" in page.h1.get_text()
    panel = page.find(attrs={"data-testid": "dgi-panel"})
    assert panel["data-state"] == "observado"
    assert "C05" in panel.find(attrs={"data-testid": "dgi-reasons"}).get_text()
    assert "1 vez" in panel.find(attrs={"data-testid": "dgi-observations"}).get_text()
    with live_service.app.app_context():  # a paper receipt is never e-mailed to the customer
        assert db.new_session().scalar(select(func.count()).select_from(MailSend)) == 0
    correct = panel.find("a", attrs={"data-testid": "correct-contingency"})
    form = soup(user.get(correct["href"], follow_redirects=True))
    values = {i["name"]: i.get("value", "") for i in form.select("form.receipt-form input") if i.get("name")}
    assert (values["cfc_serie"], values["cfc_nro"], values["corrige_cfc"]) == ("B", "7", receipt_id)
    assert values["fch_emis"] == f"{today_montevideo() - timedelta(days=2):%d/%m/%Y}"
    fixed = _paper(user, "7")
    fixed.update(corrige_cfc=receipt_id, csrf_token=values["csrf_token"])
    answer = user.post("/comprobantes/nuevo", data=fixed)
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/comprobantes/{receipt_id}")
    drain(live_service.app)
    panel = soup(user.get(f"/comprobantes/{receipt_id}")).find(attrs={"data-testid": "dgi-panel"})
    assert panel["data-state"] == "aceptado"
    assert "1 vez" in panel.find(attrs={"data-testid": "dgi-observations"}).get_text()
    assert panel.find(attrs={"data-testid": "correct-contingency"}) is None


def test_a_refused_paper_lands_on_its_field(signed_in, book):
    user = signed_in("usuario@demo.uy")
    answer = user.post("/comprobantes/nuevo", data=_paper(user, "77"))
    assert answer.status_code == 422
    assert "Ninguna libreta de contingencia" in soup(answer).find(id="cfc_nro-error").get_text()


def test_the_empresa_page_counts_and_voids_paper_numbers(signed_in, book):
    user = signed_in("usuario@demo.uy")
    assert user.post("/comprobantes/nuevo", data=_paper(user, "3")).status_code == 303
    admin = book
    token = csrf(admin, "/empresa/contingencia")
    form = {"anular-libreta": "", "anular-desde": "41", "anular-hasta": "50", "anular-motivo": "Papeles rotos"}
    page = soup(admin.get("/empresa/contingencia"))
    form["anular-libreta"] = page.find("select", attrs={"name": "anular-libreta"}).option["value"]
    token = page.find("input", attrs={"name": "anular-csrf_token"})["value"]
    used = admin.post("/empresa/contingencia/anular", data={**form, "anular-desde": "1", "anular-csrf_token": token})
    assert used.status_code == 422 and "ya ingresados o anulados" in used.get_data(as_text=True)
    answer = admin.post("/empresa/contingencia/anular", data={**form, "anular-csrf_token": token})
    assert answer.status_code == 303
    row = soup(admin.get("/empresa/contingencia")).find(attrs={"data-testid": "contingency-book"})
    counts = [row.find(attrs={"data-testid": f"book-{k}"}).get_text(strip=True) for k in ("used", "voided", "free")]
    assert counts == ["1", "10", "39"]


def _void_in_the_only_book(admin, first: str, last: str, reason: str) -> None:
    """Void paper numbers of the company's one book through Empresa › Contingencia."""
    page = soup(admin.get("/empresa/contingencia"))
    form = {"anular-desde": first, "anular-hasta": last, "anular-motivo": reason}
    form["anular-libreta"] = page.find("select", attrs={"name": "anular-libreta"}).option["value"]
    form["anular-csrf_token"] = page.find("input", attrs={"name": "anular-csrf_token"})["value"]
    assert admin.post("/empresa/contingencia/anular", data=form).status_code == 303


def test_one_paper_number_voided_is_said_as_one(book):
    admin = book
    _void_in_the_only_book(admin, "7", "7", "Papel roto")
    said = soup(admin.get("/empresa/contingencia")).get_text(" ", strip=True)
    assert "Anulaste el número 7 de la libreta 211 e-Factura de contingencia · B 1–50." in said


def test_envios_never_says_a_paper_void_goes_in_a_daily_report(book, api_client, auth_headers):
    """DGI's daily report has no place for voided paper numbers ("No corresponde informar los CFC anulados"), yet
    "Envíos a DGI" showed them under "En el reporte del" with a day, as if DGI were told."""
    admin = book
    _void_in_the_only_book(admin, "45", "50", "Hojas rotas")
    headers = auth_headers("admin@demo.uy", 1)
    body = {"tipoCFE": 111, "cantidad": 2, "motivo": "Error de impresora"}
    assert api_client.post("/api/v1/envios/anulaciones", json=body, headers=headers).status_code == 201

    rows = soup(admin.get("/envios/")).select("[data-testid=voided] tbody tr")
    reported = {text(row.td): text(row.find("td", attrs={"data-label": "En el reporte del"})) for row in rows}
    assert reported == {
        "e-Factura de contingencia B 45–50": "No va en el reporte: libreta de papel",
        "e-Factura A 1–2": f"{today_montevideo():%d/%m/%Y}",
    }


def test_with_two_books_the_void_form_waits_for_one_to_be_chosen_and_says_which_it_voided(signed_in, book, api_book):
    """Voiding cannot be undone: with two books none is chosen beforehand (the first one was, and a person who
    typed numbers for the other book voided them in the first), and the confirmation names the book."""
    api_book(201)
    admin = book
    page = soup(admin.get("/empresa/contingencia"))
    options = page.find("select", attrs={"name": "anular-libreta"}).find_all("option")
    assert (options[0]["value"], options[0].get_text(strip=True)) == ("", "Elegí la libreta")
    assert [o.get_text(strip=True) for o in options if o.has_attr("selected")] in ([], ["Elegí la libreta"])
    token = page.find("input", attrs={"name": "anular-csrf_token"})["value"]
    form = {"anular-desde": "8", "anular-hasta": "9", "anular-motivo": "Papeles rotos", "anular-csrf_token": token}
    unchosen = admin.post("/empresa/contingencia/anular", data={**form, "anular-libreta": ""})
    assert unchosen.status_code == 422
    assert "Elegí la libreta." in soup(unchosen).find(id="anular-libreta-error").get_text()
    ticket_book = next(o["value"] for o in options if o.get_text(strip=True).startswith("201 "))
    voided = admin.post("/empresa/contingencia/anular", data={**form, "anular-libreta": ticket_book})
    assert voided.status_code == 303
    said = admin.get("/empresa/contingencia").get_data(as_text=True)
    assert "Anulaste los números 8 a 9 de la libreta 201 e-Ticket de contingencia · P 1–9." in said
    rows = soup(admin.get("/empresa/contingencia")).find_all(attrs={"data-testid": "contingency-book"})
    voided_by_book = {
        r.th.get_text(" ", strip=True)[:3]: r.find(attrs={"data-testid": "book-voided"}).get_text() for r in rows
    }
    assert voided_by_book == {"201": "2", "211": "0"}


def test_the_page_that_explains_the_two_situations_links_to_the_form(signed_in):
    page = soup(signed_in("usuario@demo.uy").get("/envios/contingencia"))
    link = page.find("a", attrs={"data-testid": "key-in-paper"})
    assert link["href"] == "/comprobantes/nuevo"


def test_a_keyed_in_cfc_takes_its_notes_and_its_balance_from_the_receipt_page(signed_in, book):
    from tests.integration.test_comprobantes_portal import form_values, issue

    user = signed_in("usuario@demo.uy")
    original = issue(user, _paper(user, "21"))  # 10 h of Consultoría at 1.500,00, on paper
    page = soup(user.get(f"/comprobantes/{original}"))
    assert page.find("button", string="Anular con nota de crédito") is not None
    assert page.find("a", string="Nota de débito") is not None
    link = page.find("a", string="Nota de crédito parcial")["href"]
    form = soup(user.get(link, follow_redirects=True))
    partial = form_values(form)
    assert (partial["tipo_cfe"], partial["ref_tipo"], partial["ref_serie"], partial["ref_nro"]) == (
        "112",
        "211",
        "B",
        "21",
    )
    issue(user, {**partial, "ref_razon": "Devolución", "lines-0-cantidad": "3"})

    page = soup(user.get(f"/comprobantes/{original}"))
    assert page.find("button", string="Anular el saldo") is not None
    form = form_values(page, "#cancel-dialog form")
    answer = user.post(f"/comprobantes/{original}/anular-saldo", data={**form, "razon": "Fin del contrato"})
    assert answer.status_code == 303
    note = soup(user.get(answer.headers["Location"]))
    assert text(note.h1).endswith("de e-Factura de contingencia B-0000021")
    lines = [td.get_text(" ", strip=True) for td in note.select("[data-testid=receipt-lines] tbody td")]
    assert lines[:2] == ["Consultoría", "7 h"]  # the 10 hours less the 3 already credited
    after = soup(user.get(f"/comprobantes/{original}"))
    assert "Anulado" in after.select_one("[data-testid=creditable-balance]").get_text()
    assert after.find("button", string="Anular el saldo") is None

    listed = soup(user.get("/comprobantes/?tipo=211"))
    assert listed.select_one("#tipo option[selected]")["value"] == "211"
    [row] = listed.select(".receipt-list tbody tr")
    assert row.a["href"] == f"/comprobantes/{original}"


@pytest.mark.parametrize("tipo", sorted(CFC_TYPES))
def test_the_empresa_page_registers_a_book_of_every_cfc_type(signed_in, tipo):
    admin = signed_in("admin@demo.uy")
    page = soup(admin.get("/empresa/contingencia"))
    offered = {o["value"] for o in page.find("select", attrs={"name": "tipo_cfe"}).find_all("option") if o["value"]}
    assert offered == {str(t) for t in CFC_TYPES}
    english = soup(admin.get("/empresa/contingencia", headers={"Accept-Language": "en"}))
    label = english.find("select", attrs={"name": "tipo_cfe"}).find("option", value=str(tipo)).get_text()
    assert label.startswith(f"{tipo} Contingency "), label
    today = today_montevideo()
    form = {
        "tipo_cfe": str(tipo),
        "serie": "X",
        "desde": "1",
        "hasta": "9",
        "cae_id": "90261234567",
        "fecha_autorizacion": f"{today - timedelta(days=30):%d/%m/%Y}",
        "vencimiento": f"{today + timedelta(days=700):%d/%m/%Y}",
    }
    answer = admin.post("/empresa/contingencia", data={**form, "csrf_token": csrf(admin, "/empresa/contingencia")})
    assert answer.status_code == 303, answer.get_data(as_text=True)[:2000]
    row = soup(admin.get("/empresa/contingencia")).find(attrs={"data-testid": "contingency-book"})
    assert str(tipo) in row.get_text(" ", strip=True)


def test_an_export_paper_receipt_is_keyed_in_from_the_export_form_as_a_221(signed_in, live_service):
    from tests.integration.test_comprobantes_export_portal import export_form
    from tests.integration.test_comprobantes_portal import issue

    admin = signed_in("admin@demo.uy")
    today = today_montevideo()
    form = {
        "tipo_cfe": "221",
        "serie": "E",
        "desde": "1",
        "hasta": "50",
        "cae_id": "90261234567",
        "fecha_autorizacion": f"{today - timedelta(days=30):%d/%m/%Y}",
        "vencimiento": f"{today + timedelta(days=700):%d/%m/%Y}",
    }
    answer = admin.post("/empresa/contingencia", data={**form, "csrf_token": csrf(admin, "/empresa/contingencia")})
    assert answer.status_code == 303
    user = signed_in("usuario@demo.uy")
    data = export_form(user)
    data.update(contingencia="y", cfc_serie="e", cfc_nro="4", fch_emis=f"{today - timedelta(days=1):%d/%m/%Y}")
    receipt_id = issue(user, data)
    page = soup(user.get(f"/comprobantes/{receipt_id}"))
    assert "e-Factura de exportación de contingencia" in page.h1.get_text()
    assert "E-0000004" in page.h1.get_text()
    drain(live_service.app)
    panel = soup(user.get(f"/comprobantes/{receipt_id}")).find(attrs={"data-testid": "dgi-panel"})
    assert panel["data-state"] == "aceptado"
    assert page.find("button", string="Anular con nota de crédito") is not None  # a 122 credits it


@pytest.mark.parametrize("tipo", sorted(CFC_TYPES))
def test_every_types_form_offers_its_paper_choice_with_its_books(signed_in, api_book, tipo):
    api_book(tipo)
    user = signed_in("usuario@demo.uy")
    page = soup(user.get(f"/comprobantes/nuevo?tipoCFE={tipo - 100}", follow_redirects=True))
    paper = page.find(attrs={"data-testid": "cfc-paper"})
    assert paper is not None, tipo
    assert f"tipo {tipo}" in paper.get_text(" ", strip=True)
    row = paper.find(attrs={"data-testid": "cfc-books"}).tbody.tr
    assert [c.get_text(strip=True) for c in row.find_all("td")][0:2] == ["P", "1–9"]


# What each family's form needs besides its type (the data the export portal tests issue with).
FAMILY_FORMS = {
    "151": {
        "incluye_imeba": "y",
        "tipo_doc_recep": "3",
        "doc_recep": "1.335.321-4",
        "rzn_soc_recep": "Juan Pérez",
        "dir_recep": "Ruta 5 km 120",
        "lines-0-ind_fact": "15",
        "lines-0-nom_item": "Novillos",
        "lines-0-cantidad": "12",
        "lines-0-precio_unitario": "1850",
    },
    "141": {
        "tipo_doc_recep": "2",
        "doc_recep": "214844360018",
        "rzn_soc_recep": "DGI",
        "dir_recep": "Fernandez Crespo 1534",
        "ciudad_recep": "Montevideo",
        "lines-0-nom_item": "Masas",
        "lines-0-cantidad": "20",
        "lines-0-precio_unitario": "230",
        "tipo_doc_mdte": "2",
        "doc_mdte": "21-900009-001-1",
        "nombre_mdte": "DGI PRUEBA",
    },
    "124": {
        "tpo_moneda": "USD",
        "tpo_cambio": "39,250",
        "clau_venta": "FOB",
        "via_transp": "1",
        "tipo_doc_recep": "7",
        "cod_pais_recep": "BR",
        "doc_recep": "12.345.678/0001-90",
        "rzn_soc_recep": "Importadora Sul Ltda.",
        "dir_recep": "Rua das Flores 100",
        "pais_recep": "Brasil",
        "lines-0-nom_item": "Lana lavada",
        "lines-0-cantidad": "2000",
        "lines-0-uni_med": "kg",
        "lines-0-precio_unitario": "6,10",
    },
}


@pytest.mark.parametrize("tipo", sorted(FAMILY_FORMS))
def test_each_familys_paper_receipt_is_keyed_in_from_its_form(signed_in, api_book, live_service, tipo):
    from portal.domain.cfe_types import CFC_NAMES
    from tests.integration.test_comprobantes_export_portal import _typed
    from tests.integration.test_comprobantes_portal import issue

    cfc = int(tipo) + 100
    api_book(cfc)
    user = signed_in("usuario@demo.uy")
    data = {**_typed(user, tipo), **FAMILY_FORMS[tipo]}
    data.pop("mnt_bruto", None)
    data.update(contingencia="y", cfc_serie="P", cfc_nro="2", fch_emis=f"{today_montevideo():%d/%m/%Y}")
    receipt_id = issue(user, data)
    title = soup(user.get(f"/comprobantes/{receipt_id}")).h1.get_text(" ", strip=True)
    assert title.endswith("de contingencia P-0000002"), title
    drain(live_service.app)
    panel = soup(user.get(f"/comprobantes/{receipt_id}")).find(attrs={"data-testid": "dgi-panel"})
    assert panel["data-state"] == "aceptado", CFC_NAMES[cfc]


def test_a_paper_cfc_to_an_electronic_receiver_says_why_it_is_not_exchanged(signed_in, book, live_service):
    """A paper receipt goes to DGI only: the receipt page's exchange channel said "El receptor no es emisor
    electrónico" of Comercial del Norte, which is one (and gets the company's electronic receipts)."""
    user = signed_in("usuario@demo.uy")
    data = _paper(user, "9", tipo_doc_recep="2", doc_recep="211003420017", rzn_soc_recep="Comercial del Norte S.R.L.")
    answer = user.post("/comprobantes/nuevo", data=data)
    assert answer.status_code == 303, answer.get_data(as_text=True)[:2000]
    page = soup(user.get(answer.headers["Location"]))
    exchange = page.select_one("[data-testid=channel-exchange]")
    assert exchange.select_one("[data-testid=exchange-none]") is None
    assert exchange.select_one("[data-testid=exchange-cfc]").get_text(" ", strip=True) == (
        "Un comprobante de contingencia no va al receptor: ya tiene el papel."
    )
