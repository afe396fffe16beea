"""The IVA purchases book, from the received CFEs: its totals equal the received signed XMLs' totals (recomputed
here from the XML), credit notes count negative, dollars in pesos at the CFE's rate, CFEs DGI rejected and the
ones the company rejected (on arrival or commercially) apart; CSV and XLSX as the sales book's."""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from lxml import etree
from openpyxl import load_workbook
from sqlalchemy import select, update

from portal.domain.uruguay_time import today_montevideo
from portal.service.platform import db
from portal.service.recibidos.models import ReceivedCfe
from tests.integration.test_informes_ventas import CFE, FROM_XML
from tests.support import cfe_bodies as bodies
from tests.support import recibidos as sup
from tests.support.cfe_bodies import issue

COMPRAS = "/api/v1/informes/compras"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _credit_note(nro_ref: int) -> dict:
    return {
        **sup.EFACTURA,
        "tipoCFE": 112,
        "items": [{"indFact": 3, "nomItem": "Bonificación", "cantidad": "1", "precioUnitario": "200"}],
        "referencias": [{"tpoDocRef": 111, "serie": "A", "nroCFERef": nro_ref, "razonRef": "Bonificación"}],
    }


@pytest.fixture
def purchases(api_client, user, service_app) -> dict[int, int]:
    """Seven CFEs from the supplier: e-Facturas in pesos and dollars, a credit note, one rejected on arrival (its
    signature broken), one rejected commercially, one DGI rejected, and an e-Remito (not a purchase)."""
    dollars = {**sup.EFACTURA, "tpoMoneda": "USD", "tpoCambio": "40.125"}
    remito = {
        "tipoCFE": 181,
        "tipoTraslado": 1,
        "receptor": sup.BUYER,
        "items": [{"indFact": 8, "nomItem": "Cajas", "cantidad": "10"}],
    }
    tampered = sup.cfe(4).replace(b"Cajas de cart", b"Cajas de CART")
    cfes = [sup.cfe(1), sup.cfe(2, body=dollars), sup.cfe(3, body=_credit_note(1)), tampered, sup.cfe(5), sup.cfe(6)]
    cfes.append(sup.cfe(7, body=remito))
    data = {"archivos": [(io.BytesIO(sup.envelope(cfes)), "Sob_211003420017_1.xml")]}
    answer = api_client.post("/api/v1/recibidos", data=data, headers=user, content_type="multipart/form-data")
    assert answer.status_code == 201, answer.get_json()
    with service_app.app_context():
        ids = {nro: id_ for id_, nro in db.session().execute(select(ReceivedCfe.id, ReceivedCfe.nro))}
    rejected = api_client.post(f"/api/v1/recibidos/{ids[5]}/rechazar", json={"motivo": "E24"}, headers=user)
    assert rejected.status_code == 200, rejected.get_json()
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(update(ReceivedCfe).where(ReceivedCfe.id == ids[6]).values(anulado_dgi=True))
    return ids


def _period() -> dict[str, str]:
    today = today_montevideo()
    return {"desde": (today - timedelta(days=3)).isoformat(), "hasta": today.isoformat()}


def _xml_totals_in_pesos(service_app, received_id: int) -> dict[str, Decimal]:
    """The received signed XML's totals in pesos, signed as the book signs them, read from the XML itself."""
    with service_app.app_context():
        xml = db.session().scalar(select(ReceivedCfe.xml).where(ReceivedCfe.id == received_id))
    root = etree.fromstring(xml)
    totals = root.find(f".//{CFE}Totales")
    sign = -1 if root.find(f".//{CFE}TipoCFE").text == "112" else 1
    rate = Decimal(totals.findtext(f"{CFE}TpoCambio") or "1")
    return {
        name: (sign * Decimal(totals.findtext(f"{CFE}{tag}") or "0") * rate).quantize(Decimal("0.01"), ROUND_HALF_UP)
        for name, tag in FROM_XML.items()
    }


def test_the_books_totals_equal_the_received_xmls_totals(api_client, user, purchases, service_app):
    answer = api_client.get(COMPRAS, query_string=_period(), headers=user)
    assert answer.status_code == 200, answer.json
    book = answer.json
    in_book = [purchases[n] for n in (1, 2, 3)]
    assert [(f["nro"], f["estado"]) for f in book["filas"]] == [(1, "recibido"), (2, "recibido"), (3, "recibido")]
    assert book["filas"][0]["docEmisor"] == sup.SUPPLIER_RUT and book["cantidad"] == 3
    assert {f["origen"] for f in book["filas"]} == {"recibido"}
    assert api_client.get(f"/api/v1/recibidos/{book['filas'][0]['id']}", headers=user).status_code == 200

    expected = dict.fromkeys(FROM_XML, Decimal(0))
    for received_id in in_book:
        for name, value in _xml_totals_in_pesos(service_app, received_id).items():
            expected[name] += value
    assert {name: Decimal(value) for name, value in book["totalesPesos"].items()} == expected
    credit = book["filas"][2]
    assert Decimal(credit["importes"]["total"]) < 0  # the credit note counts negative
    dollars = book["filas"][1]
    assert dollars["moneda"] == "USD" and dollars["tipoCambio"] == "40.125"
    assert Decimal(dollars["importesPesos"]["total"]) == (
        Decimal(dollars["importes"]["total"]) * Decimal("40.125")
    ).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert book["declaracion"]["ivaCreditoFiscal"] == f"{expected['ivaTasaBasica'] + expected['ivaTasaMinima']:.2f}"
    assert book["declaracion"]["comprasTasaBasica"] == f"{expected['netoTasaBasica']:.2f}"

    assert [(f["nro"], f["estado"]) for f in book["rechazadosDgi"]] == [(6, "rechazado_dgi")]
    assert sorted((f["nro"], f["estado"]) for f in book["rechazadosEmpresa"]) == [
        (4, "rechazado_al_recibir"),
        (5, "rechazado_comercial"),
    ]


def test_csv_and_xlsx_carry_the_same_book(api_client, user, purchases):
    answer = api_client.get(COMPRAS, query_string={**_period(), "formato": "csv"}, headers=user)
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    assert "libro-compras-" in answer.headers["Content-Disposition"]
    lines = list(csv.reader(io.StringIO(answer.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
    assert lines[0][4:6] == ["Documento del proveedor", "Proveedor"]
    assert [line[3] for line in lines[1:4]] == ["1", "2", "3"]
    headings = [line[0] for line in lines if len(line) == 1]
    assert headings == ["Rechazados por DGI (fuera del libro)", "Rechazados por la empresa (fuera del libro)"]
    # The state in words, as the book's headers (it was the JSON's code: "rechazado_comercial").
    states = {line[-1] for line in lines[1:] if len(line) > 1}
    assert {"Recibido", "Rechazado por DGI", "Rechazado por la empresa"} <= states, states
    assert not any("_" in state for state in states), states

    answer = api_client.get(COMPRAS, query_string=_period(), headers={**user, "Accept": answer.mimetype})
    assert answer.mimetype == "text/csv"
    xlsx = api_client.get(COMPRAS, query_string={**_period(), "formato": "xlsx"}, headers=user)
    workbook = load_workbook(io.BytesIO(xlsx.data))
    xlsx.close()
    assert workbook.sheetnames == ["Libro de compras", "Resumen", "Rechazados por DGI", "Rechazados por la empresa"]
    sheet = workbook["Libro de compras"]
    assert sheet.max_row == 4 and isinstance(sheet.cell(2, 9).value, (int, float))
    assert sheet.cell(2, sheet.max_column).value == "Recibido"
    summary = [row[0] for row in workbook["Resumen"].iter_rows(values_only=True)]
    assert "IVA crédito fiscal (total)" in summary


def test_the_sales_book_is_unchanged_by_purchases(api_client, user, purchases):
    book = api_client.get("/api/v1/informes/ventas", query_string=_period(), headers=user).json
    assert book["cantidad"] == 0 and book["rechazados"] == [] and "ivaDebitoFiscal" in book["declaracion"]


def test_an_e_boleta_de_entrada_the_company_issued_is_a_purchase_in_the_book(api_client, user, service_app):
    """The e-Boleta de entrada (151-153) is the purchase document the buyer itself issues to a seller who issues
    none (CFE-URUGUAY.md section 3, IndFact 13-15 and 17): a purchase of the company, in its purchases book with
    its seller as the supplier (its credit note negative), never in the sales book."""
    from portal.domain.identifiers import digits_only
    from tests.integration.test_export_api import today as dated_today
    from tests.support.cfe_bodies import issue
    from tests.unit.cfe.types_bodies import BOLETA

    boleta = issue(api_client, user, dated_today(BOLETA["151-imeba"]))
    book = api_client.get(COMPRAS, query_string=_period(), headers=user).json
    rows = {row["id"]: row for row in book["filas"]}
    assert boleta["idCfeEmitido"] in rows, book["filas"]
    row = rows[boleta["idCfeEmitido"]]
    assert row["tipoCFE"] == 151 and row["docEmisor"] == digits_only(BOLETA["151-imeba"]["receptor"]["docRecep"])
    assert row["importes"]["total"] == boleta["totales"]["mntTotal"]
    assert book["cantidad"] == 1 and book["totalesPesos"]["total"] == row["importesPesos"]["total"]
    # Its id names an issued receipt, not a received CFE, and the row says so.
    assert row["origen"] == "emitido"
    found = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido", query_string={"idCfeEmitido": row["id"]}, headers=user
    )
    assert found.status_code == 200 and found.json["tipoCFE"] == 151, found.json
    sales = api_client.get("/api/v1/informes/ventas", query_string=_period(), headers=user).json
    assert sales["cantidad"] == 0


RESUMEN = "/api/v1/informes/compras/resumen"


def _csv_book_sums(api_client, headers) -> dict[str, Decimal]:
    """The purchases book's CSV for the period: its rows (up to the first section apart) summed column by column,
    the pesos' columns named as the book's amounts."""
    answer = api_client.get(COMPRAS, query_string={**_period(), "formato": "csv"}, headers=headers)
    lines = list(csv.reader(io.StringIO(answer.get_data(as_text=True).lstrip("\ufeff")), delimiter=";"))
    head, rows = lines[0], []
    for line in lines[1:]:
        if len(line) != len(head):
            break
        rows.append(line)
    wanted = {"Neto tasa básica": "netoTasaBasica", "IVA tasa básica": "ivaTasaBasica"}
    wanted |= {"Neto tasa mínima": "netoTasaMinima", "IVA tasa mínima": "ivaTasaMinima", "Total": "total"}
    wanted |= {"Exento y no gravado": "noGravado", "Neto otra tasa": "netoOtraTasa", "IVA otra tasa": "ivaOtraTasa"}
    sums = {"count": Decimal(len(rows))}
    for label, name in wanted.items():
        column = head.index(f"{label} (UYU)")
        sums[name] = sum((Decimal(row[column].replace(".", "").replace(",", ".")) for row in rows), Decimal(0))
    return sums


def test_the_purchases_summary_adds_up_what_the_books_csv_files(api_client, user, purchases):
    """By rate, net, IVA and total equal the CSV book's columns for the same period; the CFE DGI rejected, the one
    rejected on arrival and the one rejected commercially are counted apart, never added."""
    answer = api_client.get(RESUMEN, query_string=_period(), headers=user)
    assert answer.status_code == 200, answer.json
    glance, sums = answer.json, _csv_book_sums(api_client, user)
    assert glance["cantidad"] == 3 == sums["count"]
    assert Decimal(glance["totalPesos"]) == sums["total"]
    assert (glance["rechazadosDgi"], glance["rechazadosEmpresa"]) == (1, 2)
    rates = {line["tasa"]: line for line in glance["porTasa"]}
    assert list(rates) == ["basica", "minima", "otra", "exento"]
    assert Decimal(rates["basica"]["porcentaje"]) == 22 and Decimal(rates["minima"]["porcentaje"]) == 10
    for rate, net, iva in (
        ("basica", "netoTasaBasica", "ivaTasaBasica"),
        ("minima", "netoTasaMinima", "ivaTasaMinima"),
    ):
        assert Decimal(rates[rate]["netoPesos"]) == sums[net]
        assert Decimal(rates[rate]["ivaPesos"]) == sums[iva]
        assert Decimal(rates[rate]["totalPesos"]) == sums[net] + sums[iva]
    assert Decimal(rates["exento"]["netoPesos"]) == sums["noGravado"] and rates["exento"]["ivaPesos"] == "0.00"
    assert Decimal(rates["basica"]["netoPesos"]) > 0  # the fixture's purchases are at the basic rate
    credit = sums["ivaTasaBasica"] + sums["ivaTasaMinima"] + sums["ivaOtraTasa"]
    assert Decimal(glance["totalTasas"]["ivaPesos"]) == credit == Decimal(glance["iva"]["ivaCreditoFiscal"])
    book = api_client.get(COMPRAS, query_string=_period(), headers=user).json
    assert glance["iva"] == book["declaracion"]
    assert {t["tipoCFE"]: t["cantidad"] for t in glance["porTipo"]} == {111: 2, 112: 1}
    (supplier,) = glance["principalesProveedores"]
    assert supplier["docEmisor"] == sup.SUPPLIER_RUT and supplier["cantidad"] == 3
    assert Decimal(supplier["totalPesos"]) == sums["total"]


def test_the_purchases_summary_counts_an_e_boleta_de_entrada(api_client, user):
    from tests.integration.test_export_api import today as dated_today
    from tests.support.cfe_bodies import issue
    from tests.unit.cfe.types_bodies import BOLETA

    boleta = issue(api_client, user, dated_today(BOLETA["151-imeba"]))
    glance = api_client.get(RESUMEN, query_string=_period(), headers=user).json
    assert glance["cantidad"] == 1 and glance["porTipo"][0]["tipoCFE"] == 151
    assert glance["totalPesos"] == boleta["totales"]["mntTotal"]


def test_the_purchases_summary_is_the_companys_own_and_its_members(api_client, auth_headers, purchases):
    """Another company's period holds none of these purchases; a person who is not a member of a company cannot
    read its summary; soporte (who reads) can; without a token, 401 in the API's error shape."""
    other = api_client.get(RESUMEN, query_string=_period(), headers=auth_headers("admin@demo.uy", company_id=2))
    assert other.status_code == 200, other.json
    assert other.json["cantidad"] == 0 and other.json["principalesProveedores"] == []
    assert other.json["totalPesos"] == "0.00" and other.json["rechazadosEmpresa"] == 0
    own = api_client.get(RESUMEN, query_string=_period(), headers=auth_headers("admin@demo.uy", company_id=1))
    assert own.json["cantidad"] == 3
    stranger = api_client.get(RESUMEN, query_string=_period(), headers=auth_headers("usuario@demo.uy", company_id=2))
    assert stranger.status_code == 403 and stranger.json["error"]["code"]
    assert api_client.get(RESUMEN, query_string=_period(), headers=auth_headers("soporte@demo.uy")).status_code == 200
    anonymous = api_client.get(RESUMEN, query_string=_period())
    assert anonymous.status_code == 401 and set(anonymous.json["error"]) >= {"code", "message", "requestId"}
    reversed_range = api_client.get(
        RESUMEN, query_string={"desde": "2026-02-01", "hasta": "2026-01-01"}, headers=auth_headers("soporte@demo.uy")
    )
    assert reversed_range.status_code == 422 and reversed_range.json["error"]["fields"][0]["field"] == "hasta"


PDF = "/api/v1/informes/periodo/pdf"
ENGLISH = {"Accept-Language": "en-US,en;q=0.9"}
A4_WIDTH_PT = 595.28


def _es(value: str) -> str:
    """An amount of the API ("1830.25") as the Spanish PDF writes it: 1.830,25."""
    return f"{Decimal(value):,.2f}".replace(",", "X").replace(".", ",").replace("X", ".")


def _en(value: str) -> str:
    """An amount of the API ("1830.25") as the English PDF writes it: 1,830.25."""
    return f"{Decimal(value):,.2f}"


def _pdf(api_client, headers: dict, period: dict, tmp_path, name: str) -> str:
    answer = api_client.get(PDF, query_string=period, headers=headers)
    assert answer.status_code == 200 and answer.mimetype == "application/pdf"
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(answer.data)
    if os.environ.get("CFE_SHOTS_DIR"):  # to look at it
        (Path(os.environ["CFE_SHOTS_DIR"]) / f"period-summary-{name}.pdf").write_bytes(answer.data)
    run = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True)
    return run.stdout


def _row(text: str, label: str, last: bool = False) -> list[str]:
    """The figures on the PDF's line that starts with `label` (the amounts of a row, left to right); of its last
    such line when `last` (the purchases' rows come after the sales' rows of the same name)."""
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith(label)]
    if not last:
        assert len(lines) == 1, lines
    return lines[-1][len(label) :].split()


@pytest.mark.parametrize(
    ("headers", "words"),
    [
        (
            {},
            {
                "rates": ("Tasa básica (22 %)", "Tasa mínima (10 %)", "Otra tasa", "Exento y no gravado"),
                "total": "Total",
                "count": "Comprobantes",
                "credit": "IVA crédito fiscal (total)",
                "dgi": "Rechazados por DGI (no suman)",
                "company": "Rechazados por la empresa (no suman)",
                "debit": "IVA débito fiscal (ventas)",
                "less": "IVA crédito fiscal (compras)",
                "position": "Saldo a favor estimado",
                "headings": ("Compras por tasa de IVA", "Principales proveedores", "Posición de IVA del período"),
                "estimate": "antes de las retenciones y percepciones de IVA sufridas",
                "amount": _es,
            },
        ),
        (
            ENGLISH,
            {
                "rates": ("Basic rate (22%)", "Minimum rate (10%)", "Other rate", "Exempt and not taxed"),
                "total": "Total",
                "count": "Receipts",
                "credit": "VAT input credit (total)",
                "dgi": "Rejected by DGI (not added)",
                "company": "Rejected by the company (not added)",
                "debit": "VAT output debit (sales)",
                "less": "VAT input credit (purchases)",
                "position": "Estimated balance in the company's favour",
                "headings": ("Purchases by VAT rate", "Top suppliers", "VAT position of the period (estimate)"),
                "estimate": "before the VAT withholdings and perceptions",
                "amount": _en,
            },
        ),
    ],
    ids=["es", "en"],
)
def test_the_period_pdf_carries_the_purchases_summary(api_client, user, purchases, tmp_path, headers, words):
    """The accountant's PDF of the period has the purchases side as GET /compras/resumen adds it up (by rate,
    the IVA credit, the rejected counted apart, the suppliers) and the IVA position: the sales' débito fiscal
    less the purchases' crédito fiscal, said to be an estimate before withholdings and perceptions; its amounts
    written in its language (the English one wrote them "14.967,86")."""
    amount = words["amount"]
    issue(api_client, user, bodies.body(bodies.EFACTURA))  # a sale, so that there is a débito fiscal
    glance = api_client.get(RESUMEN, query_string=_period(), headers=user).json
    sales = api_client.get("/api/v1/informes/periodo", query_string=_period(), headers=user).json
    text = _pdf(api_client, {**user, **headers}, _period(), tmp_path, "purchases-" + (headers and "en" or "es"))
    assert all(heading in text for heading in words["headings"])
    assert _row(text, words["count"], last=True) == [str(glance["cantidad"])] == ["3"]
    assert _row(text, words["credit"]) == ["$", amount(glance["iva"]["ivaCreditoFiscal"])]
    assert _row(text, words["dgi"], last=True) == ["1"] and _row(text, words["company"]) == ["2"]
    for label, line in zip(words["rates"], glance["porTasa"], strict=True):
        assert _row(text, label) == [amount(line["netoPesos"]), amount(line["ivaPesos"]), amount(line["totalPesos"])]
    rates_total = glance["totalTasas"]
    totals = [amount(rates_total["netoPesos"]), amount(rates_total["ivaPesos"]), amount(rates_total["totalPesos"])]
    assert _row(text, words["total"] + " ", last=True) == totals
    (supplier,) = glance["principalesProveedores"]
    assert _row(text, supplier["nombreEmisor"]) == [supplier["docEmisor"], "3", amount(supplier["totalPesos"])]
    debit, credit = Decimal(sales["iva"]["ivaDebitoFiscal"]), Decimal(glance["iva"]["ivaCreditoFiscal"])
    assert credit > debit > 0  # the fixture's purchases are more than the one sale: a balance in favour
    assert _row(text, words["debit"]) == [amount(str(debit))]
    assert _row(text, words["less"]) == ["-" + amount(str(credit))]
    assert _row(text, words["position"]) == [amount(str(credit - debit))]
    assert words["estimate"] in " ".join(text.split())


def test_the_period_pdf_says_a_period_without_purchases_has_none(api_client, user, tmp_path):
    period = {"desde": "2020-01-01", "hasta": "2020-01-31"}
    spanish = _pdf(api_client, user, period, tmp_path, "empty-es")
    english = _pdf(api_client, {**user, **ENGLISH}, period, tmp_path, "empty-en")
    assert "Sin compras en el período" in spanish and "Compras por tasa de IVA" not in spanish
    assert "No purchases in the period" in english and "Purchases by VAT rate" not in english
    assert _row(spanish, "IVA a pagar estimado") == ["0,00"]  # no sales either


def test_a_long_supplier_name_keeps_its_document_and_nothing_leaves_the_page(
    api_client, user, purchases, service_app, tmp_path
):
    """A supplier's name longer than its column wraps whole onto the lines under it, its document and figures
    whole beside its first line, and no word of any page reaches past the right margin."""
    long_name = "Cooperativa Agropecuaria de Productores Lecheros y Hortícolas del Litoral Norte y Noreste S.A."
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(update(ReceivedCfe).values(nombre_emisor=long_name))
    answer = api_client.get(PDF, query_string=_period(), headers={**user, **ENGLISH})
    (tmp_path / "long.pdf").write_bytes(answer.data)
    if os.environ.get("CFE_SHOTS_DIR"):
        (Path(os.environ["CFE_SHOTS_DIR"]) / "period-summary-long-supplier.pdf").write_bytes(answer.data)
    text = subprocess.run(
        ["pdftotext", "-layout", str(tmp_path / "long.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout
    lines = text.splitlines()
    (at,) = [index for index, line in enumerate(lines) if "Cooperativa Agropecuaria" in line]
    first, *beside = re.split(r"\s{2,}", lines[at].strip())
    assert "..." not in lines[at] and beside[0] == sup.SUPPLIER_RUT and beside[1] == "3"
    assert long_name in f"{first} {lines[at + 1].strip()}"
    boxes = subprocess.run(
        ["pdftotext", "-bbox", str(tmp_path / "long.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout
    right_edges = [float(edge) for edge in re.findall(r'<word xMin="[^"]+" yMin="[^"]+" xMax="([^"]+)"', boxes)]
    assert right_edges and max(right_edges) <= A4_WIDTH_PT - 15 / 25.4 * 72 + 1  # the 15 mm margin
