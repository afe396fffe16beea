"""Who may call what: every service operation and every portal route, for anonymous callers, each role,
and a user of another company.

Operations come from the service's registry and routes from the portal's url_map, so a new one is covered
as soon as it exists; a route the tables below do not classify fails the test until someone says who may
use it.
"""

from __future__ import annotations

import re

import pytest

from portal.service import area_routes
from portal.service.identity.passwords import hash_password
from portal.service.platform import db
from portal.service.platform.api import MAX_PATH_INTEGER, OPERATIONS
from portal.service.platform.models import Membership, User
from tests.support import cfe_bodies as bodies

area_routes()  # registers every operation before the tests are parametrized

ROLES = ("admin", "usuario", "soporte")
EMAILS = {"admin": "admin@demo.uy", "usuario": "usuario@demo.uy", "soporte": "soporte@demo.uy"}
OTHER_COMPANY_EMAIL = "norte@demo.uy"  # admin of company 2 (Comercial del Norte) only
# Service routes that are not API operations, and who may use them.
SERVICE_PLATFORM = {
    "healthz",
    "openapi_document",
    "api_reference",
    "static_files",
    "identity.discovery",
    "identity.jwks",
    "identity.authorize",
    "identity.issue_token",
    "identity.revoke_token",
    "identity.userinfo",
    "identity.logout",
    # The provider's password change: its own sign-in session (a browser page, no token), not an API operation.
    "identity_password.change",
    "identity_password.changed",
    "bcu_standin.execute",  # the BCU stand-in's SOAP endpoint (development and tests; no company data)
    # The exchange web service (aws_efactura_intercambio): SOAP, authenticated by its WS-Security signature.
    "recibidos_ws.wsdl",
    "recibidos_ws.soap",
}
# Parameters that name a record of one company (a caller of another company must get 404), and those that
# name nothing of ours (a RUT asked of DGI).
RECORD_PARAMS = {
    "token",
    "request_id",
    "apikey_id",
    "idCfeEmitido",
    "requestId",
    "cfe_id",
    "branch_id",
    "id_sobre",
    "id_reporte",
    "mensaje_id",
    "webhook_id",
    "cliente_id",
    "certificate_id",
    "cae_range_id",
    "producto_id",
    "aviso_id",
    "recibido_id",
    "respuesta_id",
    "book_id",
    "user_id",
}
FREE_PARAMS = {"rut", "idEmpresa", "idCertificado", "tipoDoc", "nroDoc", "numero", "documento"}


def _add_other_company_user(app) -> None:
    with app.app_context():
        session = db.session()
        user = User(email=OTHER_COMPANY_EMAIL, name="Norte", password_hash=hash_password("demo-password"))
        session.add(user)
        session.flush()
        session.add(Membership(user_id=user.id, company_id=2, role="admin"))
        session.commit()


def _add_company_one_member(app) -> int:
    """A member of company 1 the matrix may re-role and remove (the demo's people keep theirs)."""
    with app.app_context():
        session = db.session()
        user = User(email="matriz@demo.uy", name="Matriz", password_hash=hash_password("demo-password"))
        session.add(user)
        session.flush()
        session.add(Membership(user_id=user.id, company_id=1, role="usuario"))
        session.commit()
        return user.id


@pytest.fixture
def company_one_records(api_client, auth_headers, service_app) -> dict:
    """One record of company 1 for every kind a path, query or body can name."""
    _add_other_company_user(service_app)
    admin, user = auth_headers("admin@demo.uy", 1), auth_headers("usuario@demo.uy")
    receipt = bodies.issue(api_client, user, bodies.body(bodies.ETICKET))
    key = api_client.post("/api/v1/apikeys", json={"nombre": "Matriz"}, headers=admin).json
    preview = api_client.post(
        "/api/v1/comprobante/previsualizar",
        json=bodies.body(bodies.ETICKET),
        headers={**user, "Accept": "application/json"},
    ).json
    smart = api_client.post(
        "/api/v1/cfe/previsualizar-emision-inteligente",
        headers=user,
        json={"lineas": [{"descripcion": "Servicio", "cantidad": "1", "precio": "100"}]},
    ).json
    branches = api_client.get("/api/v1/empresa/sucursales", headers=admin).json
    branch = branches[0] if isinstance(branches, list) else next(iter(branches.values()))[0]
    # An envelope and a mailbox message of company 1 are named by ids that may not exist yet: company 2 must
    # get 404 all the same, never another answer.
    return {
        "idCfeEmitido": receipt["idCfeEmitido"],
        "apikey_id": key["id"],
        "token": preview["token"],
        "request_id": smart["requestId"],
        "requestId": smart["requestId"],
        "cfe_id": receipt["idCfeEmitido"],
        "branch_id": branch["id"],
        "cae_range_id": api_client.get("/api/v1/empresa/cae", headers=admin).json["items"][0]["id"],
        "id_sobre": 1,
        "id_reporte": 1,
        "documento": "acuse",  # of an envelope or a report: one both paths name
        "mensaje_id": "mensaje-de-la-empresa-1",
        "recibido_id": 1,
        "respuesta_id": 1,
        "book_id": 1,  # a contingency book
        "user_id": _add_company_one_member(service_app),  # a member of company 1
    }


def _example(model) -> dict:
    if model is None:
        return {}
    examples = (model.model_config.get("json_schema_extra") or {}).get("examples") or [{}]
    return dict(examples[0])


def _query_values(op) -> dict:
    if op.query is None:
        return {}
    values = {}
    for name, prop in op.query.model_json_schema().get("properties", {}).items():
        if prop.get("examples"):
            values[name] = prop["examples"][0]
    return values


def _request(op, records: dict) -> tuple[str, dict, dict | None]:
    """The path, query and body of a call to `op` that names company 1's records wherever it can."""
    path = op.path
    for name in re.findall(r"{(\w+)}", op.path):
        # A record the test has none of: a number the route takes that names nothing (an integer path parameter
        # past MAX_PATH_INTEGER is a 404 before anything else, as a word where a number goes always was).
        spec = op.path_params.get(name)
        integer = isinstance(spec, dict) and spec["schema"]["type"] == "integer"
        path = path.replace("{" + name + "}", str(records.get(name, MAX_PATH_INTEGER if integer else "219999830019")))
    fields = set(op.query.model_json_schema().get("properties", {})) if op.query else set()
    query = {**_query_values(op), **{k: 1 for k in ("idEmpresa", "idCertificado") if k in fields}}
    query.update({k: v for k, v in records.items() if k in fields})
    body = _example(op.body) if op.body is not None else None
    if body is not None:
        body.update({k: v for k, v in records.items() if k in body})
    return path, query, body


def _names(op) -> set[str]:
    names = set(re.findall(r"{(\w+)}", op.path))
    if op.query is not None:
        names |= set(op.query.model_json_schema().get("properties", {}))
    if op.body is not None:
        names |= set(_example(op.body)) & (RECORD_PARAMS | FREE_PARAMS)
    return names


def _call(api_client, op, records, headers):
    path, query, body = _request(op, records)
    kwargs = {"query_string": query, "headers": headers}
    if body is not None:
        kwargs["json"] = body
    elif op.raw_body is not None:
        kwargs.update(data=b"<CFE xmlns='http://cfe.dgi.gub.uy'/>", content_type="application/xml")
    return api_client.open(path, method=op.method.upper(), **kwargs)


def test_every_service_route_is_an_operation_or_classified(service_app):
    operations = {f"{op.method.upper()} {op.path}" for op in OPERATIONS}
    unclassified = []
    for rule in service_app.url_map.iter_rules():
        path = re.sub(r"<(?:\w+(?:\([^)]*\))?:)?(\w+)>", r"{\1}", rule.rule)  # <any(a, b):name> too
        methods = rule.methods - {"HEAD", "OPTIONS"}
        if not all(f"{m} {path}" in operations for m in methods) and rule.endpoint not in SERVICE_PLATFORM:
            unclassified.append((rule.endpoint, rule.rule))
    assert not unclassified, "classify these routes in SERVICE_PLATFORM or declare them with operation()"
    for op in OPERATIONS:
        unknown = {n for n in re.findall(r"{(\w+)}", op.path)} - RECORD_PARAMS - FREE_PARAMS
        assert not unknown, f"{op.operation_id}: say whether {unknown} name a company's record"


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: f"{op.method.upper()} {op.path}")
def test_every_operation_for_anonymous_each_role_and_another_company(api_client, auth_headers, op, company_one_records):
    anonymous = _call(api_client, op, company_one_records, {})
    assert anonymous.status_code == 401, anonymous.json
    for role in ROLES:
        answer = _call(api_client, op, company_one_records, auth_headers(EMAILS[role], 1))
        error = ((answer.json or {}).get("error") if answer.is_json else None) or {}
        if op.roles is not None and role not in op.roles:
            assert answer.status_code == 403 and error["code"] == "rol_insuficiente", (role, answer.json)
        else:
            assert answer.status_code != 401 and error.get("code") != "rol_insuficiente", (role, answer.json)
    other = _call(api_client, op, company_one_records, auth_headers(OTHER_COMPANY_EMAIL))
    names = _names(op)
    if names & RECORD_PARAMS:
        assert other.status_code == 404, (op.path, other.json)
    elif "idEmpresa" in names:
        assert other.status_code == 403 and other.json["error"]["code"] == "empresa_ajena", other.json
    if other.is_json:
        # Whatever it answers, nothing of company 1 reaches company 2's user.
        text = other.get_data(as_text=True)
        secrets = [value for value in company_one_records.values() if isinstance(value, str) and len(value) > 8]
        assert not any(value in text for value in secrets), (op.path, text[:300])  # small ids appear anywhere
