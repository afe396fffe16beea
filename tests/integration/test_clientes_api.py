"""Customers: every receipt's receiver becomes one (what a person edited is never overwritten), the list
finds them by the start of the name or document in pages, a customer's balance of credit sales, the roles."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue

CLIENTES = "/api/v1/clientes"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _factura(doc: str, name: str, pay: int = 2) -> dict:
    body = bodies.body(bodies.EFACTURA)
    body.update(fmaPago=pay, receptor={**bodies.BUYER, "docRecep": doc, "rznSocRecep": name})
    return body


def test_each_receiver_becomes_a_customer_once_and_edits_are_kept(api_client, user):
    issue(api_client, user, _factura("211003420017", "Viajes Arapey S.R.L."))
    listed = api_client.get(CLIENTES, headers=user).json["items"]
    arapey = next(c for c in listed if c["docRecep"] == "211003420017")
    assert arapey["rznSocRecep"] == "Viajes Arapey S.R.L." and arapey["origen"] == "comprobante"
    assert arapey["dirRecep"] == bodies.BUYER["dirRecep"]
    changed = api_client.patch(
        f"{CLIENTES}/{arapey['id']}", json={"correo": "Pagos@Arapey.com.uy", "diasCredito": 30}, headers=user
    )
    assert changed.status_code == 200, changed.json
    assert changed.json["correo"] == "Pagos@arapey.com.uy" and changed.json["diasCredito"] == 30
    issue(api_client, user, _factura("211003420017", "VIAJES ARAPEY (otro nombre)"))
    again = [c for c in api_client.get(CLIENTES, headers=user).json["items"] if c["docRecep"] == "211003420017"]
    assert len(again) == 1 and again[0]["rznSocRecep"] == "Viajes Arapey S.R.L." and again[0]["correo"]


def test_the_seller_of_an_e_boleta_de_entrada_is_not_made_a_customer(api_client, user):
    """The e-Boleta de entrada's receiver is whom the company bought from: a supplier, not a customer."""
    from tests.integration.test_export_api import today as dated_today
    from tests.unit.cfe.types_bodies import BOLETA

    boleta = issue(api_client, user, dated_today(BOLETA["151-imeba"]))
    issue(api_client, user, _factura("211003420017", "Viajes Arapey S.R.L."))  # a sale after it: read past it
    documents = {c["docRecep"] for c in api_client.get(CLIENTES, headers=user).json["items"]}
    assert "211003420017" in documents and boleta["receptor"]["docRecep"] not in documents


def test_search_by_name_or_document_start_in_pages(api_client, user):
    for i in range(5):
        created = api_client.post(
            CLIENTES,
            json={"tipoDocRecep": 4, "codPaisRecep": "AR", "docRecep": f"AR-{i}", "rznSocRecep": f"Ñandú {i}"},
            headers=user,
        )
        assert created.status_code == 201, created.json
    first = api_client.get(CLIENTES, query_string={"q": "nandu", "limite": 3}, headers=user).json
    assert [c["rznSocRecep"] for c in first["items"]] == ["Ñandú 0", "Ñandú 1", "Ñandú 2"]
    second = api_client.get(
        CLIENTES, query_string={"q": "nandu", "limite": 3, "cursor": first["siguienteCursor"]}, headers=user
    ).json
    assert [c["rznSocRecep"] for c in second["items"]] == ["Ñandú 3", "Ñandú 4"] and second["siguienteCursor"] is None
    by_document = api_client.get(CLIENTES, query_string={"q": "AR-3"}, headers=user).json["items"]
    assert [c["rznSocRecep"] for c in by_document] == ["Ñandú 3"]
    foreign = {"tipoDocRecep": 5, "codPaisRecep": "US", "docRecep": "X1234567", "rznSocRecep": "John Smith (Ñandú)"}
    assert api_client.post(CLIENTES, json=foreign, headers=user).status_code == 201
    # Every word typed starts a word of the name, anywhere in it, in any order.
    for typed in ("smith", "Smith John", "joh smi", "nandu"):
        found = api_client.get(CLIENTES, query_string={"q": typed}, headers=user).json["items"]
        assert "John Smith (Ñandú)" in [c["rznSocRecep"] for c in found], typed
    assert api_client.get(CLIENTES, query_string={"q": "mith"}, headers=user).json["items"] == []
    bad = api_client.get(CLIENTES, query_string={"cursor": "%%%"}, headers=user)
    assert bad.status_code == 422 and bad.json["error"]["fields"][0]["field"] == "cursor"


def test_a_typed_customer_is_checked_and_never_twice(api_client, user):
    wrong = api_client.post(
        CLIENTES, json={"tipoDocRecep": 2, "docRecep": "211003420018", "rznSocRecep": "X"}, headers=user
    )
    assert wrong.status_code == 422 and wrong.json["error"]["fields"][0]["code"] == "documento_invalido"
    body = {"tipoDocRecep": 2, "docRecep": "21.100342.0017", "rznSocRecep": "Viajes Arapey", "correo": "no es correo"}
    assert api_client.post(CLIENTES, json=body, headers=user).json["error"]["fields"][0]["field"] == "correo"
    body["correo"] = "a@arapey.com.uy"
    created = api_client.post(CLIENTES, json=body, headers=user)
    assert created.status_code == 201 and created.json["docRecep"] == "211003420017"
    assert api_client.post(CLIENTES, json=body, headers=user).status_code == 409


def test_a_document_kept_by_a_request_at_the_same_moment_is_a_409_not_a_500(api_client, user, monkeypatch):
    """The second of two requests at once (PostgreSQL): the check found the document free, the unique index did not."""
    from portal.service.clientes import routes

    body = {"tipoDocRecep": 2, "docRecep": "211003420017", "rznSocRecep": "Viajes Arapey"}
    assert api_client.post(CLIENTES, json=body, headers=user).status_code == 201
    monkeypatch.setattr(routes, "_document_kept", lambda *args: False)
    again = api_client.post(CLIENTES, json={**body, "rznSocRecep": "Otro nombre"}, headers=user)
    assert again.status_code == 409 and again.json["error"]["code"] == "cliente_existente", again.json


def test_a_typed_customers_country_is_one_its_document_can_have(api_client, user):
    """A DNI is of AR, BR, CL or PY, and any document's country is a known one or 99 (CFE-URUGUAY.md section 3):
    a customer kept otherwise would fill every receipt to them with a receiver DGI's rules refuse."""
    for document_type, country in ((6, "US"), (5, "ZZ")):
        body = {"tipoDocRecep": document_type, "codPaisRecep": country, "docRecep": "12345678", "rznSocRecep": "X"}
        answer = api_client.post(CLIENTES, json=body, headers=user)
        assert answer.status_code == 422, (document_type, country, answer.json)
        assert answer.json["error"]["fields"][0]["code"] == "pais_invalido"
    for document_type, country in ((6, "AR"), (5, "99"), (4, "US")):
        body = {
            "tipoDocRecep": document_type,
            "codPaisRecep": country,
            "docRecep": f"X{document_type}",
            "rznSocRecep": "X",
        }
        assert api_client.post(CLIENTES, json=body, headers=user).status_code == 201


def test_a_customers_balance_of_credit_sales(api_client, user):
    credit = issue(api_client, user, _factura("211003420017", "Viajes Arapey S.R.L.", pay=2))
    issue(api_client, user, _factura("211003420017", "Viajes Arapey S.R.L.", pay=1))  # cash: owes nothing
    note = bodies.note(112, 111, credit["serie"], credit["nro"])
    note.update(fmaPago=2, receptor={**bodies.BUYER, "docRecep": "211003420017", "rznSocRecep": "Viajes Arapey S.R.L."})
    credited = issue(api_client, user, note)
    customer = next(c for c in api_client.get(CLIENTES, headers=user).json["items"] if c["docRecep"] == "211003420017")
    card = api_client.get(f"{CLIENTES}/{customer['id']}", headers=user).json
    expected = Decimal(credit["totales"]["mntPagar"]) - Decimal(credited["totales"]["mntPagar"])
    assert card["saldos"] == [{"moneda": "UYU", "saldo": f"{expected:.2f}", "comprobantes": 2}]
    assert len(card["comprobantes"]) == 3
    # Each receipt stands for what its row in the receipt list does: the credit note negative.
    amounts = {r["id"]: r["importe"] for r in card["comprobantes"]}
    assert amounts[credited["idCfeEmitido"]] == f"-{credited['totales']['mntTotal']}"
    assert amounts[credit["idCfeEmitido"]] == credit["totales"]["mntTotal"]


def test_an_e_resguardo_on_a_card_stands_for_its_total_withheld(api_client, user):
    """An e-Resguardo's MntPagar and MntTotal are 0: the card said $ 0,00 where its page says the total withheld."""
    resguardo = issue(api_client, user, bodies.body(bodies.ERESGUARDO))
    receiver = resguardo["receptor"]["docRecep"] if resguardo.get("receptor") else None
    customer = next(c for c in api_client.get(CLIENTES, headers=user).json["items"] if c["docRecep"] == receiver)
    card = api_client.get(f"{CLIENTES}/{customer['id']}", headers=user).json
    (row,) = card["comprobantes"]
    assert row["importe"] == resguardo["totales"]["mntTotRetenido"] != "0.00", row


def test_roles_and_other_companies(api_client, auth_headers, user):
    issue(api_client, user, _factura("211003420017", "Viajes Arapey S.R.L."))
    soporte = auth_headers("soporte@demo.uy")
    customer = api_client.get(CLIENTES, headers=soporte).json["items"][0]
    assert api_client.get(f"{CLIENTES}/{customer['id']}", headers=soporte).status_code == 200
    assert api_client.patch(f"{CLIENTES}/{customer['id']}", json={"diasCredito": 1}, headers=soporte).status_code == 403
    other = auth_headers("admin@demo.uy", company_id=2)
    assert api_client.get(f"{CLIENTES}/{customer['id']}", headers=other).status_code == 404
    assert api_client.get(f"{CLIENTES}/99999999999999999999", headers=user).status_code == 404


def test_an_export_buyers_balance_counts_their_export_invoices_on_credit(api_client, user):
    """An e-Factura de Exportación on credit (121, FmaPago 2) is owed like any credit sale, less its notes."""
    from tests.integration.test_export_api import today
    from tests.unit.cfe.types_bodies import EXPORT

    export = issue(api_client, user, today(EXPORT["121-services"]))
    items = api_client.get(CLIENTES, headers=user).json["items"]
    customer = next(c for c in items if c["docRecep"] == EXPORT["121-services"]["receptor"]["docRecep"])
    card = api_client.get(f"{CLIENTES}/{customer['id']}", headers=user).json
    assert card["saldos"] == [{"moneda": "USD", "saldo": export["totales"]["mntPagar"], "comprobantes": 1}]


def test_a_receipt_that_commits_after_a_later_one_was_read_still_makes_its_customer(api_client, user, service_app):
    """A receipt's creation moment is taken before its transaction commits: on PostgreSQL another type's receipt,
    made a moment later, can commit first and be read into the customers. The one that commits after it (here:
    its moment set just before the one already read, as a late commit looks) still makes its customer."""
    from datetime import timedelta

    from sqlalchemy import select, update

    from portal.service.comprobante.models import IssuedCfe
    from portal.service.platform import db

    read = issue(api_client, user, _factura("211003420017", "Viajes Arapey S.R.L."))
    assert api_client.get(CLIENTES, headers=user).status_code == 200  # read up to it
    late = issue(api_client, user, _factura("210475730011", "Tarde S.A."))
    with service_app.app_context():
        session = db.session()
        moment = session.scalar(select(IssuedCfe.created_at).where(IssuedCfe.id == read["idCfeEmitido"]))
        session.execute(
            update(IssuedCfe)
            .where(IssuedCfe.id == late["idCfeEmitido"])
            .values(created_at=moment - timedelta(milliseconds=5))
        )
        session.commit()
    listed = api_client.get(CLIENTES, headers=user).json["items"]
    assert [c["docRecep"] for c in listed].count("210475730011") == 1
    again = api_client.get(CLIENTES, headers=user).json["items"]  # read again: never twice
    assert sorted(c["docRecep"] for c in again) == ["210475730011", "211003420017"]


def test_a_refused_document_or_country_names_its_field(api_client, user):
    """The document's check digit and the country a document can have were checked over the whole body, so the
    refusal named no field ("body") and a form could not put it beside the document or the country."""
    refusals = {
        (2, "UY", "211003420018"): ("docRecep", "documento_invalido"),
        (2, "AR", "211003420017"): ("codPaisRecep", "pais_invalido"),
        (6, None, "12345678"): ("codPaisRecep", "pais_invalido"),  # a DNI left at the default country, UY
        (5, "ZZ", "12345678"): ("codPaisRecep", "pais_invalido"),
    }
    for (document_type, country, document), (field, code) in refusals.items():
        body = {"tipoDocRecep": document_type, "docRecep": document, "rznSocRecep": "X"}
        if country:
            body["codPaisRecep"] = country
        answer = api_client.post(CLIENTES, json=body, headers=user)
        assert answer.status_code == 422, (body, answer.json)
        assert [(f["field"], f["code"]) for f in answer.json["error"]["fields"]] == [(field, code)], body


def test_the_last_receipts_moment_is_said_as_the_receipt_says_it(api_client, user):
    """`ultimoComprobante` read "...+00:00" where the receipt's own `creadoEn` reads "...Z"."""
    receipt = issue(api_client, user, _factura("211003420017", "Viajes Arapey S.R.L."))
    found = api_client.get("/api/v1/clientes", query_string={"q": "2110034"}, headers=user).json["items"][0]
    assert found["ultimoComprobante"] == receipt["creadoEn"]
    assert (
        api_client.get(f"/api/v1/clientes/{found['id']}", headers=user).json["ultimoComprobante"] == receipt["creadoEn"]
    )
