"""The company's printed contingency books (CFC): an admin registers DGI's authorisation (type, serie, numbers,
dates), every member lists them, overlaps and bad ranges are refused, and each registration is audited."""

from __future__ import annotations

from tests.support.html import csrf, soup

URL = "/api/v1/empresa/contingencia"
BOOK = {
    "tipoCFE": 211,
    "serie": "A",
    "desde": 1,
    "hasta": 500,
    "caeId": "90261234567",
    "fechaAutorizacion": "2026-01-15",
    "vencimiento": "2028-01-15",
}


def test_an_admin_registers_a_book_and_it_is_audited(api_client, auth_headers):
    admin = auth_headers("admin@demo.uy", 1)
    answer = api_client.post(URL, json=BOOK, headers=admin)
    assert answer.status_code == 201, answer.json
    assert (answer.json["tipoCFE"], answer.json["desde"], answer.json["hasta"]) == (211, 1, 500)
    assert answer.json["registradaPor"] == "admin@demo.uy"
    listed = api_client.get(URL, headers=auth_headers("usuario@demo.uy", 1)).json["items"]
    assert [(b["tipoCFE"], b["serie"]) for b in listed] == [(211, "A")]
    events = api_client.get("/api/v1/empresa/auditoria", headers=admin).json["items"]
    assert events[0]["accion"] == "libreta_contingencia"
    assert events[0]["objeto"] == "CFC 211 serie A 1-500"
    assert events[0]["cambios"]["hasta"] == {"antes": None, "despues": 500}


def test_overlapping_or_malformed_books_are_refused(api_client, auth_headers):
    admin = auth_headers("admin@demo.uy", 1)
    assert api_client.post(URL, json=BOOK, headers=admin).status_code == 201
    overlap = api_client.post(URL, json={**BOOK, "desde": 400, "hasta": 900}, headers=admin)
    assert overlap.status_code == 409 and overlap.json["error"]["code"] == "libreta_superpuesta"
    assert (
        api_client.post(
            URL, json={**BOOK, "serie": "B", "caeId": "90261234568", "desde": 400, "hasta": 900}, headers=admin
        ).status_code
        == 201
    )
    backwards = api_client.post(URL, json={**BOOK, "serie": "C", "desde": 10, "hasta": 5}, headers=admin)
    assert backwards.status_code == 422 and backwards.json["error"]["fields"][0]["field"] == "hasta"
    for wrong in ({"tipoCFE": 111}, {"serie": "a1"}, {"caeId": "123"}, {"vencimiento": "2025-01-01"}):
        assert api_client.post(URL, json={**BOOK, "serie": "D", **wrong}, headers=admin).status_code == 422, wrong
    assert api_client.post(URL, json=BOOK, headers=auth_headers("usuario@demo.uy", 1)).status_code == 403


FORM = {
    "tipo_cfe": "211",
    "serie": "b",
    "desde": "1",
    "hasta": "250",
    "cae_id": "90261234567",
    "fecha_autorizacion": "15/01/2026",
    "vencimiento": "15/01/2028",
}


def test_an_admin_registers_a_book_in_the_portal(signed_in):
    admin = signed_in("admin@demo.uy")
    page = soup(admin.get("/empresa/contingencia"))
    assert page.h1.get_text(strip=True) == "Empresa: Libretas de contingencia"
    assert page.find("a", href="/empresa/contingencia", attrs={"aria-current": "page"}) is not None  # its tab
    answer = admin.post("/empresa/contingencia", data={**FORM, "csrf_token": csrf(admin, "/empresa/contingencia")})
    assert answer.status_code == 303
    rows = soup(admin.get("/empresa/contingencia")).select('[data-testid="contingency-book"]')
    assert len(rows) == 1 and "211 e-Factura de contingencia" in rows[0].get_text() and "Serie B" in rows[0].get_text()
    again = admin.post("/empresa/contingencia", data={**FORM, "csrf_token": csrf(admin, "/empresa/contingencia")})
    refused = again.get_data(as_text=True)
    assert again.status_code == 422 and "Ya hay una libreta de tipo e-Factura de contingencia y serie B" in refused
    wrong = admin.post(
        "/empresa/contingencia",
        data={**FORM, "serie": "C", "cae_id": "12", "csrf_token": csrf(admin, "/empresa/contingencia")},
    )
    assert wrong.status_code == 422 and "Son 11 dígitos." in soup(wrong).find(id="cae_id-error").get_text()
    assert signed_in("usuario@demo.uy").get("/empresa/contingencia").status_code == 403


def test_a_malformed_book_is_refused_in_the_callers_language(api_client, auth_headers):
    english = {**auth_headers("admin@demo.uy", company_id=1), "Accept-Language": "en"}
    book = {"tipoCFE": 211, "serie": "B", "desde": 50, "hasta": 10, "caeId": "90261234567"}
    book |= {"fechaAutorizacion": "2026-01-15", "vencimiento": "2026-01-01"}
    fields = api_client.post(URL, json=book, headers=english).json["error"]
    messages = {f["field"]: f["message"] for f in fields["fields"]}
    assert messages == {
        "hasta": "The last number cannot be lower than the first.",
        "vencimiento": "The expiry must come after the authorisation.",
    }


def test_a_void_reason_with_a_nul_or_a_direction_override_voids_nothing(api_client, auth_headers):
    admin = auth_headers("admin@demo.uy", 1)
    book = api_client.post(URL, json=BOOK, headers=admin).json
    for reason in ("Papeles\x00rotos", "Papeles \u202esotor"):
        answer = api_client.post(
            f"{URL}/{book['id']}/anulaciones", json={"desde": 1, "hasta": 5, "motivo": reason}, headers=admin
        )
        assert answer.status_code == 422, answer.json
        assert answer.json["error"]["fields"][0]["field"] == "motivo"


def test_the_portal_shows_every_fields_mistake_at_once_keeping_what_was_typed(signed_in):
    """A wrong authorisation number hid the backwards range and the expiry before the authorisation: each showed
    only after the one before it was fixed (the cross-field checks ran in the service alone)."""
    admin = signed_in("admin@demo.uy")
    typed = {**FORM, "cae_id": "12", "desde": "50", "hasta": "10", "vencimiento": "01/01/2026"}
    refused = admin.post("/empresa/contingencia", data={**typed, "csrf_token": csrf(admin, "/empresa/contingencia")})
    assert refused.status_code == 422
    page = soup(refused)
    errors = {name: page.find(id=f"{name}-error") for name in ("cae_id", "hasta", "vencimiento")}
    assert {name: error.get_text(strip=True) if error else None for name, error in errors.items()} == {
        "cae_id": "Son 11 dígitos.",
        "hasta": "El último número no puede ser menor que el primero.",
        "vencimiento": "El vencimiento debe ser posterior a la autorización.",
    }
    kept = {name: page.find(id=name)["value"] for name in ("cae_id", "desde", "hasta", "vencimiento")}
    assert kept == {"cae_id": "12", "desde": "50", "hasta": "10", "vencimiento": "01/01/2026"}
    assert not soup(admin.get("/empresa/contingencia")).select('[data-testid="contingency-book"]')


def test_the_portals_checks_across_fields_speak_english(signed_in):
    admin = signed_in("admin@demo.uy")
    admin.post("/idioma", data={"lang": "en", "csrf_token": csrf(admin, "/")})
    typed = {**FORM, "cae_id": "12", "desde": "1", "hasta": "1000000", "vencimiento": "15/01/2026"}
    page = soup(admin.post("/empresa/contingencia", data={**typed, "csrf_token": csrf(admin, "/empresa/contingencia")}))
    assert page.find(id="hasta-error").get_text(strip=True) == "DGI authorises at most 999,999 numbers per book."
    assert page.find(id="vencimiento-error").get_text(strip=True) == "The expiry must come after the authorisation."


def test_the_service_lists_every_fields_mistake_at_once(api_client, auth_headers):
    """The range and the dates are checked even when another field is wrong (they were only after the body's
    fields all passed): one 422 says all there is to fix."""
    wrong = {**BOOK, "caeId": "123", "desde": 50, "hasta": 10, "vencimiento": "2026-01-01"}
    answer = api_client.post(URL, json=wrong, headers=auth_headers("admin@demo.uy", 1))
    assert answer.status_code == 422
    fields = {f["field"]: (f["code"], f["message"]) for f in answer.json["error"]["fields"]}
    assert fields == {
        "caeId": ("string_pattern_mismatch", "Formato no válido."),
        "hasta": ("range", "El último número no puede ser menor que el primero."),
        "vencimiento": ("range", "El vencimiento debe ser posterior a la autorización."),
    }
    too_many = {**BOOK, "serie": "Z", "caeId": "x", "desde": 1, "hasta": 1_000_000}
    answer = api_client.post(URL, json=too_many, headers=auth_headers("admin@demo.uy", 1))
    assert {f["field"] for f in answer.json["error"]["fields"]} == {"caeId", "hasta"}


def test_a_book_valid_for_more_than_dgis_24_months_is_refused(api_client, auth_headers, signed_in):
    """DGI's authorisations last 24 months from their date at most (CFE-URUGUAY.md section 6): a later expiry is a
    typo (2029 for 2027) that let papers written after the real expiry be keyed in, and the company keep writing
    them from a book DGI no longer authorises."""
    admin = auth_headers("admin@demo.uy", 1)
    answer = api_client.post(URL, json={**BOOK, "vencimiento": "2028-01-16"}, headers=admin)
    assert answer.status_code == 422, answer.json
    assert {f["field"]: f["message"] for f in answer.json["error"]["fields"]} == {
        "vencimiento": "DGI autoriza una libreta por 24 meses como máximo: vence a más tardar el 15/01/2028."
    }
    english = api_client.post(
        URL, json={**BOOK, "vencimiento": "2031-01-15"}, headers={**admin, "Accept-Language": "en"}
    )
    assert english.json["error"]["fields"][0]["message"] == (
        "DGI authorises a book for 24 months at most: it expires on 15/01/2028 at the latest."
    )
    assert api_client.post(URL, json=BOOK, headers=admin).status_code == 201  # exactly 24 months
    leap = {
        **BOOK,
        "serie": "L",
        "caeId": "90241234567",
        "fechaAutorizacion": "2024-02-29",
        "vencimiento": "2026-02-28",
    }
    assert api_client.post(URL, json=leap, headers=admin).status_code == 201, "24 months after 29 February"

    portal = signed_in("admin@demo.uy")
    typed = {**FORM, "serie": "C", "vencimiento": "15/01/2029"}
    refused = portal.post("/empresa/contingencia", data={**typed, "csrf_token": csrf(portal, "/empresa/contingencia")})
    assert refused.status_code == 422
    assert soup(refused).find(id="vencimiento-error").get_text(strip=True) == (
        "DGI autoriza una libreta por 24 meses como máximo: vence a más tardar el 15/01/2028."
    )


def test_one_authorisation_number_is_one_type_and_serie(api_client, auth_headers, signed_in):
    """DGI gives each authorisation (CAE) one type and serie: the same number registered for another book (a typo,
    or a copy of the line above) was taken, and DGI then observed every paper keyed in from that book (C09, "la
    constancia no autoriza el tipo"), with no way to correct it, since a book cannot be changed. The same number
    again for the same type, serie and dates (one authorisation printed as several booklets) is still taken."""
    admin = auth_headers("admin@demo.uy", 1)
    assert api_client.post(URL, json=BOOK, headers=admin).status_code == 201
    booklet = api_client.post(URL, json={**BOOK, "desde": 501, "hasta": 1000}, headers=admin)
    assert booklet.status_code == 201, booklet.json
    for other in ({"tipoCFE": 201}, {"serie": "B"}, {"fechaAutorizacion": "2026-01-16"}):
        answer = api_client.post(URL, json={**BOOK, "desde": 2001, "hasta": 2100, **other}, headers=admin)
        assert answer.status_code == 409, (other, answer.json)
        assert answer.json["error"]["code"] == "libreta_autorizacion_repetida"
        assert answer.json["error"]["message"] == (
            "La autorización 90261234567 de DGI ya está registrada para la libreta de tipo e-Factura de "
            "contingencia, serie A, autorizada el 15/01/2026: cada autorización es de un solo tipo y serie. "
            "Revisá el número en la constancia."
        )
    electronic = api_client.get("/api/v1/empresa/cae", headers=admin).json["items"][0]
    answer = api_client.post(URL, json={**BOOK, "serie": "E", "caeId": str(electronic["caeId"])}, headers=admin)
    assert answer.status_code == 409 and answer.json["error"]["code"] == "libreta_autorizacion_repetida", answer.json
    assert [b["serie"] for b in api_client.get(URL, headers=admin).json["items"]] == ["A", "A"]

    portal = signed_in("admin@demo.uy")
    typed = {**FORM, "tipo_cfe": "201", "serie": "A", "desde": "3000", "hasta": "3001"}
    refused = portal.post("/empresa/contingencia", data={**typed, "csrf_token": csrf(portal, "/empresa/contingencia")})
    assert refused.status_code == 422
    assert "La autorización 90261234567 de DGI ya está registrada" in soup(refused).find(id="cae_id-error").get_text()


def test_a_book_registered_by_mistake_is_removed_and_registered_again_until_it_is_used(api_client, auth_headers):
    """A book's data are what its papers are checked against and never change: one typed wrong (here its expiry)
    is removed, audited, and registered again as DGI authorised it. Once a number of it is voided (or a paper
    keyed in) it stays (409); a usuario cannot remove one, nor an admin another company's."""
    admin = auth_headers("admin@demo.uy", 1)
    wrong = api_client.post(URL, json={**BOOK, "vencimiento": "2027-01-15"}, headers=admin).json
    assert api_client.delete(f"{URL}/{wrong['id']}", headers=auth_headers("usuario@demo.uy", 1)).status_code == 403
    assert api_client.delete(f"{URL}/{wrong['id']}", headers=auth_headers("admin@demo.uy", 2)).status_code in (403, 404)
    assert api_client.delete(f"{URL}/{wrong['id']}", headers=admin).status_code == 204
    assert api_client.get(URL, headers=admin).json["items"] == []
    event = api_client.get("/api/v1/empresa/auditoria", headers=admin).json["items"][0]
    assert event["accion"] == "libreta_contingencia_borrada" and event["objeto"] == "CFC 211 serie A 1-500"
    assert event["cambios"]["vencimiento"] == {"antes": "2027-01-15", "despues": None}, event

    right = api_client.post(URL, json=BOOK, headers=admin)  # the same number and range again, now as authorised
    assert right.status_code == 201, right.json
    voided = api_client.post(
        f"{URL}/{right.json['id']}/anulaciones", json={"desde": 1, "hasta": 2, "motivo": "Rotos"}, headers=admin
    )
    assert voided.status_code == 201, voided.json
    kept = api_client.delete(f"{URL}/{right.json['id']}", headers=admin)
    assert kept.status_code == 409 and kept.json["error"]["code"] == "libreta_en_uso"
    assert api_client.delete(f"{URL}/{right.json['id'] + 1000}", headers=admin).status_code == 404


def test_an_admin_deletes_a_book_registered_by_mistake_in_the_portal(signed_in):
    """The book's row offers "Borrar" while nothing was done with it: asked in a dialog (or on a page of its own
    without script), then the list without it and a word on what to do next."""
    admin = signed_in("admin@demo.uy")
    admin.post("/empresa/contingencia", data={**FORM, "csrf_token": csrf(admin, "/empresa/contingencia")})
    (row,) = soup(admin.get("/empresa/contingencia")).select('[data-testid="contingency-book"]')
    question = row.find("form", method="get")["action"]
    page = soup(admin.get(question))
    assert page.h1.get_text(strip=True).startswith("¿Borrar la libreta 211 e-Factura de contingencia B")
    answer = admin.post(question, data={"csrf_token": csrf(admin, question)})
    assert answer.status_code == 303
    listed = soup(admin.get("/empresa/contingencia"))
    assert listed.select('[data-testid="contingency-book"]') == []
    assert "Borraste la libreta 211 e-Factura de contingencia B" in listed.get_text()
    assert admin.post(question, data={"csrf_token": csrf(admin, "/empresa/contingencia")}).status_code == 404
