"""The new types on DGI's road: each goes in an envelope valid against EnvioCFE.xsd to the DGI simulator,
which checks them as DGI does (signature, CAE, totals, the export's lines, the principal's RUC) and accepts
them; a small e-Ticket venta por cuenta ajena goes, like any small e-Ticket, only in the daily report."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from portal.service.cfe.schema import validate_xml
from portal.service.envios.models import DgiEnvelope
from portal.service.platform import db
from tests.integration.test_envios_flow import dgi_of
from tests.integration.test_export_api import today
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.unit.cfe.types_bodies import BOLETA, CUENTA_AJENA, EXPORT


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def test_every_new_type_reaches_accepted(api_client, user, service_app):
    bodies = [
        EXPORT["121-services"],
        EXPORT["121-goods"],
        EXPORT["124"],
        BOLETA["151-imeba"],
        CUENTA_AJENA["141-dgi-sample"],
    ]
    issued = [issue(api_client, user, today(body)) for body in bodies]
    drain(service_app)
    states = {cfe["tipoCFE"]: dgi_of(api_client, user, cfe["idCfeEmitido"])["estado"] for cfe in issued}
    assert set(states.values()) == {"aceptado"}, states
    with service_app.app_context():
        for envelope in db.session().scalars(select(DgiEnvelope)):
            assert validate_xml(envelope.xml, "EnvioCFE.xsd") == []


def test_a_small_cuenta_ajena_eticket_waits_for_the_daily_report(api_client, user, service_app):
    ticket = issue(api_client, user, today(CUENTA_AJENA["131"]))
    drain(service_app)
    assert dgi_of(api_client, user, ticket["idCfeEmitido"])["estado"] != "rechazado"


def test_the_daily_report_has_a_line_per_new_type_valid_against_its_schema(api_client, user, service_app):
    from datetime import date

    from lxml import etree

    from portal.service.envios import reports
    from portal.service.envios.models import DgiDailyReport

    issued = [
        issue(api_client, user, today(body))
        for body in (
            EXPORT["121-services"],
            EXPORT["124"],
            BOLETA["151-imeba"],
            CUENTA_AJENA["131"],
            CUENTA_AJENA["141-dgi-sample"],
        )
    ]
    drain(service_app)
    with service_app.app_context():
        report_id = reports.build(1, date.fromisoformat(issued[0]["fchEmis"]), "test")
        xml = db.session().get(DgiDailyReport, report_id).xml
    assert validate_xml(xml, "ReporteDiarioCFE.xsd") == []
    sections = {etree.QName(child).localname for child in etree.fromstring(xml)}
    assert {"Rsmn_Fac_Exp", "Rsmn_Rem_Exp", "Rsmn_Bol", "Rsmn_Tck_CtaAj", "Rsmn_Fac_CtaAj"} <= sections
