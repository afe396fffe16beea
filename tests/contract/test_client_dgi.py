"""The real client's DGI methods against a live service: typed results, the company they act for, and the
error mapping (field errors, not found, another company, DGI down) with request ids."""

from __future__ import annotations

import socket
from datetime import date

import pytest

from portal.client import CfeClient, Forbidden, NotFound, ServiceUnavailable, ValidationError
from portal.client.dgi import Activity, Address, Contact, CvaStatus, Entity, EntityName
from portal.domain.uruguay_time import today_montevideo
from portal.service.dgi import sandbox_data as data

IDS = {"company_id": 1, "certificate_id": 1}


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url, retries=0).as_user(
        live_token_for("usuario@demo.uy"), company_id=1, request_id="dgi-contract"
    )


def test_lookup_rut_is_the_identity_only(api):
    entity = api.lookup_rut("21-999983-001-9", **IDS)
    assert isinstance(entity, Entity)
    assert (entity.rut, entity.name, entity.trade_name) == (data.DEMO_RUT, "DGI RUC PRUEBA NO CEDE", "EMPRESA DEMO")
    assert (entity.active, entity.state, entity.electronic_issuer) == (True, "AA", True)
    assert entity.started == date(2010, 1, 4) and entity.electronic_issuer_since == date(2012, 3, 1)
    assert entity.address is None and entity.activities is None


def test_lookup_entity_data_has_address_contacts_and_activities(api):
    entity = api.lookup_entity_data(data.DGI_CEDE_RUT, **IDS)
    assert isinstance(entity.address, Address)
    assert (entity.address.street_line, entity.address.locality, entity.address.department) == (
        "12 METROS 6855",
        "CASUPA",
        "LAVALLEJA",
    )
    assert entity.address.contacts[0] == Contact("CORREO ELECTRONICO", "PLANPROD@DGI.GUB.UY")
    assert entity.activities[0] == Activity(
        "47115", "COMERCIO AL POR MENOR REALIZADO POR LOS FREE SHOPS", date(2020, 12, 10)
    )


def test_lookup_entity_name_and_cva(api):
    assert api.lookup_entity_name(3, "1.335.321-4", **IDS) == EntityName(3, "13353214", "RODRIGUEZ SILVA JUAN CARLOS")
    current = api.lookup_cva(data.DEMO_RUT, **IDS)
    assert isinstance(current, CvaStatus) and (current.state, current.current) == ("VIGENTE", True)
    assert current.issued <= today_montevideo() <= current.expires
    never = api.lookup_cva(data.NO_CVA_RUT, **IDS)
    assert (never.state, never.number, never.issued, never.expires) == ("SIN_CERTIFICADO", None, None, None)


def test_a_user_of_two_companies_acts_for_the_company_it_names(live_service, live_token_for):
    # Bound to company 1 (the portal's current company), the call names company 2 and its certificate.
    admin = CfeClient(live_service.url, retries=0).as_user(live_token_for("admin@demo.uy"), company_id=1)
    assert admin.lookup_rut(data.DGI_RUT, company_id=2, certificate_id=2).name == "DIRECCION GENERAL IMPOSITIVA"
    with pytest.raises(NotFound) as caught:
        admin.lookup_rut(data.DGI_RUT, company_id=1, certificate_id=2)
    assert caught.value.code == "certificado_no_encontrado"


def test_field_errors_map_to_validation_error(api):
    with pytest.raises(ValidationError) as caught:
        api.lookup_entity_name(3, "13353215", **IDS)
    assert caught.value.status == 422 and caught.value.field_messages().keys() == {"nroDoc"}
    assert caught.value.request_id == "dgi-contract"


def test_a_rut_with_a_slash_cannot_reach_another_path(api):
    with pytest.raises((NotFound, ValidationError)):
        api.lookup_rut("../consultaCva/219999830019", **IDS)


def test_unknown_taxpayer_and_another_company(api):
    with pytest.raises(NotFound) as unknown:
        api.lookup_cva(data.UNKNOWN_RUT, **IDS)
    assert unknown.value.code == "taxpayer_not_found"
    with pytest.raises(Forbidden) as foreign:
        api.lookup_rut(data.DEMO_RUT, company_id=2, certificate_id=2)
    assert foreign.value.code == "empresa_ajena"


def test_dgi_down_is_service_unavailable_with_dgis_code_and_status(api, live_service):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    live_service.app.config.update(DGI_BACKEND="soap", DGI_SOAP_URL=f"http://127.0.0.1:{port}/x")
    with pytest.raises(ServiceUnavailable) as caught:
        api.lookup_rut(data.DEMO_RUT, **IDS)
    assert (caught.value.status, caught.value.code) == (502, "dgi_unavailable")
