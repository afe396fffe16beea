"""The company's people through the API (Empresa › Personas): an admin lists, adds, re-roles and removes the members
of their own company; a new user's one-time password is answered once; the company always keeps an active admin;
a removed member's token stops reaching the company at its next request."""

from __future__ import annotations

from sqlalchemy import select

from portal.service.identity.passwords import verify_password
from portal.service.platform import db
from portal.service.platform.models import User
from tests.support.people import add_people

BASE = "/api/v1/empresa/miembros"


def _ids(api_client, headers) -> dict[str, int]:
    return {m["email"]: m["id"] for m in api_client.get(BASE, headers=headers).json["items"]}


def _set_role(api_client, user_id: int, role: str, headers):
    return api_client.put(f"{BASE}/{user_id}/rol", json={"rol": role}, headers=headers)


def _last_audit(api_client, headers) -> dict:
    return api_client.get("/api/v1/empresa/auditoria", headers=headers).json["items"][0]


def test_the_list_says_who_with_their_role_admins_first_and_no_password(api_client, auth_headers):
    answer = api_client.get(BASE, headers=auth_headers("admin@demo.uy", 1))
    assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-store"
    items = answer.json["items"]
    assert {(m["email"], m["rol"]) for m in items} == {
        ("admin@demo.uy", "admin"),
        ("soporte@demo.uy", "soporte"),
        ("usuario@demo.uy", "usuario"),
    }
    assert items[0]["rol"] == "admin"
    assert set(items[0]) == {"id", "email", "nombre", "rol", "desde", "activo"}
    assert "password" not in answer.get_data(as_text=True).lower()
    # Company 2 sees its own people only.
    other = api_client.get(BASE, headers=auth_headers("admin@demo.uy", 2)).json["items"]
    assert [m["email"] for m in other] == ["admin@demo.uy"]


def test_the_list_pages_as_every_list_does_admins_first_then_by_name(api_client, auth_headers, service_app):
    """More members than a page holds: the list answered them all in one `items`. Now it pages with `cursor` and
    `limite` as every list of the API, in its own order (admins, soporte, usuarios, each by name), every member
    once; a cursor it did not make is a 422 on `cursor`; one member is read by its id."""
    emails = add_people(service_app, 52)
    admin = auth_headers("admin@demo.uy", 1)
    first = api_client.get(BASE, headers=admin)
    assert first.status_code == 200, first.json
    assert len(first.json["items"]) == 50 and first.json["siguienteCursor"]
    assert [m["email"] for m in first.json["items"][:3]] == ["admin@demo.uy", "soporte@demo.uy", emails[0]]
    rest = api_client.get(BASE, query_string={"cursor": first.json["siguienteCursor"]}, headers=admin).json
    assert rest["siguienteCursor"] is None
    seen = [m["email"] for m in first.json["items"] + rest["items"]]
    assert seen == ["admin@demo.uy", "soporte@demo.uy", *emails, "usuario@demo.uy"]
    walked, cursor = [], None
    while True:
        page = api_client.get(BASE, query_string={"limite": 7, **({"cursor": cursor} if cursor else {})}, headers=admin)
        walked += [m["email"] for m in page.json["items"]]
        cursor = page.json["siguienteCursor"]
        if cursor is None:
            break
    assert walked == seen
    refused = api_client.get(BASE, query_string={"cursor": "bm9uZQ"}, headers=admin)
    assert refused.status_code == 422 and refused.json["error"]["fields"][0]["field"] == "cursor"
    assert api_client.get(BASE, query_string={"limite": 201}, headers=admin).status_code == 422
    one = api_client.get(f"{BASE}/{_ids(api_client, admin)['soporte@demo.uy']}", headers=admin)
    assert (one.status_code, one.json["rol"], one.headers["Cache-Control"]) == (200, "soporte", "no-store")
    norte = auth_headers("admin@demo.uy", 2)
    assert api_client.get(f"{BASE}/{_ids(api_client, admin)['soporte@demo.uy']}", headers=norte).status_code == 404
    spec = api_client.get("/api/v1/openapi.json").json
    parameters = {p["name"] for p in spec["paths"][BASE]["get"]["parameters"]}
    assert {"cursor", "limite"} <= parameters
    assert "siguienteCursor" in spec["components"]["schemas"]["MiembroList"]["properties"]


def test_a_new_person_gets_a_user_and_a_one_time_password_answered_once(api_client, auth_headers, service_app):
    admin = auth_headers("admin@demo.uy", 1)
    body = {"email": "  Ana.Perez@Empresa.com.uy ", "nombre": "Ana Pérez", "rol": "usuario"}
    answer = api_client.post(BASE, json=body, headers=admin)
    assert answer.status_code == 201, answer.json
    assert answer.headers["Cache-Control"] == "no-store"
    added = answer.json
    assert (added["email"], added["nombre"], added["rol"], added["usuarioNuevo"]) == (
        "ana.perez@empresa.com.uy",
        "Ana Pérez",
        "usuario",
        True,
    )
    password = added["contrasenaTemporal"]
    assert len(password) >= 20 and added["desde"] is not None
    with service_app.app_context():
        user = db.session().scalar(select(User).where(User.email == "ana.perez@empresa.com.uy"))
        assert user.password_hash != password and verify_password(user.password_hash, password)
    # The list never shows it again; the audit says who added whom, without it.
    listed = api_client.get(BASE, headers=admin)
    assert password not in listed.get_data(as_text=True)
    assert "ana.perez@empresa.com.uy" in _ids(api_client, admin)
    event = _last_audit(api_client, admin)
    assert event["accion"] == "miembro_agregado" and event["actor"] == "admin@demo.uy"
    assert password not in str(event)
    # The new member reaches the company with their token.
    member = auth_headers("ana.perez@empresa.com.uy")
    assert api_client.get("/api/v1/empresa/resumen", headers=member).status_code == 200


def test_someone_with_a_user_already_keeps_their_password_and_a_second_addition_is_refused(api_client, auth_headers):
    admin_two = auth_headers("admin@demo.uy", 2)
    body = {"email": "usuario@demo.uy", "nombre": "Otro nombre", "rol": "soporte"}
    answer = api_client.post(BASE, json=body, headers=admin_two)
    assert answer.status_code == 201, answer.json
    assert answer.json["usuarioNuevo"] is False and answer.json["contrasenaTemporal"] is None
    assert answer.json["nombre"] != "Otro nombre"  # their user's own name
    again = api_client.post(BASE, json=body, headers=admin_two)
    assert again.status_code == 409 and again.json["error"]["code"] == "miembro_existente"


def test_inputs_are_checked_and_bounded(api_client, auth_headers):
    admin = auth_headers("admin@demo.uy", 1)
    cases = [
        ({"email": "no-es-correo", "nombre": "X", "rol": "usuario"}, "email"),
        ({"email": "a@b.uy", "nombre": "", "rol": "usuario"}, "nombre"),
        ({"email": "a@b.uy", "nombre": "N" * 121, "rol": "usuario"}, "nombre"),
        ({"email": "a" * 250 + "@b.uy", "nombre": "N", "rol": "usuario"}, "email"),
        ({"email": "a@b.uy", "nombre": "N", "rol": "dueño"}, "rol"),
        ({"email": "a@b.uy", "nombre": "N\x07", "rol": "usuario"}, "nombre"),
    ]
    for body, field in cases:
        answer = api_client.post(BASE, json=body, headers=admin)
        assert answer.status_code == 422, (body, answer.json)
        assert field in {f["field"] for f in answer.json["error"]["fields"]}, (body, answer.json)
    extra = api_client.post(BASE, json={"email": "a@b.uy", "nombre": "N", "rol": "usuario", "x": 1}, headers=admin)
    assert extra.status_code == 422
    assert "a@b.uy" not in _ids(api_client, admin)


def test_role_changes_hold_at_the_next_request_and_the_last_admin_keeps_the_role(api_client, auth_headers):
    admin = auth_headers("admin@demo.uy", 1)
    ids = _ids(api_client, admin)
    usuario = auth_headers("usuario@demo.uy")
    assert api_client.get(BASE, headers=usuario).status_code == 403
    changed = api_client.put(f"{BASE}/{ids['usuario@demo.uy']}/rol", json={"rol": "admin"}, headers=admin)
    assert changed.status_code == 200 and changed.json["rol"] == "admin"
    assert api_client.get(BASE, headers=usuario).status_code == 200  # the same token, now an admin's
    event = _last_audit(api_client, admin)
    assert event["accion"] == "rol_cambiado"
    assert event["cambios"]["rol"] == {"antes": "usuario", "despues": "admin"}
    # Two admins: one may step down, even by their own hand; then the other is the last.
    assert _set_role(api_client, ids["admin@demo.uy"], "soporte", admin).status_code == 200
    last = api_client.put(f"{BASE}/{ids['usuario@demo.uy']}/rol", json={"rol": "usuario"}, headers=usuario)
    assert last.status_code == 409 and last.json["error"]["code"] == "ultimo_administrador"
    bad = api_client.put(f"{BASE}/{ids['usuario@demo.uy']}/rol", json={"rol": "root"}, headers=usuario)
    assert bad.status_code == 422


def test_removal_takes_effect_at_once_and_never_leaves_the_company_without_an_admin(api_client, auth_headers):
    admin = auth_headers("admin@demo.uy", 1)
    ids = _ids(api_client, admin)
    removed_token = auth_headers("usuario@demo.uy")  # minted before the removal, used after it
    assert api_client.get("/api/v1/empresa/resumen", headers=removed_token).status_code == 200
    assert api_client.delete(f"{BASE}/{ids['usuario@demo.uy']}", headers=admin).status_code == 204
    refused = api_client.get("/api/v1/empresa/resumen", headers={**removed_token, "X-Empresa-Id": "1"})
    assert refused.status_code == 403
    event = _last_audit(api_client, admin)
    assert (event["accion"], event["actor"]) == ("miembro_quitado", "admin@demo.uy")
    gone = api_client.delete(f"{BASE}/{ids['usuario@demo.uy']}", headers=admin)
    assert gone.status_code == 404 and gone.json["error"]["code"] == "miembro_inexistente"
    # The only admin cannot remove themselves...
    myself = api_client.delete(f"{BASE}/{ids['admin@demo.uy']}", headers=admin)
    assert myself.status_code == 409 and myself.json["error"]["code"] == "ultimo_administrador"
    # ...until another admin stays.
    assert _set_role(api_client, ids["soporte@demo.uy"], "admin", admin).status_code == 200
    assert api_client.delete(f"{BASE}/{ids['admin@demo.uy']}", headers=admin).status_code == 204
    assert api_client.get(BASE, headers=admin).status_code == 403


def test_another_companys_member_is_a_404(api_client, auth_headers):
    ids = _ids(api_client, auth_headers("admin@demo.uy", 1))
    admin_two = auth_headers("admin@demo.uy", 2)
    for answer in (
        api_client.put(f"{BASE}/{ids['usuario@demo.uy']}/rol", json={"rol": "admin"}, headers=admin_two),
        api_client.delete(f"{BASE}/{ids['usuario@demo.uy']}", headers=admin_two),
    ):
        assert answer.status_code == 404 and answer.json["error"]["code"] == "miembro_inexistente"
    assert "usuario@demo.uy" in _ids(api_client, auth_headers("admin@demo.uy", 1))


def test_the_operations_are_documented_with_their_errors(api_client):
    paths = api_client.get("/api/v1/openapi.json").json["paths"]
    assert set(paths[BASE]) >= {"get", "post"}
    assert {"404", "409"} <= set(paths[BASE + "/{user_id}"]["delete"]["responses"])
    assert {"404", "409", "422"} <= set(paths[BASE + "/{user_id}/rol"]["put"]["responses"])
    created = paths[BASE]["post"]["responses"]["201"]["content"]["application/json"]["schema"]
    assert "MiembroAgregado" in str(created)
