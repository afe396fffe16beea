"""The daily report's per-type lines for the export types: 121-123 (Rsmn_Fac_Exp*) and 124 (Rsmn_Rem_Exp),
in DGI's schema order beside today's types, with their export amounts in pesos."""

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
EXPORT_TOTALS = {"mntExpoyAsim": "5400.00", "mntTotal": "5400.00", "mntPagar": "5400.00"}
TICKET_TOTALS = {"mntNetoIVATasaBasica": "100.00", "mntIVATasaBasica": "22.00", "mntTotal": "122.00"}


def _signed_report(summaries: dict) -> tuple[etree._Element, list[str]]:
    """The day's report signed and valid against ReporteDiarioCFE.xsd, with the names of its sections."""
    document = report_xml.report_document(
        rut="219999830019",
        fecha=DAY,
        sec_envio=1,
        signed_at=datetime(2026, 11, 21, 0, 10, tzinfo=MONTEVIDEO),
        summaries=summaries,
    )
    signed = CfeSigner(*generate_self_signed("219999830019", "test")).sign(document).xml
    assert validate_xml(signed, "ReporteDiarioCFE.xsd") == []
    root = etree.fromstring(signed)
    return root, [etree.QName(c).localname for c in root if etree.QName(c).localname.startswith("Rsmn")]


def test_export_types_have_their_own_sections_in_schema_order():
    summaries = {}
    for tipo, totals in ((101, TICKET_TOTALS), (121, EXPORT_TOTALS), (122, EXPORT_TOTALS), (123, EXPORT_TOTALS)):
        summaries[tipo] = report_xml.TypeSummary()
        summaries[tipo].add_receipt(DAY, 1, "A", 1, totals, Decimal("39.25"), above_threshold=True)
    summaries[124] = report_xml.TypeSummary()
    summaries[124].add_receipt(DAY, 1, "A", 3, EXPORT_TOTALS, Decimal(1), above_threshold=True)
    summaries[181] = report_xml.TypeSummary()
    summaries[181].add_receipt(DAY, 1, "A", 1, {}, Decimal(1), above_threshold=True)
    root, sections = _signed_report(summaries)
    assert sections == [
        "Rsmn_Tck",
        "Rsmn_Fac_Exp",
        "Rsmn_Fac_Exp_Nota_Credito",
        "Rsmn_Fac_Exp_Nota_Debito",
        "Rsmn_Rem",
        "Rsmn_Rem_Exp",
    ]
    item = root.find(f"{D}Rsmn_Fac_Exp/{D}RsmnData/{D}Montos/{D}Mnts_FExp_Item")
    assert item.findtext(f"{D}TotMntExpyAsim") == "211950.00"  # U$S 5400 at 39.25
    assert item.findtext(f"{D}TotMntTotal") == "211950.00"
    remito = root.find(f"{D}Rsmn_Rem_Exp/{D}RsmnData")
    assert remito.findtext(f"{D}Montos/{D}Mnts_Rem_Exp_Item/{D}TotMntExpyAsim") == "5400.00"
    assert remito.findtext(f"{D}CantDocsEmi") == "1"


def test_boleta_types_have_their_sections_after_the_resguardo():
    summaries = {}
    for tipo in (151, 152, 153, 182):
        summaries[tipo] = report_xml.TypeSummary()
        totals = {"mntNoGrv": "2000.00", "mntIVaenSusp": "300.00", "mntTotal": "2300.00", "mntTotRetenido": "0"}
        summaries[tipo].add_receipt(DAY, 1, "A", 1, totals, Decimal(1), above_threshold=True)
    root, sections = _signed_report(summaries)
    assert sections == ["Rsmn_Resg", "Rsmn_Bol", "Rsmn_Bol_Nota_Credito", "Rsmn_Bol_Nota_Debito"]
    item = root.find(f"{D}Rsmn_Bol/{D}RsmnData/{D}Montos/{D}Mnts_Bol_Item")
    assert [item.findtext(f"{D}{tag}") for tag in ("TotMntNoGrv", "TotMntIVAenSusp", "TotMntTotal")] == [
        "2000.00",
        "300.00",
        "2300.00",
    ]


def test_cuenta_ajena_types_have_their_sections_in_schema_order():
    summaries = {}
    for tipo in (101, 131, 132, 133, 111, 141, 142, 143):
        summaries[tipo] = report_xml.TypeSummary()
        summaries[tipo].add_receipt(DAY, 1, "A", 1, TICKET_TOTALS, Decimal(1), above_threshold=False)
    root, sections = _signed_report(summaries)
    assert sections == [
        "Rsmn_Tck",
        "Rsmn_Tck_CtaAj",
        "Rsmn_Tck_Nota_Credito_CtaAj",
        "Rsmn_Tck_Nota_Debito_CtaAj",
        "Rsmn_Fac",
        "Rsmn_Fac_CtaAj",
        "Rsmn_Fac_Nota_Credito_CtaAj",
        "Rsmn_Fac_Nota_Debito_CtaAj",
    ]
    ticket = root.find(f"{D}Rsmn_Tck_CtaAj/{D}RsmnData")
    assert ticket.findtext(f"{D}Montos/{D}Mnts_FyT_Item/{D}TotMntTotal") == "122.00"
