"""Properties of the sandbox data: size, valid check digits, coverage of the country and of every state."""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, timedelta

from hypothesis import given
from hypothesis import strategies as st

from portal.domain.identifiers import DocType, is_valid_ci, is_valid_nie, is_valid_rut
from portal.service.dgi import sandbox_data as data
from portal.service.dgi.sandbox_catalog import ENTITY_TYPES

TODAY = date(2026, 11, 22)  # the conftest's fixed date

DEPARTMENTS = {
    "MONTEVIDEO",
    "CANELONES",
    "MALDONADO",
    "ROCHA",
    "COLONIA",
    "SAN JOSE",
    "SORIANO",
    "RIO NEGRO",
    "PAYSANDU",
    "SALTO",
    "ARTIGAS",
    "RIVERA",
    "TACUAREMBO",
    "CERRO LARGO",
    "TREINTA Y TRES",
    "LAVALLEJA",
    "FLORIDA",
    "DURAZNO",
    "FLORES",
}
DGI_TEST_RUTS = {
    "219999830019",
    "219000090011",
    "214844360018",
    "219999820013",
    "211003420017",
    "215080550011",
    "216753930012",
    "217628780017",
}


def entities():
    return [t.entity for t in data.taxpayers().values()]


def test_at_least_200_taxpayers_keyed_by_their_rut():
    taxpayers = data.taxpayers()
    assert len(taxpayers) >= 200
    assert all(rut == t.entity.rut for rut, t in taxpayers.items())


def test_every_rut_has_a_valid_check_digit():
    invalid = [e.rut for e in entities() if not is_valid_rut(e.rut)]
    assert invalid == []


def test_the_data_is_the_same_every_time_it_is_generated():
    assert data.taxpayers.__wrapped__() == data.taxpayers()
    assert data.people.__wrapped__() == data.people()


def test_addresses_cover_all_19_departments_with_postal_codes_shaped_like_uruguays():
    addresses = [e.domicilio_fiscal for e in entities()]
    assert {a.departamento_nombre for a in addresses} == DEPARTMENTS
    assert len({a.departamento_id for a in addresses}) == 19
    assert all(re.fullmatch(r"\d{5}", a.codigo_postal) for a in addresses if a.codigo_postal)
    assert all(a.calle and a.localidad and a.contactos for a in addresses)


def test_both_active_and_inactive_taxpayers():
    states = Counter(e.estado_actividad for e in entities())
    assert states["AA"] > 150
    assert states["CL"] > 0 and states["SU"] > 0


def test_cva_current_expired_and_missing_on_the_fixed_date(sandbox):
    estados = Counter(sandbox.consulta_cva(rut).estado for rut in data.taxpayers())
    assert estados["VIGENTE"] > 100
    assert estados["VENCIDO"] > 0 and estados["SIN_CERTIFICADO"] > 0


def test_electronic_issuers_and_not_with_a_start_date_only_for_issuers():
    flags = Counter(e.emisor_electronico for e in entities())
    assert flags[True] > 0 and flags[False] > 0
    assert all((e.emisor_electronico_desde is not None) == e.emisor_electronico for e in entities())


def test_companies_of_every_kind_and_individuals():
    kinds = Counter(e.tipo_entidad_descripcion for e in entities())
    for kind in (
        "SOCIEDAD ANONIMA",
        "SOCIEDAD DE RESPONSABILIDAD LIMITADA",
        "SOCIEDAD POR ACCIONES SIMPLIFICADA",
        "COOPERATIVA",
        "SOCIEDAD CIVIL",
        "UNIPERSONAL",
    ):
        assert kinds[kind] >= 5, kind
    assert all(e.tipo_entidad_descripcion == ENTITY_TYPES[e.tipo_entidad] for e in entities())
    assert any(e.denominacion.endswith(" S.A.") for e in entities())
    assert any(e.denominacion.endswith(" S.R.L.") for e in entities())


def test_activities_are_5_digit_ciiu_codes_including_the_common_ones():
    codes = {a.giro_cod for e in entities() for a in e.actividades}
    assert all(re.fullmatch(r"\d{5}", code) for code in codes)
    assert {"47111", "47190", "62010", "56101", "41000", "01110", "69200", "86201", "49230", "46900"} <= codes
    # no activity starts before the taxpayer does (DGI's own sample starts its activities later)
    assert all(
        e.actividades and min(a.fecha_inicio for a in e.actividades) >= e.fecha_inicio_actividad for e in entities()
    )


def test_dgi_published_test_ruts_are_present():
    assert DGI_TEST_RUTS <= set(data.taxpayers())
    assert data.taxpayers()["214844360018"].entity.denominacion == "DIRECCION GENERAL IMPOSITIVA"
    assert data.taxpayers()["219000090011"].entity.denominacion == "DGI RUC PRUEBA CEDE"


def test_the_demo_company_is_active_issuing_with_a_current_cva(sandbox):
    demo = data.taxpayers()[data.DEMO_RUT].entity
    assert demo.denominacion == "DGI RUC PRUEBA NO CEDE"
    assert demo.activo and demo.emisor_electronico
    assert sandbox.consulta_cva(data.DEMO_RUT).vigente


def test_named_fixtures_have_the_documented_traits(sandbox):
    taxpayers = data.taxpayers()
    assert not taxpayers[data.INACTIVE_RUT].entity.activo
    assert taxpayers[data.SUSPENDED_RUT].entity.estado_actividad == "SU"
    assert sandbox.consulta_cva(data.EXPIRED_CVA_RUT).estado == "VENCIDO"
    assert taxpayers[data.EXPIRED_CVA_RUT].entity.emisor_electronico
    assert taxpayers[data.NOT_EMISOR_RUT].entity.emisor_electronico is False
    assert sandbox.consulta_cva(data.NOT_EMISOR_RUT).vigente
    assert sandbox.consulta_cva(data.NO_CVA_RUT).estado == "SIN_CERTIFICADO"
    assert taxpayers[data.INDIVIDUAL_RUT].titular == (DocType.CI, data.INDIVIDUAL_CI)
    assert data.UNKNOWN_RUT not in taxpayers and is_valid_rut(data.UNKNOWN_RUT)
    assert (DocType.CI, data.UNKNOWN_CI) not in data.people() and is_valid_ci(data.UNKNOWN_CI)


def test_people_documents_have_valid_check_digits_and_unipersonals_have_a_titular():
    for doc_type, number in data.people():
        assert is_valid_ci(number) if doc_type == DocType.CI else is_valid_nie(number), number
    unipersonals = [t for t in data.taxpayers().values() if t.entity.tipo_entidad == "1"]
    assert unipersonals and all(t.titular in data.people() for t in unipersonals)
    assert any(kind == DocType.NIE for kind, _ in data.people())


@given(st.dates(min_value=date(2024, 1, 1), max_value=date(2045, 12, 31)))
def test_cva_states_do_not_rot_whatever_the_date(today):
    for rut, vigente in (
        (data.DEMO_RUT, True),
        (data.NOT_EMISOR_RUT, True),
        (data.EXPIRED_CVA_RUT, False),
        (data.INACTIVE_RUT, False),
    ):
        status = data.cva_status(data.taxpayers()[rut], today)
        assert status.vigente is vigente
        if vigente:
            assert status.fecha_emision <= today <= status.fecha_vencimiento
        else:
            assert status.fecha_vencimiento < today
        one_year_later = status.fecha_emision.replace(year=status.fecha_emision.year + 1)
        assert status.fecha_vencimiento == one_year_later - timedelta(days=1)


def test_a_current_cva_runs_one_year_from_its_last_renewal():
    status = data.cva_status(data.taxpayers()[data.DEMO_RUT], TODAY)
    assert (status.fecha_emision, status.fecha_vencimiento) == (date(2026, 3, 15), date(2027, 3, 14))
    assert status.numero == "2026999983"
    expired = data.cva_status(data.taxpayers()[data.EXPIRED_CVA_RUT], TODAY)
    assert (expired.fecha_emision, expired.fecha_vencimiento) == (date(2025, 4, 20), date(2026, 4, 19))


def test_the_demos_two_companies_are_named_by_dgi_as_they_name_themselves():
    """A receipt one demo company issues to the other takes the receiver's name and address from DGI's
    registry: the second company must be the one the demo seeds (it was a generated travel agency)."""
    from portal.service.seed import DEMO_COMPANIES

    for company in DEMO_COMPANIES:
        entity = data.taxpayers()[company["rut"]].entity
        if company["rut"] == "211003420017":
            assert entity.denominacion == company["razon_social"].upper()
            assert entity.domicilio_fiscal.localidad == company["ciudad"].upper()
            assert (
                entity.domicilio_fiscal.calle + " " + entity.domicilio_fiscal.numero
                == company["domicilio_fiscal"].upper()
            )
        assert entity.emisor_electronico and entity.estado_actividad == "AA"
