"""The daily report document: amounts in pesos, ranges of numbers used and voided, DGI's schema."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from lxml import etree

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe.schema import validate_xml
from portal.service.cfe.signing import CfeSigner
from portal.service.envios import report_xml
from portal.service.platform.certificates import generate_self_signed

D = "{http://cfe.dgi.gub.uy}"
DAY = date(2026, 11, 20)
TOTALS = {
    "mntNetoIVATasaBasica": "100.00",
    "mntIVATasaBasica": "22.00",
    "mntTotal": "122.00",
    "ivaTasaMin": "10",
    "ivaTasaBasica": "22",
}


def test_foreign_currency_is_reported_in_pesos_and_numbers_as_ranges():
    summary = report_xml.TypeSummary()
    for nro in (1, 2, 3, 7):
        summary.add_receipt(DAY, 1, "A", nro, TOTALS, Decimal(1), above_threshold=True)
    summary.add_receipt(DAY, 1, "A", 8, TOTALS, Decimal("40.125"), above_threshold=True)  # U$S at 40.125
    summary.voided["A"].append((4, 6))
    document = report_xml.report_document(
        rut="219999830019",
        fecha=DAY,
        sec_envio=2,
        signed_at=datetime(2026, 11, 21, 0, 10, tzinfo=MONTEVIDEO),
        summaries={111: summary},
    )
    signed = CfeSigner(*generate_self_signed("219999830019", "test")).sign(document).xml
    assert validate_xml(signed, "ReporteDiarioCFE.xsd") == []
    root = etree.fromstring(signed)
    data = root.find(f"{D}Rsmn_Fac/{D}RsmnData")
    item = data.find(f"{D}Montos/{D}Mnts_FyT_Item")
    assert item.findtext(f"{D}TotMntTotal") == f"{Decimal('122') * 4 + Decimal('122') * Decimal('40.125'):.2f}"
    assert item.findtext(f"{D}TotMntIVATasaBas") == "4412.50"  # 400 + 100 x 40.125
    used = [(r.findtext(f"{D}NroDesde"), r.findtext(f"{D}NroHasta")) for r in data.iter(f"{D}RDU_Item")]
    assert used == [("1", "3"), ("7", "8")]
    assert [data.findtext(f"{D}{n}") for n in ("CantDocsUtil", "CantDocsAnulados", "CantDocsEmi")] == ["8", "3", "5"]
    assert root.findtext(f"{D}Caratula/{D}SecEnvio") == "2"
    assert report_xml.file_name("219999830019", DAY, 2) == "Rep_219999830019_20261120_02.xml"


def test_an_empty_day_is_a_valid_report_with_no_sections():
    document = report_xml.report_document(
        rut="219999830019",
        fecha=DAY,
        sec_envio=1,
        signed_at=datetime(2026, 11, 21, 0, 10, tzinfo=MONTEVIDEO),
        summaries={},
    )
    signed = CfeSigner(*generate_self_signed("219999830019", "test")).sign(document).xml
    assert validate_xml(signed, "ReporteDiarioCFE.xsd") == []
    assert etree.fromstring(signed).findtext(f"{D}Caratula/{D}CantComprobantes") == "0"
