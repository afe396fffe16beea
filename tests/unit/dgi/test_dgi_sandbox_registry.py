"""The four lookups on the sandbox, their JSON, not-found answers and input validation."""

from __future__ import annotations

from datetime import date

import pytest

from portal.domain.identifiers import DocType
from portal.service.dgi import DgiInvalidInput, TaxpayerNotFound
from portal.service.dgi import sandbox_data as data
from portal.service.dgi.registry import TaxpayerRegistry
from portal.service.dgi.sandbox import SandboxRegistry

IDENTITY_KEYS = {
    "rut",
    "denominacion",
    "nombreFantasia",
    "tipoEntidad",
    "tipoEntidadDescripcion",
    "estadoActividad",
    "estadoActividadDescripcion",
    "activo",
    "fechaInicioActividad",
    "emisorElectronico",
    "emisorElectronicoDesde",
}


def test_consulta_rut_answers_the_identity_only(sandbox):
    entity = sandbox.consulta_rut(data.DEMO_RUT)
    assert (entity.rut, entity.denominacion, entity.tipo_entidad) == (data.DEMO_RUT, "DGI RUC PRUEBA NO CEDE", "27")
    assert entity.domicilio_fiscal is None and entity.actividades is None
    body = entity.to_json()
    assert set(body) == IDENTITY_KEYS
    assert body["activo"] is True and body["emisorElectronico"] is True
    assert body["fechaInicioActividad"] == "2010-01-04"


def test_consulta_datos_entidad_answers_address_contacts_and_activities(sandbox):
    entity = sandbox.consulta_datos_entidad(data.DGI_CEDE_RUT)
    body = entity.to_json()
    assert set(body) == IDENTITY_KEYS | {"domicilioFiscal", "actividades"}
    assert body["domicilioFiscal"] == {
        "calle": "12 METROS",
        "numero": "6855",
        "apartamento": None,
        "localidad": "CASUPA",
        "departamentoId": 8,
        "departamentoNombre": "LAVALLEJA",
        "codigoPostal": None,
        "contactos": [
            {"tipo": "CORREO ELECTRONICO", "valor": "PLANPROD@DGI.GUB.UY"},
            {"tipo": "TELEFONO FIJO", "valor": "25062222"},
        ],
    }
    assert body["actividades"][0] == {
        "giroCod": "47115",
        "fechaInicio": "2020-12-10",
        "giroNom": "COMERCIO AL POR MENOR REALIZADO POR LOS FREE SHOPS",
    }
    assert sandbox.consulta_rut(data.DGI_CEDE_RUT) == entity.identity()


def test_consulta_cva_by_state(sandbox):
    current = sandbox.consulta_cva(data.DEMO_RUT).to_json()
    assert current == {
        "rut": data.DEMO_RUT,
        "denominacion": "DGI RUC PRUEBA NO CEDE",
        "vigente": True,
        "estado": "VIGENTE",
        "numero": "2026999983",
        "fechaEmision": "2026-03-15",
        "fechaVencimiento": "2027-03-14",
    }
    assert sandbox.consulta_cva(data.EXPIRED_CVA_RUT).to_json()["vigente"] is False
    none = sandbox.consulta_cva(data.NO_CVA_RUT).to_json()
    assert (none["estado"], none["numero"], none["fechaVencimiento"]) == ("SIN_CERTIFICADO", None, None)


def test_the_cva_clock_is_a_parameter():
    later = SandboxRegistry(today=lambda: date(2027, 3, 15)).consulta_cva(data.DEMO_RUT)
    assert (later.vigente, later.fecha_emision) == (True, date(2027, 3, 15))


@pytest.mark.parametrize(
    ("tipo_doc", "nro_doc", "nombre"),
    [
        (2, data.DGI_RUT, "DIRECCION GENERAL IMPOSITIVA"),
        ("2", "21-484436-001-8", "DIRECCION GENERAL IMPOSITIVA"),
        (3, data.INDIVIDUAL_CI, "GONZALEZ PEREZ MARIA FERNANDA"),
        (3, "1.234.567-2", "GONZALEZ PEREZ MARIA FERNANDA"),
        (3, data.PERSON_CI, "RODRIGUEZ SILVA JUAN CARLOS"),
        (1, data.PERSON_NIE, "SCHMIDT ANNA"),
    ],
)
def test_consulta_nombre_entidad_by_rut_ci_and_nie(sandbox, tipo_doc, nro_doc, nombre):
    name = sandbox.consulta_nombre_entidad(tipo_doc, nro_doc)
    assert name.nombre == nombre
    assert name.to_json() == {"tipoDoc": int(tipo_doc), "nroDoc": name.nro_doc, "nombre": nombre}
    assert name.nro_doc.isdigit()


def test_every_unipersonal_titular_is_found_by_document(sandbox):
    for taxpayer in data.taxpayers().values():
        if taxpayer.titular:
            doc_type, number = taxpayer.titular
            assert sandbox.consulta_nombre_entidad(doc_type, number).nombre == taxpayer.titular_nombre


@pytest.mark.parametrize(
    "call",
    [
        lambda r: r.consulta_rut(data.UNKNOWN_RUT),
        lambda r: r.consulta_datos_entidad(data.UNKNOWN_RUT),
        lambda r: r.consulta_cva(data.UNKNOWN_RUT),
        lambda r: r.consulta_nombre_entidad(2, data.UNKNOWN_RUT),
        lambda r: r.consulta_nombre_entidad(3, data.UNKNOWN_CI),
    ],
)
def test_unknown_documents_are_not_found(sandbox, call):
    with pytest.raises(TaxpayerNotFound) as caught:
        call(sandbox)
    assert (caught.value.status, caught.value.code) == (404, "taxpayer_not_found")


class SpyRegistry(TaxpayerRegistry):
    """Counts the lookups that reach the backend."""

    def __init__(self):
        self.calls = 0

    def _consulta_datos_entidad(self, rut):
        self.calls += 1
        raise AssertionError("validation should have stopped this")

    _consulta_cva = _consulta_datos_entidad

    def _consulta_nombre_entidad(self, doc_type, number):
        return self._consulta_datos_entidad(number)


@pytest.mark.parametrize(
    ("rut", "reason"),
    [
        ("219999830018", "check_digit"),  # last digit changed
        ("21999983001", "format"),  # 11 digits
        ("2199998300190", "format"),  # 13 digits
        ("21999983001X", "format"),
        ("", "required"),
        (None, "required"),
        ("231234560013", "check_digit"),  # right check digit, but prefix 23 does not exist
    ],
)
def test_invalid_ruts_are_refused_before_any_lookup(rut, reason):
    spy = SpyRegistry()
    for method in (spy.consulta_rut, spy.consulta_datos_entidad, spy.consulta_cva):
        with pytest.raises(DgiInvalidInput) as caught:
            method(rut)
        assert (caught.value.field, caught.value.reason, caught.value.status) == ("rut", reason, 422)
    assert spy.calls == 0


@pytest.mark.parametrize(
    ("tipo_doc", "nro_doc", "field", "reason"),
    [
        (9, "12345672", "tipoDoc", "invalid"),
        (0, "12345672", "tipoDoc", "invalid"),
        ("abc", "12345672", "tipoDoc", "invalid"),
        (None, "12345672", "tipoDoc", "invalid"),
        (5, "AB123456", "tipoDoc", "unsupported"),  # pasaporte: DGI keeps no registry of it
        (3, "12345673", "nroDoc", "check_digit"),
        (3, "123456789", "nroDoc", "format"),
        (1, "934020102", "nroDoc", "check_digit"),
        (2, "219999830018", "nroDoc", "check_digit"),
        (3, "", "nroDoc", "required"),
    ],
)
def test_invalid_documents_are_refused_before_any_lookup(tipo_doc, nro_doc, field, reason):
    spy = SpyRegistry()
    with pytest.raises(DgiInvalidInput) as caught:
        spy.consulta_nombre_entidad(tipo_doc, nro_doc)
    assert (caught.value.field, caught.value.reason) == (field, reason)
    assert caught.value.code == "validation_error" and caught.value.message
    assert spy.calls == 0


def test_a_rut_typed_with_separators_is_normalised(sandbox):
    assert sandbox.consulta_rut(" 21-999983-001-9 ").rut == data.DEMO_RUT
    assert sandbox.consulta_nombre_entidad(DocType.RUT, "21.999983.001.9").nro_doc == data.DEMO_RUT
