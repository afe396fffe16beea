"""Smart issuance: inference rules, warnings, preview -> confirm, direct issue, and the request timeline."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import delete, func, select, update

from portal.service.comprobante import issuing
from portal.service.comprobante.models import CaeRangeRecord
from portal.service.empresa.models import Branch
from portal.service.inteligente.models import SmartRequest
from portal.service.platform import db
from portal.service.platform.models import Company
from tests.support import cfe_bodies as bodies

PREVIEW = "/api/v1/cfe/previsualizar-emision-inteligente"
CONFIRM = "/api/v1/cfe/confirmar-emision-inteligente"
DIRECT = "/api/v1/cfe/emitir-inteligente"
CONSULT = "/api/v1/cfe/emision-inteligente/"
SERVICE_LINE = {"descripcion": "Consultoría", "cantidad": "10", "precio": "1500"}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _preview(api_client, headers, body):
    answer = api_client.post(PREVIEW, json=body, headers=headers)
    assert answer.status_code == 201, answer.json
    return answer.json


def _codes(answer) -> set[str]:
    return {w["codigo"] for w in answer["advertencias"]}


def _confirm(api_client, headers, preview, **extra):
    return api_client.post(
        CONFIRM,
        headers=headers,
        json={
            "requestId": preview["requestId"],
            "hashBorrador": preview["hashBorrador"],
            "advertenciasAceptadas": sorted(_codes(preview)),
            **extra,
        },
    )


def test_rut_receiver_gets_an_efactura_with_name_and_address_from_dgi(api_client, user):
    preview = _preview(api_client, user, {"receptor": {"documento": "21-999983-001-9"}, "lineas": [SERVICE_LINE]})
    draft = preview["borrador"]
    assert draft["tipoCFE"] == 111
    assert draft["receptor"]["tipoDocRecep"] == 2 and draft["receptor"]["docRecep"] == "219999830019"
    assert draft["receptor"]["rznSocRecep"] and draft["receptor"]["dirRecep"]
    reasons = {i["campo"]: i["motivo"] for i in preview["inferencias"]}
    assert "RUT" in reasons["tipoCFE"] and "DGI" in reasons["receptor.rznSocRecep"]


def test_the_reasons_for_an_electronic_receiver_are_said_in_english(api_client, user):
    """The demo company is in DGI's directory of electronic issuers: every reason, that one too, in English."""
    english = {**user, "Accept-Language": "en"}
    preview = _preview(api_client, english, {"receptor": {"documento": "219999830019"}, "lineas": [SERVICE_LINE]})
    reasons = {i["campo"]: i["motivo"] for i in preview["inferencias"]}
    assert reasons["receptor.electronico"].startswith("Electronic receiver: "), reasons
    assert not [r for r in reasons.values() if re.search(r"[áéíóúñ]|\b(el|de|se) ", r)], reasons


@pytest.mark.parametrize("url", [PREVIEW, DIRECT])
def test_a_description_with_a_character_xml_cannot_carry_is_a_422_on_the_line(api_client, user, url):
    answer = api_client.post(url, json={"lineas": [{**SERVICE_LINE, "descripcion": "Caf\uffff"}]}, headers=user)
    assert answer.status_code == 422, answer.json
    problems = {f["field"]: f["message"] for f in answer.json["error"]["fields"]}
    assert "U+FFFF" in problems["lineas[0].descripcion"], problems


def test_no_receiver_or_a_ci_gets_an_eticket(api_client, user):
    assert _preview(api_client, user, {"lineas": [SERVICE_LINE]})["borrador"]["tipoCFE"] == 101
    with_ci = _preview(api_client, user, {"receptor": {"documento": "1.335.321-4"}, "lineas": [SERVICE_LINE]})
    assert with_ci["borrador"]["tipoCFE"] == 101
    assert with_ci["borrador"]["receptor"] == {"tipoDocRecep": 3, "docRecep": "13353214", "codPaisRecep": "UY"}


def test_a_reference_makes_a_credit_or_debit_note_of_the_right_family(api_client, user):
    factura = api_client.post("/api/v1/comprobante/emitir", json=bodies.body(bodies.EFACTURA), headers=user).json
    credit = _preview(
        api_client,
        user,
        {
            "receptor": {"documento": "214844360018"},
            "lineas": [SERVICE_LINE],
            "referencia": {"idCfeEmitido": factura["idCfeEmitido"], "razon": "Devolución"},
        },
    )
    assert credit["borrador"]["tipoCFE"] == 112
    reference = credit["borrador"]["referencias"][0]
    assert (reference["tpoDocRef"], reference["serie"], reference["nroCFERef"]) == (111, "A", factura["nro"])
    debit = _preview(
        api_client,
        user,
        {
            "lineas": [SERVICE_LINE],
            "receptor": {"documento": "214844360018"},
            "referencia": {"idCfeEmitido": factura["idCfeEmitido"], "tipo": "debito", "razon": "Intereses"},
        },
    )
    assert debit["borrador"]["tipoCFE"] == 113


def test_a_reference_to_another_companys_receipt_is_404(api_client, user, auth_headers):
    other = api_client.post(
        "/api/v1/comprobante/emitir",
        json=bodies.body(bodies.ETICKET),
        headers=auth_headers("admin@demo.uy", company_id=2),
    ).json
    answer = api_client.post(
        PREVIEW,
        headers=user,
        json={"lineas": [SERVICE_LINE], "referencia": {"idCfeEmitido": other["idCfeEmitido"], "razon": "x"}},
    )
    assert answer.status_code == 404


@pytest.mark.parametrize(
    ("line", "ind_fact"),
    [
        ({"tasa": "minima"}, 2),
        ({"categoria": "libros"}, 1),
        ({"categoria": "medicamentos"}, 2),
        ({}, 3),
        ({"tasa": "basica", "categoria": "libros"}, 3),
    ],
)
def test_each_lines_iva_is_explicit_or_inferred_from_its_category(api_client, user, line, ind_fact):
    preview = _preview(api_client, user, {"lineas": [SERVICE_LINE | line]})
    assert preview["borrador"]["items"][0]["indFact"] == ind_fact


def test_serie_and_totals_come_from_the_service(api_client, user):
    preview = _preview(api_client, user, {"preciosIncluyenIva": False, "lineas": [SERVICE_LINE]})
    assert preview["totales"]["mntNetoIVATasaBasica"] == "15000.00"
    assert preview["totales"]["mntIVATasaBasica"] == "3300.00" and preview["totales"]["mntPagar"] == "18300.00"
    assert preview["previsualizacionUrl"] and preview["venceEn"]


@pytest.mark.parametrize(
    ("rut", "warning"),
    [
        ("215550030019", "receptor_no_emisor_electronico"),
        ("215550020013", "cva_vencido"),
        ("215550010018", "receptor_inactivo"),
        ("215550080016", "receptor_no_encontrado"),
    ],
)
def test_receiver_warnings(api_client, user, rut, warning):
    preview = _preview(
        api_client,
        user,
        {
            "receptor": {"documento": rut, "nombre": "Cliente", "direccion": "Calle 1", "ciudad": "Montevideo"},
            "lineas": [SERVICE_LINE],
        },
    )
    assert warning in _codes(preview)


def test_demo_company_receiver_has_no_warnings(api_client, user):
    assert (
        _codes(_preview(api_client, user, {"receptor": {"documento": "219999830019"}, "lineas": [SERVICE_LINE]}))
        == set()
    )


def test_eticket_above_the_identification_threshold_warns(api_client, user):
    big = {"descripcion": "Televisor", "cantidad": "1", "precio": "60000"}
    assert "eticket_supera_tope" in _codes(
        _preview(api_client, user, {"receptor": {"documento": "13353214"}, "lineas": [big]})
    )
    unidentified = api_client.post(PREVIEW, json={"lineas": [big]}, headers=user)
    assert unidentified.status_code == 422  # DGI's rule: above the threshold the receiver must be identified


def test_cae_running_out_warns(api_client, user, service_app):
    with service_app.app_context():
        db.session().execute(
            update(CaeRangeRecord)
            .where(CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101)
            .values(next_nro=CaeRangeRecord.hnro - 10)
        )
        db.session().commit()
    assert "cae_por_agotarse" in _codes(_preview(api_client, user, {"lineas": [SERVICE_LINE]}))


def test_an_unusual_total_warns(api_client, user):
    for _ in range(5):
        api_client.post(
            DIRECT, json={"lineas": [{"descripcion": "Café", "cantidad": "1", "precio": "100"}]}, headers=user
        )
    assert "total_inusual" in _codes(
        _preview(api_client, user, {"lineas": [{"descripcion": "Café", "cantidad": "1", "precio": "1000"}]})
    )


def test_preview_then_confirm_issues_exactly_the_preview(api_client, user):
    preview = _preview(api_client, user, {"receptor": {"documento": "219999830019"}, "lineas": [SERVICE_LINE]})
    confirmed = _confirm(api_client, user, preview)
    assert confirmed.status_code == 200 and confirmed.json["estado"] == "issued"
    receipt = confirmed.json["comprobante"]
    assert receipt["tipoCFE"] == preview["borrador"]["tipoCFE"]
    assert receipt["totales"] == preview["totales"]
    assert receipt["receptor"] == preview["borrador"]["receptor"]
    assert [e["estado"] for e in confirmed.json["lineaDeTiempo"]] == ["preview", "confirmed", "issued"]


def test_confirming_twice_gives_the_same_receipt(api_client, user):
    preview = _preview(api_client, user, {"lineas": [SERVICE_LINE]})
    first = _confirm(api_client, user, preview).json
    second = _confirm(api_client, user, preview).json
    assert first["cfeEmitidos"] == second["cfeEmitidos"] and len(first["cfeEmitidos"]) == 1
    nxt = api_client.post("/api/v1/comprobante/emitir", json=bodies.body(bodies.ETICKET), headers=user).json
    assert nxt["nro"] == first["comprobante"]["nro"] + 1


def test_confirm_needs_the_warnings_acknowledged(api_client, user):
    preview = _preview(api_client, user, {"receptor": {"documento": "215550030019"}, "lineas": [SERVICE_LINE]})
    refused = _confirm(api_client, user, preview, advertenciasAceptadas=[])
    assert refused.status_code == 422 and refused.json["error"]["code"] == "advertencias_sin_aceptar"
    assert _confirm(api_client, user, preview).json["estado"] == "issued"


def test_a_changed_draft_is_refused(api_client, user):
    preview = _preview(api_client, user, {"lineas": [SERVICE_LINE]})
    refused = _confirm(api_client, user, preview, hashBorrador="0" * 64)
    assert refused.status_code == 409 and refused.json["error"]["code"] == "borrador_modificado"


def test_a_confirm_after_expiry_is_refused_and_the_request_says_expired(api_client, user, service_app):
    preview = _preview(api_client, user, {"lineas": [SERVICE_LINE]})
    with service_app.app_context():
        db.session().execute(update(SmartRequest).values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        db.session().commit()
    refused = _confirm(api_client, user, preview)
    assert refused.status_code == 409 and refused.json["error"]["code"] == "solicitud_vencida"
    state = api_client.get(CONSULT + preview["requestId"], headers=user).json
    assert state["estado"] == "expired" and state["final"] is True


def test_a_preview_says_what_the_setup_lacks_to_issue_it_checked_on_every_read(api_client, user, service_app):
    """The preview said nothing about a CAE used up (or no certificate, no address): confirming was the first
    to tell. `bloqueos` says it at once, in the reader's language, and goes once it is fixed."""
    with service_app.app_context():
        db.session().execute(
            update(CaeRangeRecord).where(CaeRangeRecord.tipo_cfe == 101).values(next_nro=CaeRangeRecord.hnro + 1)
        )
        db.session().commit()
    preview = _preview(api_client, user, {"lineas": [SERVICE_LINE]})
    assert [b["codigo"] for b in preview["bloqueos"]] == ["cae_agotado"]
    assert preview["bloqueos"][0]["mensaje"].startswith("Se agotaron los números de CAE para el tipo e-Ticket.")
    english = api_client.get(CONSULT + preview["requestId"], headers={**user, "Accept-Language": "en"}).json
    assert english["bloqueos"][0]["mensaje"] == "The CAE numbers for type e-Ticket have run out. Ask DGI for a new CAE."
    with service_app.app_context():
        db.session().execute(update(CaeRangeRecord).where(CaeRangeRecord.tipo_cfe == 101).values(next_nro=1))
        db.session().commit()
    assert api_client.get(CONSULT + preview["requestId"], headers=user).json["bloqueos"] == []
    issued = _confirm(api_client, user, preview)
    assert issued.status_code == 200 and issued.json["bloqueos"] == []


def test_a_previews_blocks_name_every_missing_piece_at_once(api_client, user, service_app):
    """No fiscal address and no CAE range for the type: both, not the first alone. (Without a certificate the
    preview itself is refused: it asks DGI's registry with it.)"""
    with service_app.app_context():
        session = db.session()
        session.execute(delete(Branch).where(Branch.company_id == 1))
        session.execute(update(Company).where(Company.id == 1).values(domicilio_fiscal="", ciudad="", departamento=""))
        session.execute(
            update(CaeRangeRecord).where(CaeRangeRecord.tipo_cfe == 101).values(vencimiento=date(2020, 1, 1))
        )
        session.commit()
    answer = api_client.post(PREVIEW, json={"lineas": [SERVICE_LINE]}, headers=user)
    assert answer.status_code == 201, answer.json
    assert [b["codigo"] for b in answer.json["bloqueos"]] == [
        "emisor_sin_domicilio",
        "cae_vencido",
    ]


def test_a_failure_keeps_the_request_and_says_why(api_client, user, service_app):
    preview = _preview(api_client, user, {"lineas": [SERVICE_LINE]})
    with service_app.app_context():
        db.session().execute(
            update(CaeRangeRecord).where(CaeRangeRecord.tipo_cfe == 101).values(next_nro=CaeRangeRecord.hnro + 1)
        )
        db.session().commit()
    failed = _confirm(api_client, user, preview)
    assert failed.status_code == 409 and failed.json["error"]["code"] == "cae_agotado"
    state = api_client.get(CONSULT + preview["requestId"], headers=user).json
    assert state["estado"] == "failed" and state["error"]["codigo"] == "cae_agotado"
    assert [e["estado"] for e in state["lineaDeTiempo"]] == ["preview", "confirmed", "failed"]


def test_direct_issue_with_the_same_idempotency_key_twice_gives_one_receipt(api_client, user):
    body = {"lineas": [SERVICE_LINE]}
    first = api_client.post(DIRECT, json=body, headers={**user, "Idempotency-Key": "erp-77"})
    again = api_client.post(DIRECT, json=body, headers={**user, "Idempotency-Key": "erp-77"})
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert first.json["cfeEmitidos"] == again.json["cfeEmitidos"] and len(first.json["cfeEmitidos"]) == 1
    other = api_client.post(
        DIRECT, json={"lineas": [SERVICE_LINE | {"cantidad": "2"}]}, headers={**user, "Idempotency-Key": "erp-77"}
    )
    assert other.status_code == 422


class _ProcessKilled(BaseException):
    """The process dying mid-issue: nothing in it runs any cleanup (no except, no finally of its own)."""


def _smart_requests(service_app) -> int:
    with service_app.app_context():
        return db.session().scalar(select(func.count()).select_from(SmartRequest))


def test_a_direct_issue_killed_midway_leaves_nothing_and_its_retry_issues_at_once(
    api_client, user, service_app, monkeypatch
):
    body, headers = {"lineas": [SERVICE_LINE]}, {**user, "Idempotency-Key": "erp-killed"}
    before = _smart_requests(service_app)

    def killed(*_args, **_kwargs):
        raise _ProcessKilled

    with monkeypatch.context() as patch:
        patch.setattr(issuing, "sign_validated_cfe", killed)  # dies after numbering, before storing
        with pytest.raises(_ProcessKilled):
            api_client.post(DIRECT, json=body, headers=headers)

    retry = api_client.post(DIRECT, json=body, headers=headers)
    assert retry.status_code == 201, retry.json  # not 409 "in progress" for 120 s
    assert _smart_requests(service_app) == before + 1  # the retry's: the killed one left nothing half-made
    assert retry.json["estado"] == "issued" and len(retry.json["cfeEmitidos"]) == 1
    again = api_client.post(DIRECT, json=body, headers=headers)
    assert again.headers["Idempotent-Replayed"] == "true" and again.json == retry.json


def test_a_failed_direct_issue_is_kept_as_failed_and_its_key_is_not_spent(api_client, user, service_app):
    with service_app.app_context():
        db.session().execute(
            update(CaeRangeRecord).where(CaeRangeRecord.tipo_cfe == 101).values(next_nro=CaeRangeRecord.hnro + 1)
        )
        db.session().commit()
    headers = {**user, "Idempotency-Key": "erp-agotado"}
    failed = api_client.post(DIRECT, json={"lineas": [SERVICE_LINE]}, headers=headers)
    assert failed.status_code == 409 and failed.json["error"]["code"] == "cae_agotado"
    listed = api_client.get("/api/v1/cfe/emision-inteligente", headers=user).json
    newest = api_client.get(CONSULT + listed["items"][0]["requestId"], headers=user).json
    assert newest["estado"] == "failed" and newest["error"]["codigo"] == "cae_agotado"
    assert [e["estado"] for e in newest["lineaDeTiempo"]] == ["confirmed", "failed"]
    again = api_client.post(DIRECT, json={"lineas": [SERVICE_LINE]}, headers=headers)
    assert again.json["error"]["code"] == "cae_agotado" and "Idempotent-Replayed" not in again.headers


def test_consult_shows_state_timeline_receipt_and_dgi_status(api_client, user, auth_headers):
    issued = api_client.post(DIRECT, json={"lineas": [SERVICE_LINE]}, headers=user).json
    state = api_client.get(CONSULT + issued["requestId"], headers=auth_headers("soporte@demo.uy")).json
    assert state["estado"] == "issued" and state["estadoDGI"] == "pendiente_reporte"  # small e-Ticket: daily report
    assert state["cfeEmitidos"] == [state["comprobante"]["idCfeEmitido"]]
    assert all(e["en"] and e["por"] for e in state["lineaDeTiempo"])


def test_another_companys_request_is_404(api_client, user, auth_headers):
    issued = api_client.post(DIRECT, json={"lineas": [SERVICE_LINE]}, headers=user).json
    answer = api_client.get(CONSULT + issued["requestId"], headers=auth_headers("admin@demo.uy", company_id=2))
    assert answer.status_code == 404


def test_jwt_only_and_writers_only(api_client, auth_headers):
    assert api_client.post(PREVIEW, json={"lineas": [SERVICE_LINE]}, headers={"X-API-Key": "cfe_x"}).status_code == 401
    assert (
        api_client.post(DIRECT, json={"lineas": [SERVICE_LINE]}, headers=auth_headers("soporte@demo.uy")).status_code
        == 403
    )


def test_the_receiver_comes_from_dgis_soap_service_signed_with_the_companys_certificate(api_client, user, service_app):
    from tests.support.dgi_standin import RunningStandIn

    standin = RunningStandIn()
    try:
        service_app.config.update(DGI_BACKEND="soap", DGI_SOAP_URL=standin.url, DGI_TIMEOUT_SECONDS=5)
        preview = _preview(api_client, user, {"receptor": {"documento": "219000090011"}, "lineas": [SERVICE_LINE]})
    finally:
        standin.stop()
    assert preview["borrador"]["tipoCFE"] == 111
    assert any(i["campo"] == "receptor.rznSocRecep" and "DGI" in i["motivo"] for i in preview["inferencias"])


def test_a_sale_in_dollars_takes_the_days_rate_unless_one_is_given(api_client, user, service_app):
    from portal.domain.uruguay_time import today_montevideo
    from portal.service.cotizaciones.rates import rate_on
    from portal.service.platform import db

    body = {"receptor": {"documento": "21-999983-001-9"}, "lineas": [SERVICE_LINE], "moneda": "USD"}
    preview = _preview(api_client, user, body)
    with service_app.app_context():
        rate = rate_on(db.session(), "USD", today_montevideo())
    assert preview["borrador"]["tpoCambio"] == str(rate.sell.quantize(Decimal("0.001")))
    reasons = {i["campo"]: i["motivo"] for i in preview["inferencias"]}
    # The demo's rates are the stand-in's: said so, never as the BCU's own.
    assert reasons["tpoCambio"].startswith("Cotización del simulador del BCU (venta, no oficial) del ")
    given = _preview(api_client, user, {**body, "tipoCambio": "41.5"})
    assert given["borrador"]["tpoCambio"] == "41.5"


def test_refusals_of_a_confirmation_speak_the_callers_language(api_client, user, service_app):
    """An English caller confirming an unknown request, one with warnings not accepted, a changed draft, an
    expired preview or one already failed read English, not the Spanish source sentence."""
    english = {**user, "Accept-Language": "en"}
    unknown = api_client.post(CONFIRM, headers=english, json={"requestId": "ei_0123456789abcdef"})
    assert unknown.status_code == 404 and unknown.json["error"]["message"].startswith("There is no")
    warned = _preview(api_client, user, {"receptor": {"documento": "215550030019"}, "lineas": [SERVICE_LINE]})
    refused = _confirm(api_client, english, warned, advertenciasAceptadas=[])
    assert refused.status_code == 422 and refused.json["error"]["message"].startswith("Accept the warnings")
    assert "receptor_no_emisor_electronico" in refused.json["error"]["message"]
    changed = _confirm(api_client, english, warned, hashBorrador="x" * 64)
    assert changed.status_code == 409 and "changed" in changed.json["error"]["message"]
    preview = _preview(api_client, user, {"lineas": [SERVICE_LINE]})
    with service_app.app_context():
        db.session().execute(
            update(CaeRangeRecord).where(CaeRangeRecord.tipo_cfe == 101).values(next_nro=CaeRangeRecord.hnro + 1)
        )
        db.session().commit()
    assert _confirm(api_client, user, preview).status_code == 409
    again = _confirm(api_client, english, preview)
    assert again.status_code == 409 and again.json["error"]["code"] == "estado_invalido"
    assert again.json["error"]["message"] == "The request failed and cannot be confirmed."
    stale = _preview(api_client, user, {"lineas": [SERVICE_LINE]})
    with service_app.app_context():
        db.session().execute(update(SmartRequest).values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        db.session().commit()
    expired = _confirm(api_client, english, stale)
    assert expired.status_code == 409 and expired.json["error"]["message"].startswith("The preview expired")


def test_a_confirmation_that_breaks_unexpectedly_leaves_the_request_failed_not_stuck(api_client, user, monkeypatch):
    """An unexpected error while issuing (a bug, the database refusing the write) left the request `confirmed`
    for ever: never issued, refused on every further confirmation (409) and polled as still moving. It is now
    `failed`, saying so, and nothing was issued."""
    preview = _preview(api_client, user, {"lineas": [SERVICE_LINE]})

    def broken(*args, **kwargs):
        raise RuntimeError("database is locked")

    monkeypatch.setattr(issuing, "issue", broken)
    assert _confirm(api_client, user, preview).status_code == 500
    state = api_client.get(CONSULT + preview["requestId"], headers=user).json
    assert state["estado"] == "failed" and state["final"] is True and state["cfeEmitidos"] == []
    assert state["error"]["codigo"] == "error_interno"


@pytest.mark.parametrize("accepted", ["total_inusual\x00", "x" * 5000, "<script>"])
def test_accepted_warnings_are_codes_and_anything_else_is_refused_whole(api_client, user, accepted):
    """What a confirmation says it accepted goes into the request's timeline, which support reads: 5,000
    characters or markup were confirmed and stored as they came (a NUL was already refused: kept refused)."""
    preview = _preview(api_client, user, {"lineas": [SERVICE_LINE]})
    answer = _confirm(api_client, user, preview, advertenciasAceptadas=[accepted])
    assert answer.status_code == 422 and answer.json["error"]["fields"][0]["field"].startswith("advertenciasAceptadas")
    assert api_client.get(CONSULT + preview["requestId"], headers=user).json["estado"] == "preview"


def test_a_requests_timeline_and_error_are_said_in_the_readers_language(api_client, user, service_app, monkeypatch):
    """The timeline's details and the request's error were kept as Spanish sentences alone, so an English reader
    was told "1 advertencia", "Advertencias aceptadas: ...", "Emisión directa", "La previsualización venció sin
    confirmarse." and "error_interno: No se pudo emitir..."."""
    english = {**user, "Accept-Language": "en"}

    def details(request_id: str, headers: dict) -> list[str | None]:
        return [e["detalle"] for e in api_client.get(CONSULT + request_id, headers=headers).json["lineaDeTiempo"]]

    warned = _preview(api_client, user, {"receptor": {"documento": "215550030019"}, "lineas": [SERVICE_LINE]})
    assert _confirm(api_client, user, warned).json["estado"] == "issued"
    said = details(warned["requestId"], english)
    assert said[:2] == ["1 warning", "Warnings accepted: receptor_no_emisor_electronico"], said
    assert said[2].startswith("CFE ")
    assert details(warned["requestId"], user)[:2] == [
        "1 advertencia",
        "Advertencias aceptadas: receptor_no_emisor_electronico",
    ]

    direct = api_client.post(DIRECT, json={"lineas": [SERVICE_LINE]}, headers=user).json
    assert details(direct["requestId"], english)[0] == "Direct issue"

    stale = _preview(api_client, user, {"lineas": [SERVICE_LINE]})
    with service_app.app_context():
        db.session().execute(update(SmartRequest).values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        db.session().commit()
    assert details(stale["requestId"], english) == [
        "0 warnings",
        "The preview expired without being confirmed.",
    ]

    broken = _preview(api_client, user, {"lineas": [SERVICE_LINE]})

    def fails(*args, **kwargs):
        raise RuntimeError("database is locked")

    monkeypatch.setattr(issuing, "issue", fails)
    assert _confirm(api_client, user, broken).status_code == 500
    state = api_client.get(CONSULT + broken["requestId"], headers=english).json
    unexpected = "It could not be issued because of an unexpected error"
    assert state["error"]["mensaje"].startswith(unexpected), state["error"]
    assert state["lineaDeTiempo"][-1]["detalle"].startswith(f"error_interno: {unexpected}")
    assert state["lineaDeTiempo"][1]["detalle"] == "Warnings accepted: none"
    spanish = api_client.get(CONSULT + broken["requestId"], headers=user).json
    assert spanish["lineaDeTiempo"][-1]["detalle"].startswith("error_interno: No se pudo emitir")
