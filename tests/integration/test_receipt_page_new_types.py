"""The receipt page and form of the types added after the first eight (export, e-Remito, e-Resguardo, cuenta
ajena, e-Boleta).

The amount a receipt's page puts first is the one the receipt stands for, as DGI's QR link carries it: the
amount to pay of a sale, the goods' total of an e-Remito de Exportación, the total withheld of an e-Resguardo, and
none for an e-Remito, which moves goods without prices (CFE-URUGUAY.md section 5). The page said "Total a pagar
$ 0,00" above an e-Resguardo that withheld $ 10.000 and above every e-Remito, and "Total a pagar" above the goods
an e-Remito de Exportación only moves (nobody pays a remito)."""

from __future__ import annotations

import pytest

from tests.support.cfe_bodies import BUYER
from tests.support.html import soup, text

FOREIGN_BUYER = {
    "tipoDocRecep": 5,
    "codPaisRecep": "AR",
    "docRecep": "AB123456",
    "rznSocRecep": "Lanas del Plata SA",
    "dirRecep": "Av. Corrientes 1234",
    "paisRecep": "Argentina",
}
BODIES = {
    "e-Resguardo": {
        "tipoCFE": 182,
        "receptor": BUYER,
        "items": [
            {"retencPercep": [{"codRet": "2183165", "tasa": "50", "mntSujetoaRet": "22000", "valRetPerc": "10000"}]}
        ],
    },
    "e-Remito": {
        "tipoCFE": 181,
        "tipoTraslado": 1,
        "receptor": BUYER,
        "items": [{"nomItem": "Cajas de manzanas", "cantidad": "12", "uniMed": "caja"}],
    },
    "e-Remito de exportación": {
        "tipoCFE": 124,
        "tipoTraslado": 1,
        "clauVenta": "FOB",
        "modVenta": 1,
        "viaTransp": 1,
        "receptor": FOREIGN_BUYER,
        "items": [{"nomItem": "Lana sucia", "cantidad": "1000", "uniMed": "kg", "precioUnitario": "3.5"}],
    },
    "e-Factura": {
        "tipoCFE": 111,
        "fmaPago": 2,
        "receptor": BUYER,
        "items": [{"indFact": 3, "nomItem": "Consultoría", "cantidad": "10", "precioUnitario": "1500"}],
    },
}
# type -> (the header's label and amount, the totals table's rows)
SHOWN = {
    "e-Resguardo": (("Total retenido", "$\u00a010.000,00"), [("Total retenido", "$\u00a010.000,00")]),
    "e-Remito": (None, None),
    "e-Remito de exportación": (
        ("Total", "$\u00a03.500,00"),
        [("Exportación y asimiladas", "$\u00a03.500,00"), ("Total", "$\u00a03.500,00")],
    ),
    "e-Factura": (
        ("Total a pagar", "$\u00a018.300,00"),
        [
            ("Neto gravado a tasa básica (22\u00a0%)", "$\u00a015.000,00"),
            ("IVA tasa básica (22\u00a0%)", "$\u00a03.300,00"),
            ("Total", "$\u00a018.300,00"),
            ("Total a pagar", "$\u00a018.300,00"),
        ],
    ),
}


@pytest.mark.parametrize("kind", list(BODIES))
def test_the_page_heads_a_receipt_with_the_amount_it_stands_for(kind, signed_in, live_service, live_token_for):
    service = live_service.app.test_client()
    admin = {"Authorization": f"Bearer {live_token_for('admin@demo.uy')}", "X-Empresa-Id": "1"}
    issued = service.post("/api/v1/comprobante/emitir", json=BODIES[kind], headers=admin)
    assert issued.status_code == 201, issued.json

    page = soup(signed_in("usuario@demo.uy").get(f"/comprobantes/{issued.json['idCfeEmitido']}"))
    headline, rows = SHOWN[kind]
    chip = page.select_one(".receipt-meta .total-chip")
    if headline is None:
        assert chip is None, chip.get_text(" ", strip=True)
    else:
        label, amount = headline
        assert chip.get_text(" ", strip=True) == f"{label} {amount}"
    table = page.select_one("[data-testid=totals]")
    if rows is None:
        assert table is None, table.get_text(" ", strip=True)
    else:
        shown = [(tr.th.get_text(strip=True), tr.td.get_text(strip=True)) for tr in table.select("tr")]
        assert shown == rows


@pytest.mark.parametrize(
    ("original", "note", "title"),
    [
        (
            121,
            {"tipoCFE": 122, "clauVenta": "FOB", "modVenta": 1, "viaTransp": 1, "fmaPago": 1},
            "Nota de crédito e-Factura de exportación A-0000001, de e-Factura de exportación A-0000002",
        ),
        (
            141,
            {"tipoCFE": 143, "fmaPago": 1},
            "Nota de débito e-Factura venta por cuenta ajena A-0000001, de e-Factura venta por cuenta ajena A-0000002",
        ),
    ],
)
def test_a_note_of_the_newer_types_is_named_as_a_note_with_its_original(
    original, note, title, signed_in, live_service, live_token_for
):
    """A note's own number follows "Nota de crédito e-Factura", never "Nota de crédito de e-Factura": the title
    "Nota de crédito de e-Factura de exportación A-0000002" read as a note of export e-Factura A-0000002, and left out
    the receipt the note adjusts (only the first eight types' notes were named so)."""
    service = live_service.app.test_client()
    admin = {"Authorization": f"Bearer {live_token_for('admin@demo.uy')}", "X-Empresa-Id": "1"}
    bodies = {
        121: {
            "tipoCFE": 121,
            "fmaPago": 1,
            "clauVenta": "FOB",
            "modVenta": 1,
            "viaTransp": 1,
            "tpoMoneda": "USD",
            "tpoCambio": "40",
            "receptor": FOREIGN_BUYER,
            "items": [{"indFact": 10, "nomItem": "Lana", "cantidad": "1", "precioUnitario": "100"}],
        },
        141: {
            "tipoCFE": 141,
            "fmaPago": 1,
            "receptor": BUYER,
            "complFiscal": {"tipoDocMdte": 3, "pais": "UY", "docMdte": "12345672", "nombreMdte": "Juan Pérez"},
            "items": [{"indFact": 3, "nomItem": "Novillos", "cantidad": "1", "precioUnitario": "1000"}],
        },
    }
    for _ in range(2):  # the note's number differs from its original's
        issued = service.post("/api/v1/comprobante/emitir", json=bodies[original], headers=admin)
        assert issued.status_code == 201, issued.json
    body = {**bodies[original], **note, "items": [{**bodies[original]["items"][0], "precioUnitario": "10"}]}
    body["referencias"] = [{"tpoDocRef": original, "serie": "A", "nroCFERef": 2, "razonRef": "Ajuste de precio"}]
    made = service.post("/api/v1/comprobante/emitir", json=body, headers=admin)
    assert made.status_code == 201, made.json

    page = soup(signed_in("usuario@demo.uy").get(f"/comprobantes/{made.json['idCfeEmitido']}"))
    assert text(page.h1) == title
    # On a phone the title wrapped after "e-" ("Nota de crédito e-" above "Factura de exportación"): each e- word
    # holds together, as the receipt's numbers do.
    assert [word.get_text() for word in page.h1.select(".unbroken")] == ["e-Factura", "e-Factura"]


@pytest.mark.parametrize("tipo", ["181", "182"])
def test_an_eremito_or_eresguardo_form_starts_with_a_rut_receiver(tipo, signed_in):
    """Both always identify their receiver, a company with its RUT (e-Factura's form already started with RUT):
    they started at "Sin identificar (consumo final)", which they can never take, and the person learnt it from the
    refusal ("e-Resguardo debe identificar al receptor")."""
    from tests.integration.test_comprobantes_portal import form_values, new_form

    user = signed_in("usuario@demo.uy")
    opened = form_values(soup(user.get(f"/comprobantes/nuevo?tipoCFE={tipo}", follow_redirects=True)))
    switched = form_values(soup(user.post("/comprobantes/nuevo/tipo", data={**new_form(user), "tipo_cfe": tipo})))
    assert (opened["tipo_doc_recep"], switched["tipo_doc_recep"]) == ("2", "2")


def test_an_eboleta_names_its_other_party_the_seller(signed_in, live_service, live_token_for):
    """An e-Boleta de entrada is the company's own purchase document: the other party is the seller, as its form
    and its PDF ("RUC VENDEDOR") say; its page said "Receptor"."""
    from tests.unit.cfe.types_bodies import BOLETA

    service = live_service.app.test_client()
    admin = {"Authorization": f"Bearer {live_token_for('admin@demo.uy')}", "X-Empresa-Id": "1"}
    body = {k: v for k, v in BOLETA["151-imeba"].items() if k not in ("fchEmis", "fchVenc")}
    issued = service.post("/api/v1/comprobante/emitir", json=body, headers=admin)
    assert issued.status_code == 201, issued.json
    page = soup(signed_in("usuario@demo.uy").get(f"/comprobantes/{issued.json['idCfeEmitido']}"))
    assert page.find(id="receiver-heading").get_text(strip=True) == "Vendedor"
