"""The receipt list: every filter, the number typed any way, keyset pages, totals and the CSV export."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest
from sqlalchemy import select, text, update

from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante import search
from portal.service.comprobante.export import HEADER, csv_row, text_cell
from portal.service.comprobante.models import IssuedCfe
from portal.service.platform import db
from tests.support import cfe_bodies as bodies
from tests.support import receipt_copies
from tests.support.cfe_bodies import issue

BUSCAR = "/api/v1/comprobante/buscar"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def issued(api_client, user):
    """Three e-Tickets, an e-Factura to DGI in dollars and one to 'Ñandú S.A.', in that order."""
    tickets = [issue(api_client, user, bodies.body(bodies.ETICKET)) for _ in range(3)]
    factura = bodies.body(bodies.EFACTURA)
    factura.update(tpoMoneda="USD", tpoCambio="40.000")
    dollars = issue(api_client, user, factura, **{"Idempotency-Key": "pedido-4512"})
    other = bodies.body(bodies.EFACTURA)
    other["receptor"] = {**bodies.BUYER, "docRecep": "211003420017", "rznSocRecep": "Ñandú S.A."}
    nandu = issue(api_client, user, other)
    return {"tickets": tickets, "dollars": dollars, "nandu": nandu}


def _newest_first(*receipts) -> list[str]:
    """The list's order: issue date, then number, then id, all descending."""
    ordered = sorted(receipts, key=lambda r: (r["fchEmis"], r["nro"], r["idCfeEmitido"]), reverse=True)
    return [r["idCfeEmitido"] for r in ordered]


def _ids(answer) -> list[str]:
    assert answer.status_code == 200, answer.json
    return [c["idCfeEmitido"] for c in answer.json["items"]]


def test_lists_every_receipt_newest_first_with_totals_per_currency(api_client, user, issued):
    answer = api_client.get(BUSCAR, headers=user)
    assert _ids(answer) == _newest_first(issued["nandu"], issued["dollars"], *issued["tickets"])
    first = next(c for c in answer.json["items"] if c["idCfeEmitido"] == issued["nandu"]["idCfeEmitido"])
    assert first["numero"] == f"A-{issued['nandu']['nro']:07d}"
    assert first["receptor"] == {"docRecep": "211003420017", "rznSocRecep": "Ñandú S.A."}
    totals = {t["moneda"]: t for t in answer.json["totales"]}
    assert answer.json["total"] == 5
    assert totals["USD"]["cantidad"] == 1 and totals["USD"]["mntTotal"] == issued["dollars"]["totales"]["mntTotal"]
    pesos = sum(float(r["totales"]["mntTotal"]) for r in (*issued["tickets"], issued["nandu"]))
    assert float(totals["UYU"]["mntTotal"]) == pytest.approx(pesos)


@pytest.mark.parametrize("typed", ["A-{n}", "A {n:07d}", "A{n}", "a-{n}", "{n}", "A-000{n}"])
def test_finds_a_receipt_by_its_number_however_it_is_typed(api_client, user, issued, typed):
    wanted = issued["tickets"][1]
    answer = api_client.get(
        BUSCAR, query_string={"numero": typed.format(n=wanted["nro"]), "tipoCFE": 101}, headers=user
    )
    assert _ids(answer) == [wanted["idCfeEmitido"]]


def test_filters_by_receiver_prefix_without_accents_case_or_punctuation(api_client, user, issued):
    nandu = issued["nandu"]["idCfeEmitido"]
    for typed in ("ñandu", "NAND", "21-100342", "2110034"):
        assert _ids(api_client.get(BUSCAR, query_string={"receptor": typed}, headers=user)) == [nandu], typed
    assert _ids(api_client.get(BUSCAR, query_string={"receptor": "andú"}, headers=user)) == []


def test_filters_by_type_currency_amount_state_and_reference(api_client, user, issued, service_app):
    dollars = issued["dollars"]["idCfeEmitido"]
    assert _ids(api_client.get(BUSCAR, query_string={"moneda": "USD"}, headers=user)) == [dollars]
    assert _ids(api_client.get(BUSCAR, query_string={"referencia": "pedido-4512"}, headers=user)) == [dollars]
    assert len(_ids(api_client.get(BUSCAR, query_string={"tipoCFE": 111}, headers=user))) == 2
    ticket_total = issued["tickets"][0]["totales"]["mntTotal"]
    around = {"montoDesde": ticket_total, "montoHasta": ticket_total, "tipoCFE": 101}
    assert len(_ids(api_client.get(BUSCAR, query_string=around, headers=user))) == 3
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(update(IssuedCfe).where(IssuedCfe.id == dollars).values(dgi_status="rechazado"))
    assert _ids(api_client.get(BUSCAR, query_string={"estadoDGI": "rechazado"}, headers=user)) == [dollars]


def test_filters_by_issue_date_range(api_client, user, issued, service_app):
    old = issued["tickets"][0]["idCfeEmitido"]
    last_month = today_montevideo() - timedelta(days=30)
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(update(IssuedCfe).where(IssuedCfe.id == old).values(fch_emis=last_month))
    window = {
        "desde": (last_month - timedelta(days=1)).isoformat(),
        "hasta": (last_month + timedelta(days=1)).isoformat(),
    }
    assert _ids(api_client.get(BUSCAR, query_string=window, headers=user)) == [old]
    recent = _ids(api_client.get(BUSCAR, query_string={"desde": today_montevideo().isoformat()}, headers=user))
    assert old not in recent and len(recent) == 4


def test_pages_stay_stable_while_receipts_are_issued(api_client, user, issued):
    first = api_client.get(BUSCAR, query_string={"limite": 2}, headers=user)
    assert len(_ids(first)) == 2 and first.json["total"] == 5
    issue(api_client, user, bodies.body(bodies.ETICKET))  # the newest e-Ticket: before the cursor
    second = api_client.get(BUSCAR, query_string={"limite": 2, "cursor": first.json["siguienteCursor"]}, headers=user)
    third = api_client.get(BUSCAR, query_string={"limite": 2, "cursor": second.json["siguienteCursor"]}, headers=user)
    seen = _ids(first) + _ids(second) + _ids(third)
    assert seen == _newest_first(issued["nandu"], issued["dollars"], *issued["tickets"])
    assert third.json["siguienteCursor"] is None


def test_another_company_sees_none_of_them(api_client, auth_headers, issued):
    other = auth_headers("admin@demo.uy", company_id=2)
    answer = api_client.get(BUSCAR, headers=other)
    assert _ids(answer) == [] and answer.json["total"] == 0 and answer.json["totales"] == []


@pytest.mark.parametrize(
    "params, field",
    [
        ({"numero": "A-B-15"}, "numero"),
        ({"desde": "2026-02-30"}, "desde"),
        ({"cursor": "no-es-un-cursor"}, "cursor"),
        ({"estadoDGI": "perdido"}, "estadoDGI"),
        ({"limite": 500}, "limite"),
        ({"orden": "x"}, "orden"),
    ],
)
def test_bad_filters_get_a_422_naming_the_field(api_client, user, params, field):
    answer = api_client.get(BUSCAR, query_string=params, headers=user)
    assert answer.status_code == 422
    assert [f["field"] for f in answer.json["error"]["fields"]] == [field]
    assert all(
        word not in answer.json["error"]["message"] + str(answer.json["error"]["fields"])
        for word in ("Value error", "Input should")
    )


def test_reversed_date_range_is_refused_in_spanish(api_client, user):
    answer = api_client.get(BUSCAR, query_string={"desde": "2026-05-02", "hasta": "2026-05-01"}, headers=user)
    assert answer.status_code == 422
    assert "posterior" in answer.json["error"]["fields"][0]["message"]
    assert answer.json["error"]["fields"][0]["field"] == "hasta"  # a query parameter, not "body"
    amounts = api_client.get(BUSCAR, query_string={"montoDesde": "10", "montoHasta": "5"}, headers=user)
    assert amounts.status_code == 422 and amounts.json["error"]["fields"][0]["field"] == "montoHasta"


def test_csv_export_is_the_whole_filtered_set_for_a_spreadsheet(api_client, user, issued):
    with api_client.get(
        BUSCAR, query_string={"tipoCFE": 111, "limite": 1}, headers={**user, "Accept": "text/csv"}
    ) as answer:  # streamed: closed as a server would
        assert answer.status_code == 200 and answer.mimetype == "text/csv"
        assert "attachment" in answer.headers["Content-Disposition"]
        text = answer.data.decode("utf-8")
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=";"))
    assert rows[0][:4] == ["Fecha", "Tipo", "Serie", "Número"]
    assert len(rows) == 3  # header + both e-Facturas (the page size does not cut an export)
    nandu = rows[1]
    assert nandu[0] == today_montevideo().strftime("%d/%m/%Y")
    assert nandu[1] == "e-Factura" and nandu[5] == "Ñandú S.A."
    assert nandu[7] == issued["nandu"]["totales"]["mntTotal"].replace(".", ",")
    assert nandu[9] == "Pendiente de envío a DGI"


def _csv_rows(api_client, user, **filters) -> list[list[str]]:
    with api_client.get(BUSCAR, query_string=filters, headers={**user, "Accept": "text/csv"}) as answer:
        assert answer.status_code == 200
        text = answer.data.decode("utf-8")
    return list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=";"))


@pytest.mark.parametrize("name", ['=HYPERLINK("http://x";"a")', "+54 cuotas", "-1+1", "@SUM(A1)"])
def test_csv_export_writes_a_formula_a_receiver_typed_as_plain_text(api_client, user, name):
    factura = bodies.body(bodies.EFACTURA)
    factura["receptor"] = {**bodies.BUYER, "rznSocRecep": name}
    issue(api_client, user, factura)
    rows = _csv_rows(api_client, user, tipoCFE=111)
    assert rows[1][5] == "'" + name  # a spreadsheet shows it as typed and never runs it


@pytest.mark.parametrize("value", ["\tTab", "\rCR", "=1+1"])
def test_a_text_cell_starting_like_a_formula_is_quoted(value):
    # Tab and CR: the service strips them off a receiver's name, but not necessarily off every text it exports.
    assert text_cell(value) == "'" + value and text_cell("Ñandú S.A.") == "Ñandú S.A."


def test_csv_export_keeps_amounts_as_numbers():
    row = SimpleNamespace(
        fch_emis=today_montevideo(),
        tipo_cfe=102,
        serie="A",
        nro=7,
        receptor_doc=None,
        receptor_nombre="-Ajuste",
        tpo_moneda="UYU",
        mnt_total=Decimal("1250.5"),
        mnt_pagar=Decimal("1250.5"),
        dgi_status="pendiente",
        id="abc",
        request_id=None,
        netoTasaBasica="1025.00",
        ivaTasaBasica="225.50",
        total="1250.50",
    )
    cells = csv_row(row)
    # A credit note's amounts are negative, as the list's totals count them; net and IVA per rate follow.
    assert cells[5] == "'-Ajuste" and cells[7] == cells[8] == "-1250,50"
    by_name = dict(zip(HEADER, cells, strict=True))
    assert by_name["Neto tasa básica"] == "-1025,00" and by_name["IVA tasa básica"] == "-225,50"
    assert by_name["Neto tasa mínima"] == "0,00" and by_name["Anulado por"] == ""


def test_other_formats_are_refused(api_client, user):
    answer = api_client.get(BUSCAR, headers={**user, "Accept": "application/pdf"})
    assert answer.status_code == 406 and answer.json["error"]["code"] == "not_acceptable"


def test_credit_notes_subtract_from_the_totals(api_client, user):
    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    api_client.post(
        "/api/v1/comprobante/notaCreditoTotal",
        headers=user,
        json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "Error"},
    )
    answer = api_client.get(BUSCAR, headers=user)
    assert answer.json["total"] == 2 and answer.json["totales"] == [
        {"moneda": "UYU", "cantidad": 2, "mntTotal": "0.00"}
    ]


def _every_page(api_client, user, params: dict) -> tuple[list[str], int]:
    """The ids of every page of a search, following its cursors, and the count the first page gave."""
    answer = api_client.get(BUSCAR, query_string={**params, "limite": 37}, headers=user)
    seen, count = _ids(answer), answer.json["total"]
    while answer.json["siguienteCursor"]:
        answer = api_client.get(
            BUSCAR, query_string={**params, "limite": 37, "cursor": answer.json["siguienteCursor"]}, headers=user
        )
        seen += _ids(answer)
    return seen, count


RECEIVER_TEXTS = (
    ("21", None),  # RUT prefix of most receipts, and the start of the name "21 de Setiembre"
    ("12", None),
    ("21-100342", None),
    ("fe", None),
    ("ferreteria nor", None),
    ("ÑANDÚ", None),
    ("optica union", None),
    ("AR20", None),
    ("21", 111),
    ("fe", 101),
    ("arapey", None),  # a word in the middle of the name: "Viajes Arapey S.R.L."
    ("prado", None),
    ("norte ferreteria", None),  # every word, in any order
    ("s.r.l", None),
)


@pytest.mark.parametrize("many", [0, 10**9], ids=["along the list index", "from the receiver indexes"])
def test_receiver_filter_finds_what_a_plain_reading_finds_page_after_page(
    api_client, user, service_app, monkeypatch, many
):
    monkeypatch.setattr(search, "MANY_RECEIVER_MATCHES", many)
    issue(api_client, user, bodies.body(bodies.EFACTURA))
    rows = receipt_copies.fill(service_app, 300)
    for typed, tipo in RECEIVER_TEXTS:
        wanted = [r for r in rows if receipt_copies.receiver_matches(r, typed) and tipo in (None, r["tipo_cfe"])]
        seen, count = _every_page(api_client, user, {"receptor": typed, **({"tipoCFE": tipo} if tipo else {})})
        assert seen == receipt_copies.in_list_order(wanted) and count == len(wanted), (typed, tipo)
        assert 0 < count < len(rows)


def _plans(service_app, typed: str, table: str = "receptor_doc") -> list[list[str]]:
    """SQLite's plans for the page and the totals of the receipts whose receiver starts with `typed`."""
    with service_app.app_context():
        session = db.session()
        company = session.scalar(select(IssuedCfe.company_id))
        with receipt_copies.statements_run(session) as run:
            where = search.conditions(session, company, search.Filters(receptor=typed))
            search.page(session, where, None, 50)
            search.totals(session, where)
        return [
            [row[3] for row in session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", parameters)]
            for sql, parameters in run
            if table in sql and ("ORDER BY" in sql or "sum(" in sql or table != "receptor_doc")
        ]


def test_receiver_filter_reads_no_receipt_from_the_table_it_does_not_list_on_sqlite(
    api_client, user, service_app, monkeypatch
):
    """Many matches ("21", most receipts): tested on ix_cfe_emitido_listado's entries in list order, so the
    page stops after its rows and the totals read only that index, never the receipts from the table one by
    one through the receiver indexes. Few matches: found through the receiver indexes."""
    monkeypatch.setattr(search, "MANY_RECEIVER_MATCHES", 100)
    issue(api_client, user, bodies.body(bodies.EFACTURA))
    receipt_copies.fill(service_app, 300)
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(text("ANALYZE"))  # as a real database has statistics (the bench runs it too)
    assert _plans(service_app, "21") == [
        ["SEARCH cfe_emitido USING INDEX ix_cfe_emitido_listado (company_id=?)"],
        [  # the totals: at most LIST_TOTALS_LIMIT + 1 of the index's entries, then grouped per currency
            "CO-ROUTINE anon_1",
            "SEARCH cfe_emitido USING COVERING INDEX ix_cfe_emitido_listado (company_id=?)",
            "SCAN anon_1",
            "USE TEMP B-TREE FOR GROUP BY",
        ],
    ]
    few_page, few_totals = _plans(service_app, "AR20")  # no name has a word starting "ar20": the document alone
    assert all(
        any("ix_cfe_emitido_receptor_doc_reciente (company_id=? AND receptor_doc>?" in line for line in p)
        for p in (few_page, few_totals)
    )


def test_a_word_in_the_middle_of_a_name_is_found_through_the_word_tables_key_on_sqlite(api_client, user, service_app):
    """#25 item 18: "arapey" finds "Viajes Arapey S.R.L." with no `LIKE '%arapey%'` over the receipts: the
    typed word is a range on cfe_receptor_palabra's key, then the names are looked up as values."""
    issue(api_client, user, bodies.body(bodies.EFACTURA))
    receipt_copies.fill(service_app, 300)
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(text("ANALYZE"))
    (words,) = _plans(service_app, "arapey", table="cfe_receptor_palabra")
    assert words == [
        "SEARCH cfe_receptor_palabra USING COVERING INDEX sqlite_autoindex_cfe_receptor_palabra_1 "
        "(company_id=? AND palabra>? AND palabra<?)"
    ]
    found = api_client.get(BUSCAR, query_string={"receptor": "Arapey"}, headers=user).json["items"]
    assert found and {r["receptor"]["rznSocRecep"] for r in found} == {"Viajes Arapey S.R.L."}


def test_the_list_and_its_csv_show_credit_notes_negative_and_a_cancelled_receipt_with_its_note(api_client, user):
    cancelled = issue(api_client, user, bodies.body(bodies.EFACTURA))
    kept = issue(api_client, user, bodies.body(bodies.EFACTURA))
    note = api_client.post(
        "/api/v1/comprobante/notaCreditoTotal",
        headers=user,
        json={"idCfeEmitido": cancelled["idCfeEmitido"], "razon": "Error"},
    ).json

    listed = api_client.get(BUSCAR, headers=user).json
    rows = {item["idCfeEmitido"]: item for item in listed["items"]}
    shown_note = rows[note["idCfeEmitido"]]
    assert Decimal(shown_note["importe"]) == -Decimal(shown_note["mntTotal"]) < 0
    assert rows[cancelled["idCfeEmitido"]]["anulado"] is True
    assert rows[cancelled["idCfeEmitido"]]["anuladoPor"] == {
        "idCfeEmitido": note["idCfeEmitido"],
        "tipoCFE": 112,
        "numero": shown_note["numero"],
    }
    assert rows[kept["idCfeEmitido"]]["anulado"] is False and rows[kept["idCfeEmitido"]]["anuladoPor"] is None
    # The rows add up to the list's total: the cancelled receipt and its note make nothing.
    assert sum(Decimal(item["importe"]) for item in listed["items"]) == Decimal(listed["totales"][0]["mntTotal"])
    assert Decimal(listed["totales"][0]["mntTotal"]) == Decimal(rows[kept["idCfeEmitido"]]["mntTotal"])

    header, *lines = _csv_rows(api_client, user)
    by_id = {line[header.index("Identificador")]: dict(zip(header, line, strict=True)) for line in lines}
    original, credit = by_id[cancelled["idCfeEmitido"]], by_id[note["idCfeEmitido"]]
    assert original["Anulado por"] == f"Nota de Crédito de e-Factura {shown_note['numero']}"
    assert credit["Total"].startswith("-") and credit["Total"][1:] == original["Total"]
    for column in ("Neto tasa básica", "IVA tasa básica", "Neto tasa mínima", "IVA tasa mínima"):
        assert credit[column] in ("0,00", "-" + original[column]), column
    net = Decimal(original["Neto tasa básica"].replace(",", ".")) + Decimal(
        original["Neto tasa mínima"].replace(",", ".")
    )
    iva = Decimal(original["IVA tasa básica"].replace(",", ".")) + Decimal(
        original["IVA tasa mínima"].replace(",", ".")
    )
    exempt = Decimal(original["Exento y no gravado"].replace(",", "."))
    assert net + iva + exempt == Decimal(original["Total"].replace(",", ".")) and iva > 0


def test_a_common_word_adds_up_its_matches_from_the_name_index_alone_on_sqlite(
    api_client, user, service_app, monkeypatch
):
    """#25 item 18 at 100,000 receipts: a word many receipts share ("ferreteria", two names of nine) pages along
    the list index (stopping after its rows), and its totals read only the matching entries of the receiver
    name index, which holds what they add up (0170), instead of walking every receipt of the company."""
    monkeypatch.setattr(search, "MANY_RECEIVER_MATCHES", 20)
    issue(api_client, user, bodies.body(bodies.EFACTURA))
    rows = receipt_copies.fill(service_app, 300)
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(text("ANALYZE"))
    with service_app.app_context():
        session = db.session()
        company = session.scalar(select(IssuedCfe.company_id))
        with receipt_copies.statements_run(session) as run:
            where, totals_where = search.conditions_and_totals(session, company, search.Filters(receptor="ferreteria"))
            search.page(session, where, None, 50)
            found = search.totals(session, totals_where)
        plans = [
            [row[3] for row in session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", parameters)]
            for sql, parameters in run
            if "cfe_emitido." in sql and "DISTINCT" not in sql and ("ORDER BY" in sql or "sum(" in sql)
        ]
    assert plans == [
        ["SEARCH cfe_emitido USING INDEX ix_cfe_emitido_listado (company_id=?)"],
        [  # the totals: at most LIST_TOTALS_LIMIT + 1 index entries, then grouped per currency
            "CO-ROUTINE anon_1",
            "SEARCH cfe_emitido USING COVERING INDEX ix_cfe_emitido_receptor_busqueda "
            "(company_id=? AND receptor_busqueda=?)",
            "SCAN anon_1",
            "USE TEMP B-TREE FOR GROUP BY",
        ],
    ]
    wanted = [r for r in rows if receipt_copies.receiver_matches(r, "ferreteria")]
    assert not found.bounded and sum(total.cantidad for total in found.currencies) == len(wanted) > 20
    seen, count = _every_page(api_client, user, {"receptor": "ferreteria"})
    assert seen == receipt_copies.in_list_order(wanted) and count == len(wanted)


def test_the_totals_are_net_sales_an_export_remito_or_a_purchase_adds_nothing(api_client, user):
    """An e-Remito de Exportación's MntTotal is the goods it moves, and an e-Boleta de entrada is a purchase: the
    list's totals (net sales per currency) left them out of the sums, while the count keeps every receipt."""
    from tests.integration.test_export_api import today as dated_today
    from tests.unit.cfe.types_bodies import BOLETA, EXPORT

    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    remito = issue(api_client, user, dated_today(EXPORT["124"]))
    boleta = issue(api_client, user, dated_today(BOLETA["151-imeba"]))
    answer = api_client.get(BUSCAR, headers=user).json
    assert answer["total"] == 3
    sums = {t["moneda"]: t for t in answer["totales"]}
    assert sums["UYU"]["mntTotal"] == factura["totales"]["mntTotal"] and sums["UYU"]["cantidad"] == 1, answer
    if remito["tpoMoneda"] != "UYU":  # a currency with the remito alone has no sale to sum
        assert remito["tpoMoneda"] not in sums
    assert boleta["totales"]["mntTotal"] != "0.00"


def test_an_e_resguardos_row_stands_for_its_total_withheld(api_client, user):
    """An e-Resguardo bills nothing (MntTotal 0): its row said $ 0,00 where its page and QR say the total
    withheld. The row now gives that total; as no sale, it adds nothing to the net sales."""
    resguardo = issue(api_client, user, bodies.body(bodies.ERESGUARDO))
    withheld = resguardo["totales"]["mntTotRetenido"]
    assert withheld != "0.00"
    answer = api_client.get(BUSCAR, headers=user).json
    (row,) = answer["items"]
    assert row["importe"] == withheld and row["mntTotal"] == "0.00", row
    assert answer["totales"] == []
