"""The portal's DGI badge (when it looks again, when it stops) and 'Emitir corregido' reading a signed CFE
back into the issuing form's fields, numbers written the way the form reads them."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from flask import Flask
from flask_babel import Babel
from hypothesis import given
from hypothesis import strategies as st

from portal.client.envios import DgiMotive
from portal.web.envios.badges import dgi_badge
from portal.web.envios.correction import correction_formdata, form_number
from portal.web.numbers import parse_decimal

CFE = """<?xml version="1.0" encoding="UTF-8"?>
<CFE xmlns="http://cfe.dgi.gub.uy" version="1.0"><eFact><TmstFirma>2026-11-23T18:26:09-03:00</TmstFirma><Encabezado>
<IdDoc><TipoCFE>111</TipoCFE><Serie>A</Serie><Nro>7</Nro><FchEmis>2026-11-20</FchEmis><MntBruto>1</MntBruto>
<FmaPago>2</FmaPago><FchVenc>2026-12-20</FchVenc></IdDoc>
<Receptor><TipoDocRecep>2</TipoDocRecep><CodPaisRecep>UY</CodPaisRecep><DocRecep>214844360018</DocRecep>
<RznSocRecep>DIRECCION GENERAL IMPOSITIVA</RznSocRecep><DirRecep>Fernandez Crespo 1534</DirRecep></Receptor>
<Totales><TpoMoneda>USD</TpoMoneda><TpoCambio>39.250</TpoCambio><MntTotal>1</MntTotal></Totales></Encabezado>
<Detalle><Item><NroLinDet>1</NroLinDet><IndFact>3</IndFact><NomItem>Consultoría</NomItem><Cantidad>10.000</Cantidad>
<UniMed>h</UniMed><PrecioUnitario>1500.000000</PrecioUnitario></Item>
<Item><NroLinDet>2</NroLinDet><IndFact>1</IndFact><NomItem>Libros</NomItem><Cantidad>2.000</Cantidad>
<UniMed>N/A</UniMed><PrecioUnitario>350.250000</PrecioUnitario><DescuentoMonto>5.50</DescuentoMonto></Item></Detalle>
<Referencia><Referencia><NroLinRef>1</NroLinRef><TpoDocRef>111</TpoDocRef><Serie>A</Serie><NroCFERef>3</NroCFERef>
<RazonRef>Ajuste</RazonRef></Referencia></Referencia>
</eFact></CFE>""".encode()


@pytest.fixture(autouse=True)
def app_context():
    app = Flask(__name__)
    Babel(app)
    with app.test_request_context():
        yield


@pytest.mark.parametrize(
    ("state", "final", "poll"),
    [
        ("pendiente", False, 3),
        ("recibido", False, 3),
        ("pendiente_reporte", False, 60),
        ("aceptado", True, None),
        ("rechazado", True, None),
        ("en_reporte", False, 30),
        ("en_reporte", True, None),
        ("estado_nuevo", False, 30),
    ],
)
def test_a_badge_looks_again_until_the_service_says_final(state, final, poll):
    badge = dgi_badge("abc", state, final=final)
    assert badge.poll_seconds == poll and badge.final is final


def test_a_rejected_badge_carries_dgis_reasons_and_says_it_is_rejected():
    badge = dgi_badge(
        "abc", "rechazado", [DgiMotive("E07", "Fecha Firma de CFE no se corresponde con fecha CAE")], final=True
    )
    assert badge.rejected and badge.tone == "bad" and badge.label == "Rechazado por DGI"
    assert [(r.code, r.text) for r in badge.reasons] == [("E07", "Fecha Firma de CFE no se corresponde con fecha CAE")]


def test_a_list_that_only_knows_the_id_asks_at_once():
    badge = dgi_badge("abc", None)
    assert (badge.state, badge.poll_seconds, badge.final) == ("consultando", 0, False)


@pytest.mark.parametrize(
    ("xml", "form"),
    [
        ("1500.000000", "1500"),
        ("350.250000", "350,25"),
        ("8.500", "8,5"),
        ("1.234", "1,234"),
        ("0.000", "0"),
        ("", ""),
        ("x", ""),
    ],
)
def test_numbers_are_written_as_the_form_reads_them(xml, form):
    assert form_number(xml) == form


@given(st.decimals(min_value=Decimal("0.000001"), max_value=Decimal("99999999"), places=6))
def test_what_the_form_writes_it_reads_back_as_the_same_number(value):
    assert parse_decimal(form_number(str(value))) == value


def test_a_signed_cfe_reads_back_into_the_issuing_form_dated_today_and_linked_to_the_rejected_one():
    data = correction_formdata(CFE, "3f2a9c0e5b9d4e0fa1c2d3e4f5a6b7c8", date(2026, 11, 23))
    assert data["corrige"] == "3f2a9c0e5b9d4e0fa1c2d3e4f5a6b7c8" and len(data["idempotency_key"]) == 32
    assert (data["fch_emis"], data["tipo_cfe"], data["fma_pago"], data["fch_venc"]) == (
        "23/11/2026",
        "111",
        "2",
        "20/12/2026",
    )
    assert (data["tpo_moneda"], data["tpo_cambio"], data["mnt_bruto"]) == ("USD", "39,25", "y")
    assert (data["tipo_doc_recep"], data["doc_recep"], data["rzn_soc_recep"]) == (
        "2",
        "214844360018",
        "DIRECCION GENERAL IMPOSITIVA",
    )
    assert "ciudad_recep" not in data
    assert [data[f"lines-0-{n}"] for n in ("ind_fact", "nom_item", "cantidad", "uni_med", "precio_unitario")] == [
        "3",
        "Consultoría",
        "10",
        "h",
        "1500",
    ]
    assert [data[f"lines-1-{n}"] for n in ("uni_med", "precio_unitario", "descuento")] == ["", "350,25", "5,5"]
    assert (data["ref_tipo"], data["ref_serie"], data["ref_nro"], data["ref_razon"]) == ("111", "A", "3", "Ajuste")


def test_a_document_that_is_not_a_cfe_is_refused():
    with pytest.raises(ValueError):
        correction_formdata(b"<Otro/>", "x", date(2026, 11, 23))
