"""The portal's Empresa pages through the Flask test client, against a live service: admin only, forms
that keep the input on a 422 with the error next to the field, 303 after a POST, uploads and the audit."""

from __future__ import annotations

import io

import pytest
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from tests.support.empresa_files import OTHER_RUT, cae_xml, image, p12
from tests.support.html import csrf
from tests.support.html import soup as _soup


def _csrf(client, path="/empresa/") -> str:
    return csrf(client, path)


def _error(answer, field_id: str) -> str:
    return _soup(answer).find(id=f"{field_id}-error").get_text(" ", strip=True)


@pytest.fixture
def admin(signed_in):
    return signed_in("admin@demo.uy")


SETTINGS = {
    "regimen": "general",
    "norma": "",
    "resolucion": "77/2024",
    "fecha_emisor": "",
    "iva_al_dia": "y",
    "url_verificacion": "https://demo.uy/verificar",
    "formato_papel": "80mm",
}


@pytest.mark.parametrize("email", ["usuario@demo.uy", "soporte@demo.uy"])
def test_only_admins_see_and_use_the_area(signed_in, email):
    """The settings are admins' alone; support reads the audit (the test below), a plain user not even that."""
    client = signed_in(email)
    home = client.get("/").get_data(as_text=True)
    assert 'href="/empresa/"' not in home
    assert ('href="/empresa/auditoria"' in home) is (email == "soporte@demo.uy")
    for path in ("/empresa/", "/empresa/sucursales", "/empresa/logo", "/empresa/certificados", "/empresa/cae"):
        assert client.get(path).status_code == 403, path
    assert client.post("/empresa/", data={**SETTINGS, "csrf_token": _csrf(client, "/")}).status_code == 403


def test_admin_sees_the_link_and_the_seeded_settings(admin):
    assert 'href="/empresa/"' in admin.get("/").get_data(as_text=True)
    soup = _soup(admin.get("/empresa/"))
    tabs = soup.find("nav", class_="empresa-tabs").find_all("a")
    assert [a.get_text(strip=True) for a in tabs] == [
        "Datos fiscales",
        "Sucursales",
        "Logo",
        "Certificados",
        "CAE",
        "Correo al cliente",
        "Contingencia",
        "Personas",
        "Auditoría",
    ]
    assert tabs[0]["aria-current"] == "page"
    assert soup.find(id="resolucion")["value"] == "1516/2021"
    assert soup.find(id="url_verificacion")["value"] == "https://demo.uy/cfe"
    assert soup.find(id="regimen").find("option", selected=True)["value"] == "general"


def test_saving_settings_redirects_and_is_audited(admin):
    answer = admin.post("/empresa/", data={**SETTINGS, "csrf_token": _csrf(admin)})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/empresa/")
    page = admin.get("/empresa/")
    assert "Guardaste los datos fiscales" in page.get_data(as_text=True)
    assert _soup(page).find(id="formato_papel").find("option", selected=True)["value"] == "80mm"
    entries = _soup(admin.get("/empresa/auditoria")).find(attrs={"data-testid": "audit"})
    # A screen reader is told the change in words (hidden from sight), the arrow is for the eye (aria-hidden).
    spoken = [[span.get_text() for span in dd.select(".visually-hidden")] for dd in entries.find_all("dd")]
    assert ["Antes: ", "; ahora:"] in spoken
    assert all(dd.find("span", attrs={"aria-hidden": "true"}) for dd in entries("dd"))
    for span in entries.select(".visually-hidden"):
        span.decompose()
    audit = entries.get_text(" ", strip=True)
    assert "Cambió los datos fiscales" in audit and "1516/2021 → 77/2024" in audit
    assert "A4 → Rollo térmico de 80 mm" in audit
    admin.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": _csrf(admin)})
    english = _soup(admin.get("/empresa/auditoria")).find(attrs={"data-testid": "audit"}).find("dd")
    assert [span.get_text() for span in english.select(".visually-hidden")] == ["Before: ", "; now:"]


def test_a_refused_setting_keeps_the_input_with_the_error_next_to_the_field(admin):
    answer = admin.post("/empresa/", data={**SETTINGS, "regimen": "exonerado", "csrf_token": _csrf(admin)})
    assert answer.status_code == 422
    assert "norma" in _error(answer, "norma")
    soup = _soup(answer)
    assert soup.find(id="resolucion")["value"] == "77/2024"
    assert soup.find(id="regimen").find("option", selected=True)["value"] == "exonerado"
    bad_format = admin.post("/empresa/", data={**SETTINGS, "resolucion": "Res 1", "csrf_token": _csrf(admin)})
    assert bad_format.status_code == 422 and "1234/2020" in _error(bad_format, "resolucion")


def test_settings_need_the_resolution_or_the_issuer_date_and_refuse_a_future_date(admin):
    neither = admin.post("/empresa/", data={**SETTINGS, "resolucion": "", "csrf_token": _csrf(admin)})
    assert neither.status_code == 422 and "una de las dos" in _error(neither, "resolucion")
    future = admin.post(
        "/empresa/", data={**SETTINGS, "resolucion": "", "fecha_emisor": "01/01/2099", "csrf_token": _csrf(admin)}
    )
    assert future.status_code == 422 and "futuro" in _error(future, "fecha_emisor")
    assert _soup(future).find(id="fecha_emisor")["value"] == "01/01/2099"
    assert _soup(admin.get("/empresa/")).find(id="resolucion")["value"] == "1516/2021"


def test_settings_without_csrf_are_refused(admin):
    assert admin.post("/empresa/", data=SETTINGS).status_code == 400


BRANCH = {
    "codigo": "12",
    "nombre": "Cordón",
    "domicilio": "Av. 18 de Julio 2000",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
}


def test_branches_add_change_and_duplicate_code(admin):
    token = _csrf(admin, "/empresa/sucursales")
    answer = admin.post("/empresa/sucursales", data={**BRANCH, "csrf_token": token})
    assert answer.status_code == 303
    table = _soup(admin.get("/empresa/sucursales")).find(attrs={"data-testid": "branches"}).get_text(" ")
    assert "Cordón" in table and "Casa central" in table
    duplicate = admin.post("/empresa/sucursales", data={**BRANCH, "codigo": "1", "csrf_token": token})
    assert duplicate.status_code == 422 and "código 1" in _error(duplicate, "codigo")
    assert _soup(duplicate).find(id="nombre")["value"] == "Cordón"
    bad = admin.post("/empresa/sucursales", data={**BRANCH, "codigo": "12a", "csrf_token": token})
    assert bad.status_code == 422 and "número entero" in _error(bad, "codigo")
    no_department = admin.post("/empresa/sucursales", data={**BRANCH, "departamento": "", "csrf_token": token})
    assert no_department.status_code == 422 and "Elegí el departamento" in _error(no_department, "departamento")
    fresh = _soup(admin.get("/empresa/sucursales")).find(id="departamento")
    assert fresh.find("option", selected=True) is None or fresh.find("option", selected=True)["value"] == ""
    far = admin.post("/empresa/sucursales", data={**BRANCH, "codigo": "12000", "csrf_token": token})
    assert far.status_code == 422 and "entre 0 y 9999" in _error(far, "codigo")
    link = _soup(admin.get("/empresa/sucursales")).select_one('a[href^="/empresa/sucursales/"]')  # code 1 first
    edit = admin.post(
        link["href"],
        data={
            **BRANCH,
            "codigo": "1",
            "nombre": "Central",
            "domicilio": "Av. 18 de Julio 1234",
            "predeterminada": "y",
            "csrf_token": token,
        },
    )
    assert edit.status_code == 303
    assert "Central" in admin.get("/empresa/sucursales").get_data(as_text=True)


def test_another_companys_branch_is_a_404(admin, live_service):
    from portal.client import CfeClient
    from tests.conftest import mint_token

    theirs = (
        CfeClient(live_service.url)
        .as_user(mint_token(live_service.app, "admin@demo.uy"), company_id=2)
        .list_branches()[0]
    )
    assert admin.get(f"/empresa/sucursales/{theirs.id}").status_code == 404


def test_logo_upload_preview_and_removal(admin):
    token = _csrf(admin, "/empresa/logo")
    answer = admin.post(
        "/empresa/logo",
        data={"archivo": (io.BytesIO(image()), "logo.png"), "csrf_token": token},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 303
    preview = admin.get("/empresa/logo/imagen")
    assert preview.status_code == 200 and preview.mimetype == "image/png" and preview.data == image()
    assert _soup(admin.get("/empresa/logo")).find("img", class_="logo-preview") is not None
    broken = admin.post(
        "/empresa/logo",
        data={"archivo": (io.BytesIO(b"\x89PNG nope"), "logo.png"), "csrf_token": token},
        content_type="multipart/form-data",
    )
    assert broken.status_code == 422 and "no es una imagen" in _error(broken, "archivo")
    assert admin.post("/empresa/logo/quitar", data={"csrf_token": token}).status_code == 303
    assert admin.get("/empresa/logo/imagen").status_code == 404


def _upload_cert(admin, data: bytes, password="clave-p12", name="archivo.p12"):
    token = _csrf(admin, "/empresa/certificados")
    return admin.post(
        "/empresa/certificados",
        content_type="multipart/form-data",
        data={"archivo": (io.BytesIO(data), name), "password": password, "nombre": "", "csrf_token": token},
    )


def test_certificate_upload_warns_30_days_before_and_never_echoes_the_password(admin):
    wrong = _upload_cert(admin, p12(), password="equivocada")
    assert wrong.status_code == 422 and "contraseña" in _error(wrong, "password")
    assert "equivocada" not in wrong.get_data(as_text=True)
    other = _upload_cert(admin, p12(OTHER_RUT))
    assert other.status_code == 422 and "RUT 211003420017" in _error(other, "archivo")
    not_p12 = _upload_cert(admin, b"x", name="firma.txt")
    assert not_p12.status_code == 422 and ".p12" in _error(not_p12, "archivo")
    assert _upload_cert(admin, p12(valid_to_days=12)).status_code == 303
    table = _soup(admin.get("/empresa/certificados")).find(attrs={"data-testid": "certificates"})
    assert "Vence en 11 días" in table.get_text() or "Vence en 12 días" in table.get_text()


def test_the_warning_shows_when_every_valid_certificate_expires_soon(admin, live_service):
    from sqlalchemy import update

    from portal.service.platform import db
    from portal.service.platform.models import Certificate

    with live_service.app.app_context():
        from datetime import UTC, datetime, timedelta

        db.session().execute(update(Certificate).values(not_after=datetime.now(UTC) + timedelta(days=5)))
        db.session().commit()
    warning = _soup(admin.get("/empresa/certificados")).find(attrs={"data-testid": "certificate-warning"})
    assert warning is not None and "vence en" in warning.get_text()


def test_a_certificate_expires_on_its_day_in_uruguay_counted_by_uruguays_calendar(admin, live_service):
    """A certificate that expires at 01:30 UTC on the 18th expires at 22:30 on the 17th in Montevideo: the page said
    18/12 (the UTC date), and counted 24-hour days from now, one fewer than the compliance notice beside it."""
    from datetime import UTC, datetime, time, timedelta

    from sqlalchemy import update

    from portal.domain.uruguay_time import today_montevideo
    from portal.service.platform import db
    from portal.service.platform.models import Certificate

    today = today_montevideo()
    with live_service.app.app_context():
        late = datetime.combine(today + timedelta(days=20), time(1, 30), tzinfo=UTC)
        db.session().execute(update(Certificate).where(Certificate.company_id == 1).values(not_after=late))
        db.session().commit()
    uruguay_day = f"{today + timedelta(days=19):%d/%m/%Y}"
    row = _soup(admin.get("/empresa/certificados")).find(attrs={"data-testid": "certificate"}).get_text(" ")
    assert uruguay_day in row and "Vence en 19 días" in row, row
    card = _soup(admin.get("/")).find(attrs={"data-testid": "card-certificates"}).get_text(" ", strip=True)
    assert f"vence el {uruguay_day}, en 19 días" in " ".join(card.split()), card


def test_cae_upload_shows_the_range_and_refusals_stay_on_the_field(admin):
    token = _csrf(admin, "/empresa/cae")

    def upload(xml: bytes):
        return admin.post(
            "/empresa/cae",
            content_type="multipart/form-data",
            data={"archivo": (io.BytesIO(xml), "CAE.xml"), "csrf_token": token},
        )

    assert upload(cae_xml(tipo=111, serie="K", dnro=1, hnro=300)).status_code == 303
    page = admin.get("/empresa/cae")
    assert "Cargaste el CAE 90260000017" in page.get_data(as_text=True)
    row = _soup(page).find(attrs={"data-cae": "90260000017"}).get_text(" ", strip=True)
    assert "e-Factura" in row and "Serie K" in row and "1–300" in row and "300" in row
    overlap = upload(cae_xml(tipo=111, serie="K", dnro=200, hnro=400, cae_id=90260000025))
    assert overlap.status_code == 422 and "se superponen" in _error(overlap, "archivo")
    foreign = upload(cae_xml(rut=OTHER_RUT, cae_id=90260000033))
    assert foreign.status_code == 422 and "RUT 211003420017" in _error(foreign, "archivo")


def test_pages_in_english(admin):
    token = _csrf(admin)
    admin.post("/idioma", data={"lang": "en", "csrf_token": token, "next": "/empresa/"})
    page = _soup(admin.get("/empresa/cae")).get_text(" ", strip=True)  # the text read: "e-Ticket" is in an element
    assert "CAE ranges" in page and "Upload the CAE" in page
    # The types read as on every other page, in the page's language.
    assert "e-Ticket credit note" in page and "Nota de Crédito" not in page


def test_the_audit_page_pages_with_the_list_contract(admin, monkeypatch):
    from portal.client.empresa import EmpresaApi

    original = EmpresaApi.list_audit
    monkeypatch.setattr(
        EmpresaApi, "list_audit", lambda self, cursor=None, limit=None: original(self, cursor=cursor, limit=1)
    )
    for paper in ("80mm", "a4"):
        assert (
            admin.post("/empresa/", data={**SETTINGS, "formato_papel": paper, "csrf_token": _csrf(admin)}).status_code
            == 303
        )
    first = _soup(admin.get("/empresa/auditoria"))
    following = first.find("a", rel="next")["href"]
    second = _soup(admin.get(following))
    texts = [s.find(attrs={"data-testid": "audit"}).get_text(" ", strip=True) for s in (first, second)]
    assert texts[0] != texts[1] and second.find("a", string="Primera página")["href"] == "/empresa/auditoria"
    assert _soup(admin.get("/empresa/auditoria?cursor=estropeado")).find(attrs={"data-testid": "audit"})


def test_support_reads_the_audit_from_the_navigation_without_the_admins_pages_and_a_user_is_refused(admin, signed_in):
    """The service lets support read the audit; the portal's page was for admins alone. Support opens it from
    "Más", reads the same entries and sees none of the settings' tabs (pages it may not open); a plain user is
    refused by the server."""
    assert admin.post("/empresa/", data={**SETTINGS, "csrf_token": _csrf(admin)}).status_code == 303
    page = signed_in("soporte@demo.uy").get("/empresa/auditoria")
    assert page.status_code == 200
    soup = _soup(page)
    assert "Cambió los datos fiscales" in soup.find(attrs={"data-testid": "audit"}).get_text(" ", strip=True)
    main = soup.find("main")
    assert main.select(".empresa-tabs") == [] and main.select("form") == []
    assert not [a["href"] for a in main.select("a[href^='/empresa']") if a["href"] != "/empresa/auditoria"]
    link = soup.select_one("ul.areas .nav-more details a[href='/empresa/auditoria']")
    assert link.get_text(strip=True) == "Auditoría" and link["aria-current"] == "page"
    assert signed_in("usuario@demo.uy").get("/empresa/auditoria").status_code == 403


def test_the_admin_writes_the_customers_email_with_placeholders(admin, signed_in):
    page = _soup(admin.get("/empresa/correo"))
    assert "Le enviamos el comprobante {comprobante}" in page.select_one("#cuerpo").get_text()
    assert "{saludo}" in page.select_one("[data-testid=mail-placeholders]").get_text()
    token = page.select_one("input[name=csrf_token]")["value"]
    refused = admin.post(
        "/empresa/correo", data={"csrf_token": token, "asunto": "Su {comprobante}", "cuerpo": "{sin_esto}"}
    )
    assert refused.status_code == 422
    kept = _soup(refused)
    assert "{sin_esto}" in kept.select_one("#cuerpo").get_text() and "No existe el marcador" in kept.get_text()
    saved = admin.post(
        "/empresa/correo", data={"csrf_token": token, "asunto": "Su {comprobante}", "cuerpo": "{saludo}\nGracias."}
    )
    assert saved.status_code == 303
    again = _soup(admin.get("/empresa/correo"))
    assert again.select_one("#asunto")["value"] == "Su {comprobante}"
    assert signed_in("usuario@demo.uy").get("/empresa/correo").status_code == 403


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("es", "No existe el marcador {}: los que hay son {{comprobante}}, "),
        ("en", "There is no placeholder {}; the placeholders "),
    ],
    ids=["es", "en"],
)
def test_an_unknown_placeholder_is_named_next_to_its_field_in_the_users_language(admin, lang, said):
    """What the admin typed stays in the field, and under it which placeholder does not exist and which do."""
    admin.post("/idioma", data={"lang": lang, "next": "/", "csrf_token": _csrf(admin)})
    typed = {"asunto": "Factura {numero}", "cuerpo": "{saludo}\nPor { total }."}
    refused = admin.post("/empresa/correo", data={**typed, "csrf_token": _csrf(admin, "/empresa/correo")})
    assert refused.status_code == 422
    page = _soup(refused)
    assert page.select_one("#asunto")["value"] == typed["asunto"]
    assert page.select_one("#cuerpo").get_text().removeprefix("\r\n") == typed["cuerpo"]  # a browser drops it
    for field, unknown in (("asunto", "{numero}"), ("cuerpo", "{ total }")):
        shown = _error(refused, field)
        assert shown.startswith(said.format(unknown)) and shown.endswith("{fecha}, {total}, {enlace}."), shown


def test_the_admin_retires_a_branch_and_the_issuing_form_no_longer_offers_it(admin, signed_in):
    token = _csrf(admin, "/empresa/sucursales")
    branch = {"codigo": "7", "nombre": "Pocitos", "domicilio": "Av. Brasil 2890", "ciudad": "Montevideo"}
    assert (
        admin.post(
            "/empresa/sucursales", data={**branch, "departamento": "Montevideo", "csrf_token": token}
        ).status_code
        == 303
    )
    listing = _soup(admin.get("/empresa/sucursales"))
    link = next(a["href"] for a in listing.select("[data-testid=branches] a") if "Pocitos" in a.get_text())
    usuario = signed_in("usuario@demo.uy")
    offered = [
        o["value"] for o in _soup(usuario.get("/comprobantes/nuevo", follow_redirects=True)).select("#sucursal option")
    ]
    assert "7" in offered

    page = _soup(admin.get(link))
    form = page.find("form", action=f"{link}/baja")
    answer = admin.post(form["action"], data={"csrf_token": form.find("input", attrs={"name": "csrf_token"})["value"]})
    assert answer.status_code == 303
    listing = _soup(admin.get("/empresa/sucursales"))
    assert "Dada de baja" in listing.select_one("[data-testid=branches]").get_text()
    assert _soup(admin.get(link)).find(attrs={"data-testid": "branch-retired"}) is not None
    assert _soup(usuario.get("/comprobantes/nuevo", follow_redirects=True)).select_one("#sucursal") is None  # one left


def test_the_admin_retires_a_certificate_once_its_successor_is_loaded(admin):
    """ "Dar de baja" retired the signing certificate at one click, for good. It now asks, in a dialog with script and
    on a page of its own without, before the form that retires it."""
    page = _soup(admin.get("/empresa/certificados"))
    (row,) = page.select("[data-testid=certificate]")
    opener = row.find("button", attrs={"data-open-dialog": True})
    assert opener.find_parent("form")["method"].lower() == "get"
    assert row.find("dialog", id=opener["data-open-dialog"]).find("button", string="Dar de baja el certificado")
    question = _soup(admin.get(opener.find_parent("form")["action"]))
    assert question.h1.get_text(strip=True).startswith("¿Dar de baja el certificado «")
    assert "no se puede deshacer" in question.get_text() and question.find("a", string="Cancelar")
    assert admin.get("/empresa/certificados/999999/baja").status_code == 404
    form = question.find("button", string="Dar de baja el certificado").find_parent("form")
    assert form["method"].lower() == "post"
    token = form.find("input", attrs={"name": "csrf_token"})["value"]
    refused = admin.post(form["action"], data={"csrf_token": token}, follow_redirects=True)
    assert "Es el único certificado vigente" in refused.get_data(as_text=True)
    uploaded = admin.post(
        "/empresa/certificados",
        data={"csrf_token": token, "archivo": (io.BytesIO(p12()), "nuevo.p12"), "password": "clave-p12"},
        content_type="multipart/form-data",
    )
    assert uploaded.status_code == 303
    assert admin.post(form["action"], data={"csrf_token": token}).status_code == 303
    rows = _soup(admin.get("/empresa/certificados")).select("[data-testid=certificate]")
    assert len(rows) == 2 and sum("Dado de baja" in row.get_text() for row in rows) == 1


def test_the_audit_says_each_change_to_the_customers_email_in_words_and_only_when_it_changed(admin):
    token = _csrf(admin, "/empresa/correo")
    for _ in range(2):  # the same text saved twice is one change
        saved = admin.post(
            "/empresa/correo", data={"csrf_token": token, "asunto": "Su {comprobante}", "cuerpo": "Hola"}
        )
        assert saved.status_code == 303
    rows = _soup(admin.get("/empresa/auditoria")).find(attrs={"data-testid": "audit"}).get_text(" ", strip=True)
    assert rows.count("Cambió el correo al cliente") == 1, rows
    assert "plantilla_correo" not in rows and "['" not in rows and "Asunto" in rows and "→ Su {comprobante}" in rows


def _multipart(admin, path: str, fields: dict):
    """A multipart POST whose body is built in memory (the test client spools a large one to a temporary file
    it never closes)."""
    boundary, body = encode_multipart(fields)
    return admin.post(path, data=body, content_type=f"multipart/form-data; boundary={boundary}")


def test_a_certificate_file_over_the_request_limit_is_named_in_place_and_the_name_typed_is_kept(admin):
    """3 MB is over the portal's 2 MB request limit: the form's own size check answers, beside the file field,
    with what was typed kept (before: the generic "too large" page, and the name lost)."""
    token = _csrf(admin, "/empresa/certificados")
    answer = _multipart(
        admin,
        "/empresa/certificados",
        {
            "archivo": FileStorage(io.BytesIO(b"\0" * (3 * 1024 * 1024)), "firma.p12"),
            "password": "clave-p12",
            "nombre": "Firma de 2027",
            "csrf_token": token,
        },
    )
    assert answer.status_code == 422
    assert "64 KB" in _error(answer, "archivo")
    assert _soup(answer).find(id="nombre")["value"] == "Firma de 2027"
    assert "clave-p12" not in answer.get_data(as_text=True)


@pytest.mark.parametrize(
    ("path", "name", "limit"),
    [
        ("/empresa/cae", "cae.xml", "64 KB"),
        ("/empresa/logo", "logo.png", "512 KB"),
        ("/comprobantes/firmar", "cfe.xml", "2 MB"),
    ],
)
def test_every_form_that_checks_its_file_size_answers_in_place_up_to_16_mb(admin, path, name, limit):
    def upload(size: int):
        return _multipart(
            admin, path, {"archivo": FileStorage(io.BytesIO(b"\0" * size), name), "csrf_token": _csrf(admin, path)}
        )

    in_place = upload(3 * 1024 * 1024)
    assert in_place.status_code == 422 and limit in _error(in_place, "archivo")
    assert upload(17 * 1024 * 1024).status_code == 413  # beyond the ceiling, the generic page
