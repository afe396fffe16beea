"""The portal's customers and products: lists with live search and pages, a customer's card with its balance,
the edit forms keeping what was typed on an error, a price list import that says what is wrong in each row,
and the role rules (soporte reads; usuario and admin act)."""

from __future__ import annotations

import io
import uuid

from portal.client import CfeClient
from portal.client.cfe import CfeRequest
from tests.support import cfe_bodies as bodies
from tests.support.html import csrf, soup


def _issue(live_service, live_token_for, body: dict):
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    return api.issue_receipt(CfeRequest.from_json(body), idempotency_key=uuid.uuid4().hex)


def test_a_receivers_card_shows_its_balance_and_takes_an_edit(signed_in, live_service, live_token_for):
    factura = bodies.body(bodies.EFACTURA)
    factura["fmaPago"] = 2
    receipt = _issue(live_service, live_token_for, factura)
    portal = signed_in("usuario@demo.uy")
    listed = soup(portal.get("/clientes/", query_string={"q": "direccion"}))
    link = listed.find(attrs={"data-testid": "customer-results"}).find("a")
    assert link.get_text(strip=True) == "DIRECCION GENERAL IMPOSITIVA"
    card = portal.get(link["href"])
    assert card.status_code == 200, card.get_data(as_text=True)[-3000:]
    page = soup(card)
    balance = page.find(attrs={"data-testid": "customer-balance"}).get_text(" ", strip=True)
    assert "1 comprobante" in balance
    assert receipt.id in str(page.find(attrs={"data-testid": "customer-receipts"}))
    token = csrf(portal, link["href"])
    wrong = portal.post(
        link["href"], data={"csrf_token": token, "nombre": "DGI", "correo": "no", "moneda": "UYU", "forma_pago": "2"}
    )
    assert wrong.status_code == 422 and soup(wrong).find("input", id="correo")["value"] == "no"  # kept as typed
    saved = portal.post(
        link["href"],
        data={
            "csrf_token": token,
            "nombre": "DGI",
            "correo": "pagos@dgi.gub.uy",
            "moneda": "UYU",
            "forma_pago": "2",
            "dias_credito": "30",
        },
    )
    assert saved.status_code in (302, 303)
    assert "pagos@dgi.gub.uy" in portal.get(link["href"]).get_data(as_text=True)


def test_soporte_reads_but_cannot_change(signed_in, live_service, live_token_for):
    _issue(live_service, live_token_for, bodies.body(bodies.EFACTURA))
    portal = signed_in("soporte@demo.uy")
    listed = soup(portal.get("/clientes/"))
    assert listed.find("a", string="Nuevo cliente") is None
    href = listed.find(attrs={"data-testid": "customer-results"}).find("a")["href"]
    card = soup(portal.get(href))
    assert card.find("form", id="customer-form") is None and card.find(attrs={"data-testid": "customer-facts"})
    assert portal.get("/clientes/nuevo").status_code == 403
    assert portal.get("/productos/nuevo").status_code == 403
    assert portal.get("/productos/importar").status_code == 403


def test_products_are_added_found_and_imported_whole(signed_in):
    portal = signed_in("usuario@demo.uy")
    token = csrf(portal, "/productos/nuevo")
    form = {
        "csrf_token": token,
        "codigo": "CAF-1",
        "nombre": "Café en grano",
        "precio": "1.500,50",
        "indicador": "3",
        "moneda": "UYU",
    }
    assert portal.post("/productos/nuevo", data=form).status_code in (302, 303)
    found = soup(portal.get("/productos/", query_string={"q": "grano"}))
    assert "CAF-1" in found.find(attrs={"data-testid": "product-results"}).get_text()
    assert "1.500,50" in found.find(attrs={"data-testid": "product-results"}).get_text()
    bad = io.BytesIO(b"codigo;nombre;precio\nA;Uno;diez\n")
    refused = portal.post(
        "/productos/importar",
        data={"csrf_token": csrf(portal, "/productos/importar"), "archivo": (bad, "lista.csv")},
        content_type="multipart/form-data",
    )
    assert refused.status_code == 422
    problems = soup(refused).find(attrs={"data-testid": "import-problems"}).get_text(" ", strip=True)
    assert "Fila 2, columna precio" in problems and "no es un precio" in problems
    good = io.BytesIO(b"codigo;nombre;precio\nA;Uno;10\nB;Dos;20,5\n")
    imported = portal.post(
        "/productos/importar",
        data={"csrf_token": csrf(portal, "/productos/importar"), "archivo": (good, "lista.csv")},
        content_type="multipart/form-data",
    )
    assert imported.status_code in (302, 303)
    assert {"A", "B", "CAF-1"} <= {a.get_text(strip=True) for a in soup(portal.get("/productos/")).select("tbody a")}


def test_a_code_or_document_already_taken_is_said_beside_it_and_what_was_typed_is_kept(signed_in):
    """The service's 409 (codigo_existente, cliente_existente) is the form's error, not the portal's error page."""
    portal = signed_in("usuario@demo.uy")
    product = {"codigo": "CAF-1", "nombre": "Café", "precio": "10", "indicador": "3", "moneda": "UYU"}
    first = portal.post("/productos/nuevo", data={"csrf_token": csrf(portal, "/productos/nuevo"), **product})
    assert first.status_code in (302, 303)
    again = portal.post(
        "/productos/nuevo",
        data={"csrf_token": csrf(portal, "/productos/nuevo"), **product, "nombre": "Café molido"},
    )
    assert again.status_code == 422
    page = soup(again)
    assert page.find("input", id="nombre")["value"] == "Café molido"
    assert "Ya hay un producto con el código CAF-1" in page.find("input", id="codigo").find_parent("div").get_text()
    other = portal.post(
        "/productos/nuevo",
        data={"csrf_token": csrf(portal, "/productos/nuevo"), **product, "codigo": "CAF-2"},
    )
    assert other.status_code in (302, 303)
    listed = soup(portal.get("/productos/", query_string={"q": "CAF-2"}))
    edit_url = listed.find(attrs={"data-testid": "product-results"}).find("a")["href"]
    renamed = portal.post(edit_url, data={"csrf_token": csrf(portal, edit_url), **product, "precio": "12"})
    assert renamed.status_code == 422 and soup(renamed).find("input", id="precio")["value"] == "12"
    customer = {"tipo_documento": "2", "documento": "211003420017", "nombre": "Arapey", "pais": "UY", "moneda": "UYU"}
    customer["forma_pago"] = "1"
    made = portal.post("/clientes/nuevo", data={"csrf_token": csrf(portal, "/clientes/nuevo"), **customer})
    assert made.status_code in (302, 303), made.get_data(as_text=True)[-2000:]
    twice = portal.post(
        "/clientes/nuevo", data={"csrf_token": csrf(portal, "/clientes/nuevo"), **customer, "nombre": "Arapey SRL"}
    )
    assert twice.status_code == 422
    page = soup(twice)
    assert page.find("input", id="nombre")["value"] == "Arapey SRL"
    assert "Ya hay un cliente con ese documento" in page.find("input", id="documento").find_parent("div").get_text()


def test_an_import_that_meets_a_code_added_at_the_same_moment_says_so_on_its_page(signed_in, monkeypatch):
    """The service's 409 (another user added one of the list's codes meanwhile) is said on the import page, with
    a way forward, not the portal's error page."""
    from portal.service.productos import catalog
    from portal.service.productos.models import Product

    apply = catalog.apply_price_list

    def another_user_first(session, company_id, products):
        counted = apply(session, company_id, products)
        session.add(Product(company_id=company_id, **dict(products[0], name="Otra"), search_name="otra"))
        return counted

    monkeypatch.setattr(catalog, "apply_price_list", another_user_first)
    portal = signed_in("usuario@demo.uy")
    answer = portal.post(
        "/productos/importar",
        data={
            "csrf_token": csrf(portal, "/productos/importar"),
            "archivo": (io.BytesIO(b"codigo;nombre;precio\nA;Uno;10\n"), "lista.csv"),
        },
        content_type="multipart/form-data",
    )
    assert answer.status_code == 422
    assert "no se importó nada; probá de nuevo" in " ".join(soup(answer).get_text(" ").split())


def test_a_form_sent_back_with_errors_says_error_once_in_the_title(signed_in, live_service, live_token_for):
    """The page's title says "Error: " once when a customer, product or price-list form comes back with errors
    (base.html adds it to every 422): these pages added it a second time ("Error: Error: Nuevo cliente")."""
    _issue(live_service, live_token_for, bodies.body(bodies.EFACTURA))
    portal = signed_in("usuario@demo.uy")
    card_url = soup(portal.get("/clientes/")).find(attrs={"data-testid": "customer-results"}).find("a")["href"]
    sent = {
        "/clientes/nuevo": {"tipo_documento": "2", "documento": "1", "nombre": "", "pais": "UY"},
        "/productos/nuevo": {"codigo": "", "precio": "diez"},
        card_url: {"nombre": "DGI", "correo": "no", "moneda": "UYU", "forma_pago": "2"},
    }
    for url, fields in sent.items():
        answer = portal.post(url, data={"csrf_token": csrf(portal, url), **fields})
        assert answer.status_code == 422, url
        assert (
            soup(answer).title.get_text().startswith("Error: ") and "Error: Error" not in soup(answer).title.get_text()
        )
    refused = portal.post(
        "/productos/importar",
        data={
            "csrf_token": csrf(portal, "/productos/importar"),
            "archivo": (io.BytesIO(b"codigo;precio\nA;x\n"), "l.csv"),
        },
        content_type="multipart/form-data",
    )
    assert refused.status_code == 422
    assert soup(refused).title.get_text() == "Error: Importar lista de precios · Portal CFE"


def test_a_form_sent_by_htmx_with_errors_comes_back_with_them_not_the_error_page(
    signed_in, live_service, live_token_for
):
    """With JavaScript on, the customer and product forms are sent by htmx and answered with the form alone (its
    block): the block used macros and a variable the page set outside it, so every mistake a person made was
    answered with "Algo salió mal" (500) and what they typed was gone."""
    _issue(live_service, live_token_for, bodies.body(bodies.EFACTURA))
    portal = signed_in("usuario@demo.uy")
    card_url = soup(portal.get("/clientes/")).find(attrs={"data-testid": "customer-results"}).find("a")["href"]
    customer = {"tipo_documento": "2", "documento": "211003420017", "pais": "UY", "nombre": "Arapey", "moneda": "UYU"}
    product = {"codigo": "CAF-1", "nombre": "Café", "precio": "diez", "indicador": "3", "moneda": "UYU"}
    sent = {
        "/clientes/nuevo": ({**customer, "forma_pago": "1", "correo": "no"}, "correo", "no"),
        "/productos/nuevo": (product, "precio", "diez"),
        card_url: ({"nombre": "DGI", "correo": "no", "moneda": "UYU", "forma_pago": "2"}, "correo", "no"),
    }
    for url, (fields, wrong, typed) in sent.items():
        answer = portal.post(url, data={"csrf_token": csrf(portal, url), **fields}, headers={"HX-Request": "true"})
        assert answer.status_code == 422, (url, answer.get_data(as_text=True)[:300])
        form = soup(answer).find("form")
        assert form.find("input", id=wrong)["value"] == typed, url
        assert form.find("input", id=wrong).get("aria-invalid") == "true", (url, str(form.find("input", id=wrong)))
        assert form.find("title") is None  # the form alone, not the page


def test_a_refused_price_list_names_each_row_and_column_in_words(signed_in):
    """The rows a price list was refused for were named by the service's JSON path ("filas[2].precio",
    "filas[0].*"), in English pages too; a person reads the row of their spreadsheet and the column's name."""
    portal = signed_in("usuario@demo.uy")

    def refused(content: bytes) -> list[str]:
        answer = portal.post(
            "/productos/importar",
            data={"csrf_token": csrf(portal, "/productos/importar"), "archivo": (io.BytesIO(content), "lista.csv")},
            content_type="multipart/form-data",
        )
        assert answer.status_code == 422
        rows = soup(answer).find(attrs={"data-testid": "import-problems"}).select("tbody tr")
        return [row.find("td").get_text(strip=True) for row in rows]

    assert refused(b"codigo;nombre;precio\nA;Uno;diez\nB;;1\n") == ["Fila 2, columna precio", "Fila 3, columna nombre"]
    assert refused(b"codigo;precio\nA;1\n") == ["Fila 1"]  # the header: a column missing
    assert refused("codigo;nombre;precio\nA;Ñandú;1\n".encode("latin-1")) == ["El archivo"]
    portal.post("/idioma", data={"csrf_token": csrf(portal, "/"), "lang": "en"})
    assert refused(b"codigo;nombre;precio\nA;Uno;diez\n") == ["Row 2, column precio"]
    assert refused("codigo;nombre;precio\nA;Ñandú;1\n".encode("latin-1")) == ["The file"]


def test_a_document_with_a_wrong_check_digit_is_said_beside_it(signed_in):
    portal = signed_in("usuario@demo.uy")
    customer = {"tipo_documento": "2", "documento": "211003420018", "pais": "UY", "nombre": "Arapey"}
    answer = portal.post(
        "/clientes/nuevo",
        data={"csrf_token": csrf(portal, "/clientes/nuevo"), **customer, "moneda": "UYU", "forma_pago": "1"},
    )
    assert answer.status_code == 422
    page = soup(answer)
    assert page.find(attrs={"data-error-summary": True}) is None
    assert "dígito verificador" in page.find(id="documento-error").get_text()
    assert page.find("input", id="documento")["value"] == "211003420018"


def test_removing_a_product_asks_first_and_without_javascript_on_a_page_of_its_own(signed_in):
    """The button "Quitar del catálogo" removed the product at one click; it now asks, as deleting a webhook
    does: a dialog with script, and without it a confirmation page (the opener is a GET form to it)."""
    portal = signed_in("usuario@demo.uy")
    form = {"csrf_token": csrf(portal, "/productos/nuevo"), "codigo": "TE-1", "nombre": "Té verde", "precio": "90"}
    form |= {"indicador": "3", "moneda": "UYU"}
    assert portal.post("/productos/nuevo", data=form).status_code in (302, 303)
    link = soup(portal.get("/productos/", query_string={"q": "TE-1"})).select_one("tbody a")["href"]
    page = soup(portal.get(link))
    opener = page.find("button", string="Quitar del catálogo")
    assert opener["type"] == "submit" and opener["data-open-dialog"] == "remove-product"
    assert opener.find_parent("form")["method"].lower() == "get"  # it never removes by itself
    dialog = page.find("dialog", id="remove-product")
    assert dialog["aria-labelledby"] and dialog.find(id=dialog["aria-labelledby"]).get_text(strip=True) == (
        "¿Quitar «Té verde» del catálogo?"
    )
    asked = portal.get(opener.find_parent("form")["action"])
    assert asked.status_code == 200
    confirm = soup(asked)
    assert confirm.h1.get_text(strip=True) == "¿Quitar «Té verde» del catálogo?"
    assert confirm.find("a", string="Cancelar")["href"] == link
    assert "TE-1" in soup(portal.get("/productos/")).get_text()  # asking removed nothing
    action = confirm.find("button", string="Quitar del catálogo").find_parent("form")
    assert action["method"].lower() == "post"
    token = action.find("input", attrs={"name": "csrf_token"})["value"]
    removed = portal.post(action["action"], data={"csrf_token": token})
    assert removed.status_code in (302, 303)
    assert "TE-1" not in soup(portal.get("/productos/")).get_text()
    assert portal.get(opener.find_parent("form")["action"]).status_code == 404
    soporte = signed_in("soporte@demo.uy")
    assert soporte.get(link + "/quitar").status_code in (403, 404)
