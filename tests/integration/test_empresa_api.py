"""The Empresa endpoints: settings, branches, logo, certificates, CAE files and the audit; role and company
checks; every refusal a clear 422 (or 409/413/415) and never a secret in the audit."""

from __future__ import annotations

import datetime as dt
import json
import threading

import pytest

from tests.support.empresa_files import OTHER_RUT, cae_xml, costly_p12, ec_p12, image, p12

BASE = "/api/v1/empresa"
SETTINGS = {
    "regimen": "general",
    "resolucion": "2020/2023",
    "ivaAlDia": True,
    "urlVerificacion": "https://demo.uy/verificar",
    "formatoPapel": "80mm",
}
BRANCH = {
    "codigo": 7,
    "nombre": "Pocitos",
    "domicilio": "Av. Brasil 2890",
    "ciudad": "Montevideo",
    "departamento": "Montevideo",
}


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@demo.uy", 1)


@pytest.fixture
def usuario(auth_headers):
    return auth_headers("usuario@demo.uy", 1)


def fields(answer) -> dict[str, str]:
    return {f["field"]: f["message"] for f in answer.json["error"]["fields"]}


def audit(api_client, headers) -> list[dict]:
    answer = api_client.get(f"{BASE}/auditoria", headers=headers)
    assert answer.status_code == 200
    return answer.json["items"]


# Settings ---------------------------------------------------------------------------------------------------


def test_seeded_settings_are_readable_by_every_member(api_client, auth_headers):
    for email in ("admin@demo.uy", "soporte@demo.uy", "usuario@demo.uy"):
        answer = api_client.get(f"{BASE}/configuracion", headers=auth_headers(email, 1))
        assert answer.status_code == 200
        assert answer.json["regimen"] == "general" and answer.json["resolucion"] == "1516/2021"
        assert answer.json["urlVerificacion"] == "https://demo.uy/cfe" and answer.json["formatoPapel"] == "a4"


def test_admin_changes_settings_and_the_audit_says_what_changed(api_client, admin):
    answer = api_client.put(f"{BASE}/configuracion", json=SETTINGS, headers=admin)
    assert answer.status_code == 200, answer.json
    assert answer.json["formatoPapel"] == "80mm" and answer.json["actualizadoPor"] == "admin@demo.uy"
    again = api_client.get(f"{BASE}/configuracion", headers=admin).json
    assert again["resolucion"] == "2020/2023" and again["urlVerificacion"] == "https://demo.uy/verificar"
    event = audit(api_client, admin)[0]
    assert event["accion"] == "configuracion" and event["actor"] == "admin@demo.uy"
    assert event["cambios"] == {
        "resolucion": {"antes": "1516/2021", "despues": "2020/2023"},
        "urlVerificacion": {"antes": "https://demo.uy/cfe", "despues": "https://demo.uy/verificar"},
        "formatoPapel": {"antes": "a4", "despues": "80mm"},
    }
    # The same values again change nothing and record nothing.
    api_client.put(f"{BASE}/configuracion", json=SETTINGS, headers=admin)
    assert len([e for e in audit(api_client, admin) if e["accion"] == "configuracion"]) == 1


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"regimen": "exonerado"}, "normaExoneracion", "norma"),
        ({"regimen": "general", "normaExoneracion": "Ley 1"}, "normaExoneracion", "exoneradas"),
        ({"regimen": "general", "resolucion": "1/2020", "fechaEmisor": "2020-01-01"}, "fechaEmisor", "no las dos"),
        ({"regimen": "monotributo", "ivaAlDia": True}, "ivaAlDia", "Monotributo"),
        ({"regimen": "general", "resolucion": "Res 12"}, "resolucion", "número/año"),
        ({"regimen": "general", "urlVerificacion": "demo.uy"}, "urlVerificacion", "https://"),
        ({"regimen": "feudal"}, "regimen", "Valor no permitido"),
        ({"regimen": "general", "formatoPapel": "carta"}, "formatoPapel", "Valor no permitido"),
        ({"regimen": "general", "fechaEmisor": "ayer"}, "fechaEmisor", "Fecha no válida"),
        ({"regimen": "general"}, "resolucion", "una de las dos"),
        ({"regimen": "general", "resolucion": "", "fechaEmisor": None}, "resolucion", "una de las dos"),
        (
            {"regimen": "general", "fechaEmisor": (dt.date.today() + dt.timedelta(days=2)).isoformat()},
            "fechaEmisor",
            "futuro",
        ),
    ],
)
def test_inconsistent_settings_are_a_422_on_the_field(api_client, admin, body, field, words):
    answer = api_client.put(f"{BASE}/configuracion", json=body, headers=admin)
    assert answer.status_code == 422
    assert words in fields(answer)[field]
    assert api_client.get(f"{BASE}/configuracion", headers=admin).json["resolucion"] == "1516/2021"


def test_exonerated_and_monotributo_settings_are_accepted(api_client, admin):
    body = {"regimen": "exonerado", "normaExoneracion": "Ley 18.083 art. 19", "fechaEmisor": "2021-03-01"}
    answer = api_client.put(f"{BASE}/configuracion", json=body, headers=admin)
    assert answer.status_code == 200 and answer.json["fechaEmisor"] == "2021-03-01"
    assert "resolucion" not in answer.json
    answer = api_client.put(
        f"{BASE}/configuracion",
        json={"regimen": "monotributo", "ivaAlDia": False, "resolucion": "12/2022"},
        headers=admin,
    )
    assert answer.status_code == 200 and answer.json["ivaAlDia"] is False


@pytest.mark.parametrize("email", ["usuario@demo.uy", "soporte@demo.uy"])
def test_only_admins_change_anything(api_client, auth_headers, email):
    headers = auth_headers(email, 1)
    attempts = [
        ("put", "/configuracion", {"json": SETTINGS}),
        ("post", "/sucursales", {"json": BRANCH}),
        ("put", "/sucursales/1", {"json": BRANCH}),
        ("put", "/logo", {"data": image(), "content_type": "image/png"}),
        ("delete", "/logo", {}),
        ("post", "/cae", {"data": cae_xml(), "content_type": "application/xml"}),
        (
            "post",
            "/certificados",
            {
                "data": {"archivo": (_file(p12()), "c.p12"), "password": "clave-p12"},
                "content_type": "multipart/form-data",
            },
        ),
    ]
    for method, path, kwargs in attempts:
        answer = getattr(api_client, method)(BASE + path, headers=headers, **kwargs)
        assert answer.status_code == 403, (method, path)
        assert answer.json["error"]["code"] == "rol_insuficiente"


def test_the_audit_is_for_admins_and_support(api_client, auth_headers):
    assert api_client.get(f"{BASE}/auditoria", headers=auth_headers("soporte@demo.uy", 1)).status_code == 200
    assert api_client.get(f"{BASE}/auditoria", headers=auth_headers("usuario@demo.uy", 1)).status_code == 403


def test_without_a_token_is_401(api_client):
    assert api_client.get(f"{BASE}/configuracion").status_code == 401


# Branches ---------------------------------------------------------------------------------------------------


def test_branches_list_create_update_and_one_default(api_client, admin, usuario):
    listed = api_client.get(f"{BASE}/sucursales", headers=usuario).json["items"]
    assert [(b["codigo"], b["nombre"], b["predeterminada"]) for b in listed] == [(1, "Casa central", True)]
    created = api_client.post(f"{BASE}/sucursales", json={**BRANCH, "predeterminada": True}, headers=admin)
    assert created.status_code == 201 and created.json["predeterminada"] is True
    listed = {b["codigo"]: b for b in api_client.get(f"{BASE}/sucursales", headers=admin).json["items"]}
    assert listed[1]["predeterminada"] is False and listed[7]["predeterminada"] is True
    changed = api_client.put(
        f"{BASE}/sucursales/{created.json['id']}",
        json={**BRANCH, "nombre": "Pocitos II", "predeterminada": True},
        headers=admin,
    )
    assert changed.status_code == 200 and changed.json["nombre"] == "Pocitos II"
    events = audit(api_client, admin)
    assert events[0]["accion"] == "sucursal_modificada"
    assert events[0]["cambios"] == {"nombre": {"antes": "Pocitos", "despues": "Pocitos II"}}
    assert events[1]["accion"] == "sucursal_creada" and events[1]["objeto"] == "7 Pocitos"
    assert events[1]["cambios"] == {**BRANCH, "predeterminada": True}


def test_branch_refusals(api_client, admin):
    duplicate = api_client.post(f"{BASE}/sucursales", json={**BRANCH, "codigo": 1}, headers=admin)
    assert duplicate.status_code == 422 and "código 1" in fields(duplicate)["codigo"]
    too_big = api_client.post(f"{BASE}/sucursales", json={**BRANCH, "codigo": 10000}, headers=admin)
    assert too_big.status_code == 422 and "codigo" in fields(too_big)
    unknown_department = api_client.post(f"{BASE}/sucursales", json={**BRANCH, "departamento": "Narnia"}, headers=admin)
    assert unknown_department.status_code == 422 and "departamento" in fields(unknown_department)
    long_name = api_client.post(f"{BASE}/sucursales", json={**BRANCH, "nombre": "x" * 21}, headers=admin)
    assert long_name.status_code == 422 and "nombre" in fields(long_name)
    only_default = api_client.put(f"{BASE}/sucursales/1", json={**BRANCH, "codigo": 1}, headers=admin)
    assert only_default.status_code == 422 and "otra" in fields(only_default)["predeterminada"]


@pytest.mark.parametrize("char", ["\ufffe", "\uffff", "\x00", "\x85", "\t"])
@pytest.mark.parametrize("field", ["nombre", "domicilio", "ciudad"])
def test_a_branch_with_a_character_xml_cannot_carry_is_a_422_on_the_field(api_client, admin, field, char):
    # Stored, it would make every later issue of the company a 500 (lxml refuses to build the CFE).
    answer = api_client.post(
        f"{BASE}/sucursales", json={**BRANCH, field: f"Calle {char} 1", "predeterminada": True}, headers=admin
    )
    assert answer.status_code == 422, answer.json
    assert answer.json["error"]["code"] == "validation_error"
    assert f"U+{ord(char):04X}" in fields(answer)[field]


def test_settings_with_a_character_xml_cannot_carry_are_a_422_on_the_field(api_client, admin):
    body = {"regimen": "exonerado", "normaExoneracion": "Ley \uffff 18.083", "fechaEmisor": "2021-03-01"}
    answer = api_client.put(f"{BASE}/configuracion", json={**body, "ivaAlDia": True}, headers=admin)
    assert answer.status_code == 422 and "U+FFFF" in fields(answer)["normaExoneracion"]


def test_another_companys_branch_is_a_404(api_client, auth_headers):
    other = auth_headers("admin@demo.uy", 2)
    theirs = api_client.get(f"{BASE}/sucursales", headers=other).json["items"][0]
    answer = api_client.put(f"{BASE}/sucursales/{theirs['id']}", json=BRANCH, headers=auth_headers("admin@demo.uy", 1))
    assert answer.status_code == 404 and answer.json["error"]["code"] == "sucursal_inexistente"


# Logo -------------------------------------------------------------------------------------------------------


def test_logo_upload_download_and_removal(api_client, admin, usuario):
    assert api_client.get(f"{BASE}/logo", headers=usuario).status_code == 404
    answer = api_client.put(f"{BASE}/logo", data=image("JPEG"), content_type="image/jpeg", headers=admin)
    assert answer.status_code == 200 and answer.json == {**answer.json, "tipo": "image/jpeg", "ancho": 300, "alto": 120}
    download = api_client.get(f"{BASE}/logo", headers=usuario)
    assert download.status_code == 200 and download.mimetype == "image/jpeg" and download.data == image("JPEG")
    assert api_client.get(f"{BASE}/configuracion", headers=usuario).json["logo"]["ancho"] == 300
    assert audit(api_client, admin)[0]["cambios"]["logo"]["despues"].startswith("image/jpeg, ")
    assert api_client.delete(f"{BASE}/logo", headers=admin).status_code == 204
    assert api_client.get(f"{BASE}/logo", headers=usuario).status_code == 404
    assert audit(api_client, admin)[0]["accion"] == "logo_quitado"


@pytest.mark.parametrize(
    ("data", "content_type", "status", "words"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"not really", "image/png", 422, "no es una imagen"),
        (image("PNG")[:-40], "image/png", 422, "no es una imagen"),
        (image("GIF"), "image/png", 422, "PNG o JPEG"),
        (image("PNG", (4001, 20)), "image/png", 422, "4001×20"),
        (image("PNG", (8, 8)), "image/png", 422, "entre 16"),
        (b"\0" * (512 * 1024 + 1), "image/png", 413, "512 KB"),
        (image("PNG"), "text/plain", 415, "PNG o JPEG"),
    ],
)
def test_bad_logos_are_refused(api_client, admin, data, content_type, status, words):
    answer = api_client.put(f"{BASE}/logo", data=data, content_type=content_type, headers=admin)
    assert answer.status_code == status, answer.json
    assert words in answer.json["error"]["message"]


# Certificates -----------------------------------------------------------------------------------------------


def _file(data: bytes):
    import io

    return io.BytesIO(data)


def upload_cert(api_client, headers, data: bytes, password: str = "clave-p12", **form):
    return api_client.post(
        f"{BASE}/certificados",
        headers=headers,
        content_type="multipart/form-data",
        data={"archivo": (_file(data), "firma.p12"), "password": password, **form},
    )


def test_certificate_upload_lists_days_left_and_audits_no_secret(api_client, admin, usuario):
    answer = upload_cert(api_client, admin, p12(valid_to_days=20), nombre="Firma 2026")
    assert answer.status_code == 201, answer.json
    assert answer.json["estado"] == "por_vencer" and answer.json["diasRestantes"] in (19, 20)
    assert answer.json["rut"] == "219999830019" and answer.json["nombre"] == "Firma 2026"
    assert "SERIALNUMBER=RUC219999830019" in answer.json["sujeto"]
    listed = api_client.get(f"{BASE}/certificados", headers=usuario).json["items"]
    assert {c["nombre"] for c in listed} == {"Firma 2026", "Certificado de prueba (autofirmado)"}
    assert next(c for c in listed if c["nombre"] != "Firma 2026")["estado"] == "vigente"
    event = audit(api_client, admin)[0]
    assert event["accion"] == "certificado_cargado" and event["cambios"]["serie"] == answer.json["serie"]
    stored = json.dumps(event)
    assert "clave-p12" not in stored and "PRIVATE" not in stored and "BEGIN" not in stored
    again = upload_cert(api_client, admin, p12(valid_to_days=20))
    assert again.status_code == 201  # a new certificate (new serial) for the same key is another certificate


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        ({"password": "otra"}, "password", "contraseña"),
        ({"data": b"no soy un p12"}, "password", ".p12"),
        ({"data": p12(OTHER_RUT)}, "archivo", "RUT 211003420017"),
        ({"data": p12(None)}, "archivo", "no indica un RUT"),
        ({"data": p12(valid_from_days=-400, valid_to_days=-2)}, "archivo", "venció"),
        ({"data": ec_p12()}, "archivo", "no es RSA"),
    ],
)
def test_certificate_refusals_are_clear_422s(api_client, admin, kwargs, field, words):
    answer = upload_cert(api_client, admin, kwargs.pop("data", p12()), **kwargs)
    assert answer.status_code == 422, answer.json
    assert words in fields(answer)[field]


def test_a_certificate_file_that_asks_for_too_much_work_to_open_is_refused_and_the_process_goes_on(
    api_client, admin, monkeypatch
):
    """A .p12 names its own key-derivation rounds and OpenSSL does them holding the GIL: a 2.5 KB file asking for 2^31
    froze the whole service process for many minutes. A file from a request is opened in a child process with a CPU
    limit (1 s here): past it the file is refused, and this process's other threads ran all along."""
    monkeypatch.setattr("portal.service.platform.certificates.UNTRUSTED_OPEN_CPU_SECONDS", 1)
    ticks = 0
    stop = threading.Event()

    def tick() -> None:
        nonlocal ticks
        while not stop.wait(0.01):
            ticks += 1

    beside = threading.Thread(target=tick)
    beside.start()
    try:
        answer = upload_cert(api_client, admin, costly_p12(2**31 - 1))
    finally:
        stop.set()
        beside.join()
    assert answer.status_code == 422, answer.json
    assert answer.json["error"]["fields"][0]["code"] == "archivo_costoso"
    assert "demasiado trabajo para abrirse" in fields(answer)["archivo"]
    assert ticks > 20  # the GIL was never held for the rounds: a thread beside the upload kept running
    assert upload_cert(api_client, admin, p12()).status_code == 201  # a CA's file still opens (in the child too)


def test_an_expired_certificate_is_refused_with_the_day_it_expired_in_uruguay(api_client, admin):
    # 01:00 UTC two days ago is 22:00 of the day before in Montevideo: the owner saw it expire that day.
    two_days_ago = dt.datetime.now(dt.UTC).replace(hour=1, minute=0, second=0, microsecond=0) - dt.timedelta(days=2)
    answer = upload_cert(api_client, admin, p12(valid_from_days=-400, valid_to=two_days_ago))
    uruguay_day = two_days_ago.date() - dt.timedelta(days=1)
    assert answer.status_code == 422
    assert answer.json["error"]["fields"][0]["message"] == f"El certificado venció el {uruguay_day:%d/%m/%Y}."


def test_certificate_upload_without_file_or_multipart(api_client, admin):
    answer = api_client.post(
        f"{BASE}/certificados", headers=admin, content_type="multipart/form-data", data={"password": "x"}
    )
    assert answer.status_code == 422 and "archivo" in fields(answer)
    assert api_client.post(f"{BASE}/certificados", headers=admin, json={}).status_code == 415
    big = upload_cert(api_client, admin, b"\0" * (64 * 1024 + 1))
    assert big.status_code == 413


# CAE --------------------------------------------------------------------------------------------------------


def upload_cae(api_client, headers, xml: bytes):
    return api_client.post(f"{BASE}/cae", data=xml, content_type="application/xml", headers=headers)


def test_cae_upload_lists_the_range_and_is_idempotent(api_client, admin, usuario):
    answer = upload_cae(api_client, admin, cae_xml(tipo=111, serie="C", dnro=1, hnro=2500))
    assert answer.status_code == 201, answer.json
    assert (answer.json["tipoCFE"], answer.json["serie"], answer.json["restantes"]) == (111, "C", 2500)
    assert answer.json["estado"] == "vigente" and answer.json["origen"] == "dgi"
    ranges = api_client.get(f"{BASE}/cae", headers=usuario).json["items"]
    assert any(r["caeId"] == 90260000017 and r["proximo"] == 1 for r in ranges)
    assert audit(api_client, admin)[0]["cambios"]["hasta"] == 2500
    assert upload_cae(api_client, admin, cae_xml(tipo=111, serie="C", dnro=1, hnro=2500)).status_code == 200
    assert len([e for e in audit(api_client, admin) if e["accion"] == "cae_cargado"]) == 1


@pytest.mark.parametrize("changes", [{"serie": "D", "hnro": 1000}, {"tipo": 111}, {"hnro": 11}])
def test_a_cae_number_already_loaded_with_other_contents_is_a_409(api_client, admin, changes):
    first = {"tipo": 101, "serie": "C", "dnro": 1, "hnro": 10, "cae_id": 90260000033}
    assert upload_cae(api_client, admin, cae_xml(**first)).status_code == 201
    answer = upload_cae(api_client, admin, cae_xml(**(first | changes)))
    assert answer.status_code == 409 and answer.json["error"]["code"] == "cae_distinto"
    assert "90260000033" in answer.json["error"]["message"]
    loaded = [r for r in api_client.get(f"{BASE}/cae", headers=admin).json["items"] if r["caeId"] == 90260000033]
    assert [(r["tipoCFE"], r["serie"], r["desde"], r["hasta"]) for r in loaded] == [(101, "C", 1, 10)]
    assert upload_cae(api_client, admin, cae_xml(**first)).status_code == 200  # the same file again: as it is


def test_a_cae_authorized_from_a_future_day_is_not_yet_valid(api_client, admin):
    answer = upload_cae(api_client, admin, cae_xml(serie="F", authorized_days_ago=-5))
    assert answer.status_code == 201 and answer.json["estado"] == "no_vigente"


def test_cae_expiring_soon_is_flagged(api_client, admin):
    answer = upload_cae(api_client, admin, cae_xml(expires_in_days=10))
    assert answer.status_code == 201 and answer.json["estado"] == "por_vencer" and answer.json["diasRestantes"] == 10


@pytest.mark.parametrize(
    ("xml", "code", "words"),
    [
        (cae_xml(rut=OTHER_RUT), "otro_rut", "RUT 211003420017"),
        (cae_xml(serie="A", dnro=50, hnro=60, cae_id=90260000025), "superpuesto", "se superponen"),
        (cae_xml(expires_in_days=-1), "vencido", "venció"),
        (b"<CAE xmlns='http://cfe.dgi.gub.uy'/>", "cae_invalido", "CAE.xsd"),
        (b"<?xml version='1.0'?><!DOCTYPE x [<!ENTITY a 'b'>]><CAE/>", "cae_invalido", "DOCTYPE"),
        (b"no es xml", "cae_invalido", "CAE"),
    ],
)
def test_cae_refusals_are_clear_422s(api_client, admin, xml, code, words):
    answer = upload_cae(api_client, admin, xml)
    assert answer.status_code == 422, answer.json
    assert answer.json["error"]["fields"][0]["code"] == code and words in answer.json["error"]["message"]


@pytest.mark.parametrize(
    ("xml", "words"),
    [
        (b"<CAE xmlns='http://cfe.dgi.gub.uy'/>", "línea 1: al elemento CAE le falta el atributo version"),
        (
            b"<CAE xmlns='http://cfe.dgi.gub.uy' version='1.0'><DA><RucE>1</RucE></DA></CAE>",
            "línea 1: en lugar de DA se esperaba TmstFrma",
        ),
    ],
)
def test_a_cae_that_fails_the_schema_says_what_is_wrong_and_where(api_client, admin, xml, words):
    answer = upload_cae(api_client, admin, xml)
    assert answer.status_code == 422 and words in answer.json["error"]["message"], answer.json


def test_unsigned_cae_fails_the_schema(api_client, admin):
    from portal.service.cfe.cae import CaeRange, build_cae_xml
    from tests.support.empresa_files import today_montevideo

    today = today_montevideo()
    unsigned = build_cae_xml(
        CaeRange(
            rut="219999830019",
            tipo_cfe=101,
            serie="D",
            dnro=1,
            hnro=9,
            cae_id=1,
            fecha_autorizacion=today,
            vencimiento=today.replace(year=today.year + 1),
        )
    )
    assert upload_cae(api_client, admin, unsigned).status_code == 422


def test_cae_body_must_be_xml(api_client, admin):
    assert api_client.post(f"{BASE}/cae", json={}, headers=admin).status_code == 415


def test_another_companys_records_are_not_listed(api_client, auth_headers):
    mine = auth_headers("admin@demo.uy", 1)
    upload_cae(api_client, mine, cae_xml(serie="Z"))
    theirs = api_client.get(f"{BASE}/cae", headers=auth_headers("admin@demo.uy", 2)).json["items"]
    assert all(r["serie"] == "A" for r in theirs)
    assert audit(api_client, auth_headers("admin@demo.uy", 2)) == []


# What issuing takes from the settings ----------------------------------------------------------------------


def _issued_record(service_app, receipt_id: str):
    from portal.service.comprobante.models import IssuedCfe
    from portal.service.platform import db

    with service_app.app_context():
        record = db.session().get(IssuedCfe, receipt_id)
        return record.issuer_json, record.xml


def _remaining(api_client, headers, tipo: int) -> int:
    ranges = api_client.get(f"{BASE}/cae", headers=headers).json["items"]
    return next(r["restantes"] for r in ranges if r["tipoCFE"] == tipo and r["serie"] == "A")


def test_a_receipt_is_issued_from_the_branch_it_names_with_the_settings(api_client, service_app, admin):
    from tests.support.cfe_bodies import ETICKET, issue

    api_client.put(
        f"{BASE}/configuracion",
        json={
            "regimen": "general",
            "fechaEmisor": "2021-03-01",
            "ivaAlDia": False,
            "urlVerificacion": "https://demo.uy/v",
        },
        headers=admin,
    )
    api_client.post(f"{BASE}/sucursales", json=BRANCH, headers=admin)
    receipt = issue(api_client, admin, {**ETICKET, "cdgDGISucur": 7})
    issuer, xml = _issued_record(service_app, receipt["idCfeEmitido"])
    assert b"<CdgDGISucur>7</CdgDGISucur>" in xml and b"Av. Brasil 2890" in xml
    assert issuer["sucursal"] == "Pocitos" and issuer["fecha_emisor"] == "2021-03-01"
    assert issuer["iva_al_dia"] is False and issuer["url_verificacion"] == "https://demo.uy/v"
    assert issuer["resolucion"] is None and issuer["regimen"] == "general"
    default = issue(api_client, admin, ETICKET)
    issuer, xml = _issued_record(service_app, default["idCfeEmitido"])
    assert b"<CdgDGISucur>1</CdgDGISucur>" in xml and issuer["domicilio_fiscal"] == "Av. 18 de Julio 1234"


def test_an_unknown_branch_is_a_422_and_takes_no_number(api_client, admin):
    from tests.support.cfe_bodies import ETICKET

    before = _remaining(api_client, admin, 101)
    answer = api_client.post("/api/v1/comprobante/emitir", json={**ETICKET, "cdgDGISucur": 55}, headers=admin)
    assert answer.status_code == 422 and "código 55" in fields(answer)["cdgDGISucur"]
    assert _remaining(api_client, admin, 101) == before


def test_the_seeded_resolution_reaches_the_issuer(api_client, service_app, admin):
    from tests.support.cfe_bodies import ETICKET, issue

    receipt = issue(api_client, admin, ETICKET)
    issuer, _ = _issued_record(service_app, receipt["idCfeEmitido"])
    assert issuer["resolucion"] == "Res. 1516/2021" and issuer["url_verificacion"] == "https://demo.uy/cfe"


def test_pdf_helpers_read_the_logo_and_paper(api_client, service_app, admin):
    from portal.service.empresa.settings import company_logo, default_paper
    from portal.service.platform import db

    api_client.put(f"{BASE}/logo", data=image(), content_type="image/png", headers=admin)
    api_client.put(f"{BASE}/configuracion", json={**SETTINGS, "formatoPapel": "57mm"}, headers=admin)
    with service_app.app_context():
        assert company_logo(db.session(), 1) == image() and default_paper(db.session(), 1) == "57mm"
        assert company_logo(db.session(), 2) is None and default_paper(db.session(), 2) == "a4"


def test_an_api_key_lists_branches_and_changes_nothing(api_client, admin):
    created = api_client.post("/api/v1/apikeys", json={"nombre": "ERP"}, headers=admin)
    as_key = {"X-API-Key": created.json["clave"]}
    listed = api_client.get(f"{BASE}/sucursales", headers=as_key)
    assert listed.status_code == 200 and listed.json["items"][0]["codigo"] == 1
    assert "RateLimit" in listed.headers
    refused = api_client.post(f"{BASE}/sucursales", json=BRANCH, headers=as_key)
    assert refused.status_code == 401 and refused.json["error"]["code"] == "jwt_required"


def test_the_audit_pages_newest_first_with_the_list_contract(api_client, admin):
    for code, name in enumerate(("Uno", "Dos", "Tres"), start=31):
        body = {**BRANCH, "codigo": code, "nombre": name}
        assert api_client.post(f"{BASE}/sucursales", json=body, headers=admin).status_code == 201
    first = api_client.get(f"{BASE}/auditoria", query_string={"limite": 2}, headers=admin).json
    assert len(first["items"]) == 2 and first["siguienteCursor"]
    rest = api_client.get(
        f"{BASE}/auditoria", query_string={"limite": 2, "cursor": first["siguienteCursor"]}, headers=admin
    ).json
    every = audit(api_client, admin)
    assert first["items"] + rest["items"][: len(every) - 2] == every
    assert [e["objeto"] for e in every[:3]] == [e["objeto"] for e in first["items"] + rest["items"][:1]]
    refused = api_client.get(f"{BASE}/auditoria", query_string={"cursor": "bm8tZXMtdW4tY3Vyc29y"}, headers=admin)
    assert refused.status_code == 422 and refused.json["error"]["fields"][0]["code"] == "cursor_invalido"
    assert api_client.get(f"{BASE}/auditoria", query_string={"limit": 2}, headers=admin).status_code == 422


def test_a_branch_is_retired_audited_and_no_longer_issues(api_client, admin, auth_headers):
    from tests.support import cfe_bodies as bodies

    created = api_client.post(f"{BASE}/sucursales", json=BRANCH, headers=admin).json
    default = next(b for b in api_client.get(f"{BASE}/sucursales", headers=admin).json["items"] if b["predeterminada"])
    refused = api_client.post(f"{BASE}/sucursales/{default['id']}/baja", headers=admin)
    assert refused.status_code == 409 and refused.json["error"]["code"] == "sucursal_predeterminada"
    assert (
        api_client.post(f"{BASE}/sucursales/{created['id']}/baja", headers=auth_headers("usuario@demo.uy")).status_code
        == 403
    )
    retired = api_client.post(f"{BASE}/sucursales/{created['id']}/baja", headers=admin)
    assert retired.status_code == 200 and retired.json["activa"] is False
    assert api_client.post(f"{BASE}/sucursales/{created['id']}/baja", headers=admin).status_code == 200  # again: same
    assert api_client.post(f"{BASE}/sucursales/999999/baja", headers=admin).status_code == 404
    assert [e["accion"] for e in audit(api_client, admin)].count("sucursal_dada_de_baja") == 1

    body = {**bodies.body(bodies.ETICKET), "cdgDGISucur": BRANCH["codigo"]}
    answer = api_client.post(
        "/api/v1/comprobante/emitir",
        json=body,
        headers={**auth_headers("usuario@demo.uy"), "Idempotency-Key": "baja-1"},
    )
    assert answer.status_code == 422 and answer.json["error"]["fields"][0]["code"] == "sucursal_dada_de_baja"


def test_a_certificate_is_retired_audited_and_never_signs_again(api_client, admin, auth_headers):
    from tests.support import cfe_bodies as bodies

    (seeded,) = api_client.get(f"{BASE}/certificados", headers=admin).json["items"]
    only = api_client.post(f"{BASE}/certificados/{seeded['id']}/baja", headers=admin)
    assert only.status_code == 409 and only.json["error"]["code"] == "unico_certificado_vigente"
    successor = upload_cert(api_client, admin, p12())
    assert successor.status_code == 201, successor.json
    user = auth_headers("usuario@demo.uy")
    assert api_client.post(f"{BASE}/certificados/{seeded['id']}/baja", headers=user).status_code == 403
    retired = api_client.post(f"{BASE}/certificados/{seeded['id']}/baja", headers=admin)
    assert retired.status_code == 200 and retired.json["estado"] == "dado_de_baja"
    assert api_client.post(f"{BASE}/certificados/{successor.json['id']}/baja", headers=admin).status_code == 409
    assert api_client.post(f"{BASE}/certificados/999999/baja", headers=admin).status_code == 404
    assert [e["accion"] for e in audit(api_client, admin)].count("certificado_dado_de_baja") == 1

    issued = api_client.post(
        "/api/v1/comprobante/emitir", json=bodies.body(bodies.ETICKET), headers={**user, "Idempotency-Key": "cert-baja"}
    )
    assert issued.status_code == 201, issued.json
    xml = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido",
        headers={**user, "Accept": "application/xml"},
        query_string={"idCfeEmitido": issued.json["idCfeEmitido"]},
    ).data
    assert successor.json["serie"] in _signer_serial(xml)  # signed by the successor, not the retired one


def _signer_serial(xml: bytes) -> str:
    from cryptography import x509
    from lxml import etree

    pem = etree.fromstring(xml).findtext(".//{http://www.w3.org/2000/09/xmldsig#}X509Certificate")
    import base64

    return str(x509.load_der_x509_certificate(base64.b64decode(pem)).serial_number)


def test_an_english_client_reads_the_settings_refusals_in_english(api_client, auth_headers):
    """Issue 25 item 16: the service answers in the client's language, here for the Empresa area."""
    english = {**auth_headers("admin@demo.uy", 1), "Accept-Language": "en"}

    def message(answer) -> str:
        assert 400 <= answer.status_code < 500, answer.json
        return answer.json["error"]["message"]

    assert message(upload_cert(api_client, english, p12(), password="otra")).startswith("Could not open")
    assert message(upload_cert(api_client, english, p12(OTHER_RUT))).startswith("The certificate is for RUT")
    assert message(upload_cert(api_client, english, ec_p12())).startswith("The certificate's key is not RSA")
    assert message(upload_cae(api_client, english, cae_xml(rut=OTHER_RUT))).startswith("The CAE is for RUT")
    assert message(upload_cae(api_client, english, b"no es xml")).startswith("The file is not a valid DGI CAE")
    duplicate = api_client.post(f"{BASE}/sucursales", json={**BRANCH, "codigo": 1}, headers=english)
    assert message(duplicate) == "There is already a branch with code 1."
    no_branch = api_client.post(f"{BASE}/sucursales/999/baja", headers=english)
    assert message(no_branch) == "There is no such branch in the company."
    assert message(api_client.get(f"{BASE}/logo", headers=english)) == "The company has not uploaded a logo."
    tiny = api_client.put(f"{BASE}/logo", data=image("PNG", (4, 4)), content_type="image/png", headers=english)
    assert message(tiny).startswith("The logo must measure between")
    assert message(api_client.post(f"{BASE}/certificados/999/baja", headers=english)).startswith("There is no")
    inconsistent = api_client.put(f"{BASE}/configuracion", json={"regimen": "general"}, headers=english)
    assert "Spanish" not in message(inconsistent) and "Indicá" not in message(inconsistent)


def test_a_cae_edited_after_dgi_signed_it_is_refused(api_client, admin):
    """An edited range (here 5,000 numbers made 9,999,999) would number receipts DGI rejects (E03)."""
    edited = cae_xml(hnro=5000).replace(b"<HNro>5000</HNro>", b"<HNro>9999999</HNro>")
    answer = upload_cae(api_client, admin, edited)
    assert answer.status_code == 422, answer.json
    assert answer.json["error"]["fields"][0]["code"] == "firma_invalida" and "firma" in answer.json["error"]["message"]
    assert all(r["hasta"] != 9999999 for r in api_client.get(f"{BASE}/cae", headers=admin).json["items"])


@pytest.mark.parametrize("name", ["Firma\x00 2026", "Firma\u202e6202", "Firma\n2026"])
def test_a_certificate_name_with_a_character_that_cannot_be_stored_or_shown_is_a_422(api_client, admin, name):
    """A NUL is refused by PostgreSQL (a 500 there), a right-to-left override makes the list read otherwise."""
    answer = upload_cert(api_client, admin, p12(), nombre=name)
    assert answer.status_code == 422, answer.json
    assert "nombre" in fields(answer)


def test_an_english_client_reads_what_is_wrong_with_a_cae_file_in_english(api_client, admin):
    english = {**admin, "Accept-Language": "en"}
    schema = upload_cae(api_client, english, b"<CAE xmlns='http://cfe.dgi.gub.uy'/>").json["error"]["message"]
    assert "line 1" in schema and "línea" not in schema and "le falta" not in schema, schema
    unreadable = upload_cae(api_client, english, b"no es xml").json["error"]["message"]
    assert "no se puede leer" not in unreadable, unreadable


def test_dgis_own_cae_files_of_before_2013_are_called_old_not_edited(api_client, admin):
    """DGI's 2012 sample CAE files (CAE_v1.1, no TA) are genuine: the answer says the format is old and a current
    file is to be downloaded, not that the file was edited ("subilo tal como lo descargaste" had no way forward)."""
    from portal import paths

    sample = (paths.dgi_samples_dir() / "cae" / "CAE_219999830019_90120000194_e-Ticket.xml").read_bytes()
    answer = upload_cae(api_client, admin, sample)
    assert answer.status_code == 422
    assert [f["code"] for f in answer.json["error"]["fields"]] == ["cae_formato_anterior"], answer.json
    message = answer.json["error"]["message"]
    assert "antes de 2013" in message and "descargá el CAE vigente" in message and "sin editarlo" not in message
    english = upload_cae(api_client, {**admin, "Accept-Language": "en"}, sample).json["error"]["message"]
    assert "before 2013" in english and "antes" not in english, english
