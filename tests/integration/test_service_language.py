"""The service answers people in the language the client asks for (Accept-Language: es-UY by default, English),
from one catalogue; codes never change with the language, and a shared query parameter answers one code on
every list."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from decimal import Decimal

import pytest

from tests.support import cfe_bodies as bodies
from tests.support import recibidos as sup
from tests.support.cfe_bodies import issue

ENGLISH = {"Accept-Language": "en-US,en;q=0.9"}
BUSCAR = "/api/v1/comprobante/buscar"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@demo.uy", 1)


def _both(api_client, method, path, headers, **kwargs):
    """The same request in Spanish (no Accept-Language) and in English."""
    spanish = api_client.open(path, method=method, headers=headers, **kwargs)
    english = api_client.open(path, method=method, headers={**headers, **ENGLISH}, **kwargs)
    return spanish, english


def test_a_validation_message_of_the_table_and_of_a_parameter(api_client, user):
    spanish, english = _both(api_client, "GET", BUSCAR, user, query_string={"limite": 0, "montoDesde": "diez"})
    assert spanish.status_code == english.status_code == 422
    said = {f["field"]: f for f in english.json["error"]["fields"]}
    assert said["limite"]["message"] == "Ask for between 1 and 200 per page."
    assert said["montoDesde"]["message"] == "It must be a number."
    assert english.json["error"]["message"] == "The data sent is not valid."
    assert [(f["field"], f["code"]) for f in spanish.json["error"]["fields"]] == [
        (f["field"], f["code"]) for f in english.json["error"]["fields"]
    ]
    assert {f["field"]: f["message"] for f in spanish.json["error"]["fields"]}[
        "limite"
    ] == "Pedí entre 1 y 200 por página."
    assert english.headers["Content-Language"] == "en" and spanish.headers["Content-Language"] == "es"
    assert "Accept-Language" in english.headers["Vary"]


def test_the_values_a_field_allows_are_joined_in_the_readers_language(api_client, user):
    """ "expected 'USD', 'EUR', 'ARS', 'BRL' o 'UI'": the English message kept Spanish's "o"."""
    path = "/api/v1/cotizaciones"
    spanish, english = _both(api_client, "GET", path, user, query_string={"moneda": "XXX"})
    assert english.status_code == 422
    assert (
        english.json["error"]["fields"][0]["message"]
        == "Value not allowed (expected 'USD', 'EUR', 'ARS', 'BRL' or 'UI')."
    )
    assert (
        spanish.json["error"]["fields"][0]["message"]
        == "Valor no permitido (se espera 'USD', 'EUR', 'ARS', 'BRL' o 'UI')."
    )
    body = {**bodies.body(bodies.ETICKET), "tipoCFE": 999}
    english = api_client.post("/api/v1/comprobante/emitir", json=body, headers={**user, **ENGLISH})
    assert english.json["error"]["fields"][0]["message"].endswith(", 281 or 282).")


def test_the_unknown_receipt_404(api_client, user):
    path = "/api/v1/comprobante/getByIdCfeEmitido?idCfeEmitido=" + "0" * 32
    spanish, english = _both(api_client, "GET", path, user)
    assert spanish.status_code == english.status_code == 404
    assert spanish.json["error"]["code"] == english.json["error"]["code"] == "cfe_no_encontrado"
    assert spanish.json["error"]["message"] == "No existe ese comprobante en tu empresa."
    assert english.json["error"]["message"] == "That receipt does not exist in your company."


def test_over_credit_with_its_amounts(api_client, user):
    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    draft = api_client.get(
        "/api/v1/comprobante/borradorNota",
        query_string={"idCfeEmitido": factura["idCfeEmitido"], "tipo": "credito"},
        headers=user,
    ).json
    left = Decimal(draft["saldoAcreditable"])
    note = {
        **draft["borrador"],
        "items": [{"indFact": 1, "nomItem": "Todo", "cantidad": "1", "precioUnitario": str(left + 1)}],
    }
    english = api_client.post("/api/v1/comprobante/emitir", json=note, headers={**user, **ENGLISH})
    assert english.status_code == 422
    (field,) = english.json["error"]["fields"]
    assert field["code"] == "supera_saldo"
    assert (
        field["message"].startswith("The credit note (") and "issue a note for that balance or less" in field["message"]
    )
    assert english.json["error"]["message"] == "The credit note does not match the referenced receipt."


def test_smart_issuance_warnings_stored_and_said_in_each_requests_language(api_client, user):
    body = {
        "receptor": {"documento": "215550030019", "nombre": "Cliente", "direccion": "Calle 1", "ciudad": "Montevideo"},
        "lineas": [{"descripcion": "Consultoría", "cantidad": "10", "precio": "1500"}],
    }
    english = api_client.post("/api/v1/cfe/previsualizar-emision-inteligente", json=body, headers={**user, **ENGLISH})
    assert english.status_code == 201, english.json
    said = {w["codigo"]: w["mensaje"] for w in english.json["advertencias"]}
    assert said["receptor_no_emisor_electronico"].startswith("The receiver is not an electronic issuer")
    # The same stored request, consulted in Spanish, says its warnings in Spanish.
    spanish = api_client.get(f"/api/v1/cfe/emision-inteligente/{english.json['requestId']}", headers=user).json
    again = {w["codigo"]: w["mensaje"] for w in spanish["advertencias"]}
    assert again["receptor_no_emisor_electronico"].startswith("El receptor no es emisor electrónico")
    assert set(again) == set(said)
    why = {i["campo"]: i["motivo"] for i in english.json["inferencias"]}
    assert why["tipoCFE"] == "The receiver has a RUT: an e-Factura."
    assert {i["campo"]: i["motivo"] for i in spanish["inferencias"]}["tipoCFE"] == (
        "El receptor tiene RUT: corresponde e-Factura."
    )


def test_the_csv_headers(api_client, user):
    issue(api_client, user, bodies.body(bodies.ETICKET))
    spanish, english = _both(api_client, "GET", BUSCAR, {**user, "Accept": "text/csv"})
    rows = [
        next(csv.reader(io.StringIO(a.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
        for a in (spanish, english)
    ]
    assert rows[0][:4] == ["Fecha", "Tipo", "Serie", "Número"]
    assert rows[1][:4] == ["Date", "Type", "Series", "Number"] and rows[1][-2:] == ["Identifier", "Request"]


def test_spanish_is_the_default_and_es_uy_is_spanish(api_client, user):
    for language in ("es-UY", "fr-FR", "*"):
        answer = api_client.get(BUSCAR, query_string={"limite": 0}, headers={**user, "Accept-Language": language})
        assert answer.json["error"]["fields"][0]["message"] == "Pedí entre 1 y 200 por página."


LISTS = (
    "/api/v1/envios/sobres",
    "/api/v1/envios/pendientes",
    "/api/v1/envios/reportes",
    "/api/v1/envios/anulaciones",
    BUSCAR,
    "/api/v1/cfe/emision-inteligente",
    "/api/v1/empresa/auditoria",
    "/api/v1/apikeys",
)


@pytest.mark.parametrize("path", LISTS)
@pytest.mark.parametrize(
    ("parameter", "value", "code"),
    [
        ("limite", "0", "limite_invalido"),
        ("limite", "muchos", "limite_invalido"),
        ("cursor", "no es un cursor", "cursor_invalido"),
        ("cursor", "bm8tZXMtdW4tY3Vyc29y", "cursor_invalido"),
    ],
)
def test_a_shared_parameter_answers_one_code_on_every_list(api_client, admin, path, parameter, value, code):
    answer = api_client.get(path, query_string={parameter: value}, headers=admin)
    assert answer.status_code == 422, answer.json
    assert [(f["field"], f["code"]) for f in answer.json["error"]["fields"]] == [(parameter, code)], answer.json


def test_a_rule_of_the_cfe_engine(api_client, user):
    body = {**bodies.body(bodies.EFACTURA), "tpoMoneda": "USD"}
    body.pop("tpoCambio", None)
    spanish, english = _both(api_client, "POST", "/api/v1/comprobante/emitir", user, json=body)
    assert spanish.status_code == english.status_code == 422
    said = {f["field"]: f["message"] for f in english.json["error"]["fields"]}
    assert said["tpoCambio"] == "The exchange rate is required when the currency is not UYU."
    assert {f["field"]: f["message"] for f in spanish.json["error"]["fields"]}["tpoCambio"] == (
        "El tipo de cambio es obligatorio si la moneda no es UYU."
    )


def test_the_catalogues_rates_and_books_speak_english_too(api_client, user):
    """A refused price list, an unknown product or customer, a taken code, a rate not published and a period too
    long: each said in the language asked for, with the same codes."""
    price_list = "codigo;nombre;precio\nA1;Café;x\nA1;;1\n".encode()
    csv_headers = {**user, "Content-Type": "text/csv"}
    spanish, english = _both(api_client, "POST", "/api/v1/productos/importar", csv_headers, data=price_list)
    assert spanish.status_code == english.status_code == 422
    assert [f["code"] for f in spanish.json["error"]["fields"]] == [f["code"] for f in english.json["error"]["fields"]]
    assert english.json["error"]["message"] == "3 problem(s) in the list: nothing was imported."
    said = [f["message"] for f in english.json["error"]["fields"]]
    assert said == [
        "“x” is not a price (for example 1500.50 or 1500,50).",
        "The name is required and has at most 80 characters.",
        "The code A1 is already in row 2.",
    ]
    assert spanish.json["error"]["fields"][2]["message"] == "El código A1 ya está en la fila 2."
    for path, code in (
        ("/api/v1/productos/999", "producto_no_encontrado"),
        ("/api/v1/clientes/999", "cliente_no_encontrado"),
    ):
        spanish, english = _both(api_client, "GET", path, user)
        assert spanish.status_code == english.status_code == 404 and english.json["error"]["code"] == code
        assert english.json["error"]["message"].startswith("Your company has no such ")
    product = {"codigo": "A1", "nombre": "Café", "precio": "1"}
    assert api_client.post("/api/v1/productos", json=product, headers=user).status_code == 201
    _spanish, english = _both(api_client, "POST", "/api/v1/productos", user, json=product)
    assert english.json["error"]["message"] == "There is already a product with the code A1."
    rate = {"moneda": "USD", "fecha": "2020-01-01"}
    _spanish, english = _both(api_client, "GET", "/api/v1/cotizaciones", user, query_string=rate)
    assert english.json["error"]["message"] == "No USD rate was published in the 10 days before 01/01/2020."
    period = {"desde": "2024-01-01", "hasta": "2025-06-30"}
    _spanish, english = _both(api_client, "GET", "/api/v1/informes/ventas", user, query_string=period)
    assert english.json["error"]["fields"][0]["message"] == "The period spans at most 366 days."


def test_the_rules_of_the_export_boleta_and_cuenta_ajena_types_speak_english_too(api_client, user):
    """DGI's rules for the fields only the new types carry (rules_types) answer in the language asked for."""
    from tests.integration.test_export_api import today
    from tests.unit.cfe.types_bodies import EXPORT

    body = today(EXPORT["121-services"])
    body.pop("clauVenta")
    body.update(viaTransp=1, mntBruto=1)
    spanish, english = _both(api_client, "POST", "/api/v1/comprobante/emitir", user, json=body)
    assert spanish.status_code == english.status_code == 422
    said = {f["field"]: f["message"] for f in english.json["error"]["fields"]}
    assert said == {
        "clauVenta": "Give the sale clause: the Incoterm (FOB, CIF, EXW...) or N/A if you export services.",
        "viaTransp": "An export of services (mode 90) has no transport: use 8.",
        "mntBruto": "An export carries no VAT: it does not apply.",
    }
    from tests.unit.cfe.types_bodies import PRINCIPAL

    principal = {**bodies.body(bodies.EFACTURA), "complFiscal": PRINCIPAL}
    _spanish, english = _both(api_client, "POST", "/api/v1/comprobante/emitir", user, json=principal)
    assert english.status_code == 422
    assert [f["message"] for f in english.json["error"]["fields"] if f["field"] == "complFiscal"] == [
        "Only sales on behalf of others carry a principal, not e-Factura."
    ]


def test_the_received_cfes_csv_headers_and_yes_no(api_client, user):
    """The received CFEs' CSV kept Spanish column names ("RUT proveedor", "Decisión") and "sí"/"no" for an English
    caller, so the portal in English downloaded a Spanish file."""
    envelope = sup.envelope([sup.cfe(1)])
    uploaded = api_client.post(
        "/api/v1/recibidos",
        data={"archivos": [(io.BytesIO(envelope), "sobre.xml")]},
        headers=user,
        content_type="multipart/form-data",
    )
    assert uploaded.status_code in (200, 201), uploaded.json
    [received] = api_client.get("/api/v1/recibidos", headers=user).json["items"]
    assert api_client.post(f"/api/v1/recibidos/{received['id']}/contabilizar", headers=user).status_code == 200
    spanish, english = _both(api_client, "GET", "/api/v1/recibidos", {**user, "Accept": "text/csv"})
    files = [
        list(csv.reader(io.StringIO(a.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
        for a in (spanish, english)
    ]
    assert files[0][0][:3] == ["Recibido", "RUT proveedor", "Proveedor"] and files[0][1][-2:] == ["no", "sí"]
    assert files[1][1][-2:] == ["no", "yes"]  # not rejected by DGI; booked
    assert files[1][0] == [
        "Received",
        "Supplier's RUT",
        "Supplier",
        "Type",
        "Series",
        "Number",
        "Date",
        "Currency",
        "Exempt and not taxed",
        "Exports and similar",
        "VAT suspended",
        "Net at the minimum rate",
        "Net at the basic rate",
        "Net at another rate",
        "VAT at the minimum rate",
        "VAT at the basic rate",
        "VAT at another rate",
        "Perceptions",
        "Withholdings",
        "Total",
        "Status",
        "Decision",
        "Rejected by DGI",
        "Booked",
    ]
    assert english.headers["Content-Language"] == "en" and "Accept-Language" in english.headers["Vary"]


def test_who_is_calling_refusals_in_english(api_client, auth_headers, user):
    """The refusals of authentication and of the company (platform.auth) were Spanish to every reader."""
    both_companies = auth_headers("admin@demo.uy")
    spanish, english = _both(api_client, "GET", BUSCAR, both_companies)
    assert spanish.json["error"]["code"] == english.json["error"]["code"] == "empresa_requerida"
    assert spanish.json["error"]["message"] == "Indicá la empresa con el encabezado X-Empresa-Id."
    assert english.json["error"]["message"] == "Give the company in the X-Empresa-Id header."
    said = api_client.get(BUSCAR, headers={**both_companies, "X-Empresa-Id": "uno", **ENGLISH}).json["error"]
    assert said["message"] == "The company number (X-Empresa-Id) must be a whole number."
    said = api_client.get(BUSCAR, headers={"Authorization": "Bearer nope", **ENGLISH}).json["error"]
    assert (said["code"], said["message"]) == ("invalid_token", "The access token is not valid or has expired.")
    said = api_client.get(BUSCAR, headers={**user, "X-Empresa-Id": "2", **ENGLISH}).json["error"]
    assert (said["code"], said["message"]) == ("empresa_ajena", "You have no access to that company.")
    said = api_client.get("/api/v1/apikeys", headers={**user, **ENGLISH}).json["error"]
    assert (said["code"], said["message"]) == ("rol_insuficiente", "Your role does not allow this operation.")


def test_state_descriptions_events_and_mail_placeholders_in_english(api_client, user, admin):
    """What a DGI state, an exchange state, an event and a mail placeholder mean was Spanish to every reader."""
    from tests.support.exchange import to_norte

    issued = api_client.post("/api/v1/comprobante/emitir", json=to_norte(), headers={**user, **ENGLISH})
    assert issued.status_code == 201, issued.json
    assert issued.json["dgi"]["descripcion"] == "Waiting to be sent to DGI: it will go in an envelope within seconds."
    assert issued.json["intercambio"]["descripcion"] == (
        "Waiting to be delivered to the electronic receiver (after it is registered for DGI)."
    )
    ticket = issue(api_client, user, bodies.body(bodies.ETICKET), **ENGLISH)
    assert ticket["dgi"]["descripcion"] == "e-Ticket under the UI threshold: DGI receives it in the day's daily report."
    spanish, english = _both(api_client, "GET", "/api/v1/envios/pendientes", admin)
    assert {i["descripcion"] for i in english.json["items"]} == {
        "Waiting to be sent to DGI: it will go in an envelope within seconds."
    }
    assert {i["descripcion"] for i in spanish.json["items"]} == {
        "Pendiente de envío a DGI: se empaquetará en un sobre en segundos."
    }
    spanish, english = _both(api_client, "GET", "/api/v1/eventos", admin)
    said = {e["nombre"]: e["descripcion"] for e in english.json["items"]}
    assert said["comprobante.aceptado"] == "DGI accepted the receipt (AE)."
    assert said["recibido.nuevo"] == "A receipt arrived from another company (exchange)."
    assert {e["nombre"]: e["descripcion"] for e in spanish.json["items"]}["comprobante.aceptado"] == (
        "DGI aceptó el comprobante (AE)."
    )
    spanish, english = _both(api_client, "GET", "/api/v1/correo/plantilla", admin)
    assert english.json["variables"]["fecha"] == "The issue date (dd/mm/yyyy)."
    assert spanish.json["variables"]["fecha"] == "La fecha de emisión (dd/mm/aaaa)."
    assert english.json["cuerpo"] == spanish.json["cuerpo"]  # the e-mail itself is the company's, in Spanish


def test_the_exports_dgi_state_and_the_period_pdf_in_english(api_client, user, tmp_path):
    """The receipts' export said each DGI state in Spanish under English headers, and the period's PDF kept its
    title, the IVA concepts and the DGI states in Spanish (the title's `_()` sat inside an f-string, where pybabel
    does not look)."""
    import subprocess

    from portal.domain.dgi_states import DGI_STATES
    from portal.service.comprobante.export import DGI_STATE_NAMES

    assert DGI_STATE_NAMES == DGI_STATES  # the same Spanish, as catalogue messages
    issue(api_client, user, bodies.body(bodies.ETICKET))
    spanish, english = _both(api_client, "GET", BUSCAR, {**user, "Accept": "text/csv"})
    states = [
        next(csv.DictReader(io.StringIO(a.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
        for a in (spanish, english)
    ]
    assert states[0]["Estado DGI"] == "Va en el reporte diario"
    assert states[1]["DGI status"] == "Goes in DGI's daily report"
    today = date.today()
    period = {"desde": (today - timedelta(days=3)).isoformat(), "hasta": (today + timedelta(days=3)).isoformat()}
    pdf = api_client.get("/api/v1/informes/periodo/pdf", query_string=period, headers={**user, **ENGLISH})
    assert pdf.status_code == 200
    (tmp_path / "resumen.pdf").write_bytes(pdf.data)
    text = subprocess.run(["pdftotext", str(tmp_path / "resumen.pdf"), "-"], capture_output=True, text=True, check=True)
    assert "Summary of the period" in text.stdout and "Resumen del período" not in text.stdout
    assert "Sales at the basic rate (net)" in text.stdout and "Goes in DGI's daily report" in text.stdout


SIGN = "/api/v1/comprobante/firmarXml"


def test_where_a_malformed_xml_breaks_is_said_in_the_requests_language(api_client, user):
    """firmarXml's error names the place (line and column) in the field as well as in the message: both in the
    language asked for, with the same code."""
    broken = b"<CFE xmlns='http://cfe.dgi.gub.uy'>\n<eTck>\n</CFE>"
    xml = {**user, "Content-Type": "application/xml"}
    spanish, english = _both(api_client, "POST", SIGN, xml, data=broken)
    assert spanish.status_code == english.status_code == 422
    [field_es], [field_en] = spanish.json["error"]["fields"], english.json["error"]["fields"]
    assert field_es["code"] == field_en["code"] == "xml_invalido"
    assert field_es["field"] == "línea 3, columna 7"
    assert field_en["field"] == "line 3, column 7"
    assert "(line 3, column 7)" in english.json["error"]["message"]
    assert "línea" not in str(english.json["error"])


def test_what_firmar_xml_and_a_format_refuse_is_said_in_english_too(api_client, user):
    spanish, english = _both(api_client, "POST", SIGN, {**user, "Content-Type": "application/json"}, data=b"{}")
    assert spanish.status_code == english.status_code == 415
    assert spanish.json["error"]["message"] == "El cuerpo debe ser XML (Content-Type: application/xml)."
    assert english.json["error"]["message"] == "The body must be XML (Content-Type: application/xml)."
    spanish, english = _both(api_client, "GET", BUSCAR, {**user, "Accept": "image/png"})
    assert spanish.status_code == english.status_code == 406
    assert english.json["error"]["message"].startswith("Format not available; ask for one of these with Accept: ")
    assert "application/json" in english.json["error"]["message"]


def test_api_key_and_idempotency_refusals_in_english(api_client, admin, user):
    """The API keys' refusals (credentials, management) and the Idempotency-Key's were plain Spanish literals."""
    said = api_client.get(BUSCAR, headers={"X-API-Key": "ak_nope", **ENGLISH}).json["error"]
    assert said["message"] == "The API key is not valid."
    created = api_client.post("/api/v1/apikeys", json={"nombre": "Caja"}, headers=admin).json
    as_key = {"X-API-Key": created["clave"]}
    spanish, english = _both(api_client, "GET", BUSCAR, {**as_key, "X-Empresa-Id": "2"})
    assert spanish.status_code == english.status_code == 403
    assert spanish.json["error"]["code"] == english.json["error"]["code"] == "empresa_ajena"
    assert spanish.json["error"]["message"] == "La clave de API es de otra empresa."
    assert english.json["error"]["message"] == "The API key belongs to another company."
    api_client.post(f"/api/v1/apikeys/{created['id']}/revocar", headers=admin)
    said = api_client.get(BUSCAR, headers={**as_key, **ENGLISH}).json["error"]
    assert said["message"] == "The API key was revoked."
    limit = {"limite": 10, "ventanaSegundos": 60}
    said = api_client.post(
        f"/api/v1/apikeys/{created['id']}/rate-limit", json=limit, headers={**admin, **ENGLISH}
    ).json["error"]
    assert (said["code"], said["message"]) == (
        "clave_revocada",
        "The key is revoked: its limit can no longer be changed.",
    )
    said = api_client.post("/api/v1/apikeys/ak_missing/revocar", headers={**admin, **ENGLISH}).json["error"]
    assert (said["code"], said["message"]) == ("apikey_not_found", "That API key does not exist in the company.")

    emitir = "/api/v1/comprobante/emitir"
    # The endpoints' own header check answers a long key first; the platform's refusal is what every other says.
    from portal.service.platform import i18n, idempotency
    from portal.service.platform.errors import ApiError

    with api_client.application.test_request_context(headers={"Idempotency-Key": "x" * 256, **ENGLISH}):
        with pytest.raises(ApiError) as refused:
            idempotency.requested_key("prueba")
        assert i18n.say(refused.value.message) == "Idempotency-Key must have between 1 and 255 printable characters."
    issue(api_client, user, bodies.body(bodies.ETICKET), **{"Idempotency-Key": "idioma-1"})
    other = bodies.body(bodies.EFACTURA)
    said = api_client.post(emitir, json=other, headers={**user, "Idempotency-Key": "idioma-1", **ENGLISH}).json
    assert said["error"]["message"] == "This Idempotency-Key was already used with another request body."


def test_the_xlsx_books_summary_sheet_in_english_and_the_book_in_dgis_spanish(api_client, user):
    """The XLSX book's "Resumen" sheet was Spanish to every reader; the book itself stays in DGI's Spanish."""
    from openpyxl import load_workbook

    issue(api_client, user, bodies.body(bodies.ETICKET))
    today = date.today()
    period = {"desde": (today - timedelta(days=3)).isoformat(), "hasta": (today + timedelta(days=3)).isoformat()}
    spanish, english = _both(
        api_client, "GET", "/api/v1/informes/ventas", user, query_string={**period, "formato": "xlsx"}
    )
    files = []
    for answer in (spanish, english):
        files.append(io.BytesIO(answer.data))
        answer.close()  # a streamed file is closed with its response, as a WSGI server does
    es, en = (load_workbook(f) for f in files)
    assert es.sheetnames == ["Libro de ventas", "Resumen", "Rechazados por DGI"]
    assert en.sheetnames == ["Libro de ventas", "Summary", "Rechazados por DGI"]
    book = [list(r) for r in en["Libro de ventas"].iter_rows(values_only=True)]
    assert book == [list(r) for r in es["Libro de ventas"].iter_rows(values_only=True)]
    assert book[0][:4] == ["Fecha", "Tipo", "Serie", "Número"]
    words = [row[0] for row in en["Summary"].iter_rows(values_only=True) if row and row[0]]
    assert words[0].startswith("Sales book from ") and "Receipts in the book" in words
    assert "For the VAT return (in pesos)" in words and "By type (in pesos)" in words
    assert "Sales at the basic rate (net)" in words
    header = next(r for r in en["Summary"].iter_rows(values_only=True) if r and r[0] == "By currency (in the currency)")
    assert header[1] == "Count" and "Total" in header
