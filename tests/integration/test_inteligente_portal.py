"""The smart-issuance portal against a live service: the guided flow (input -> preview -> confirm ->
result), its refusals, and the request status page support staff use."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from bs4 import BeautifulSoup
from sqlalchemy import delete, func, select, update

from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe
from portal.service.inteligente.models import SmartRequest
from portal.service.platform import db
from tests.support.html import csrf, text
from tests.support.html import soup as _soup

HTMX = {"HX-Request": "true"}
NO_WARNINGS_RUT = "219999830019"  # the demo company itself: active, electronic issuer, CVA valid
NOT_ELECTRONIC_RUT = "215550030019"  # DGI sandbox: warns receptor_no_emisor_electronico


def _csrf(client, path="/inteligente/solicitudes") -> str:
    return csrf(client, path)


def _step1(client, *lines, **fields) -> dict:
    """A step-1 post: `lines` are (description, quantity, price[, rate[, category]])."""
    data = {
        "csrf_token": _csrf(client),
        "documento": "",
        "nombre": "",
        "precios_incluyen_iva": "y",
        "moneda": "UYU",
        "tipo_cambio": "",
        "forma_pago": "1",
        "ref_id": "",
        "ref_tipo": "credito",
        "ref_razon": "",
        "adenda": "",
    }
    for index, line in enumerate(lines or [("Consultoría", "10", "1500")]):
        description, quantity, price, rate, category = (*line, "", "")[:5]
        data.update(
            {
                f"lineas-{index}-descripcion": description,
                f"lineas-{index}-cantidad": quantity,
                f"lineas-{index}-precio": price,
                f"lineas-{index}-tasa": rate,
                f"lineas-{index}-categoria": category,
            }
        )
    data.update(fields)
    return {k: v for k, v in data.items() if v is not None}


def _preview(client, data) -> str:
    answer = client.post("/inteligente/nueva", data=data)
    assert answer.status_code == 303, answer.get_data(as_text=True)[-2000:]
    match = re.fullmatch(r"/inteligente/nueva/(ei_[0-9a-f]+)", answer.headers["Location"])
    assert match, answer.headers["Location"]
    return match.group(1)


def _confirm_form(client, request_id, accepted=()) -> dict:
    """What step 2's confirm form posts (read from the page, as a browser would)."""
    page = _soup(client.get(f"/inteligente/nueva/{request_id}"))
    return {
        "csrf_token": page.find("input", {"name": "csrf_token"})["value"],
        "hash": page.find("input", {"name": "hash"})["value"],
        "aceptadas": list(accepted),
    }


def _confirm(client, request_id, accepted=(), headers=None, form=None):
    data = form or _confirm_form(client, request_id, accepted)
    return client.post(f"/inteligente/nueva/{request_id}/confirmar", data=data, headers=headers or {})


def _receipts(live_service) -> int:
    with live_service.app.app_context():
        return db.session().scalar(select(func.count()).select_from(IssuedCfe))


def _service_update(live_service, statement) -> None:
    with live_service.app.app_context():
        db.session().execute(statement)
        db.session().commit()


@pytest.fixture
def usuario(signed_in):
    return signed_in("usuario@demo.uy")


def test_usuario_walks_input_preview_confirm_and_gets_one_receipt(usuario, live_service, portal_app):
    assert usuario.get("/inteligente/").headers["Location"] == "/inteligente/nueva"
    before = _receipts(live_service)
    request_id = _preview(usuario, _step1(usuario, documento=NO_WARNINGS_RUT, precios_incluyen_iva=None))

    review = usuario.get(f"/inteligente/nueva/{request_id}")
    page = _soup(review)
    assert review.status_code == 200
    assert page.find(attrs={"data-testid": "cfe-type"}).get_text(strip=True) == "e-Factura"
    receiver = page.find(attrs={"data-testid": "receiver"}).get_text(" ", strip=True)
    assert "RUT 21-999983-001-9" in receiver and "de DGI" in receiver
    totals = {row["data-total"]: row.td.get_text(strip=True) for row in page.select("[data-testid=totals] tr")}
    assert totals["net_basic_rate"] == "$\u00a015.000,00" and totals["to_pay"] == "$\u00a018.300,00"
    assert "tasa básica" in page.find(attrs={"data-testid": "inferences"}).get_text()
    assert page.find("iframe")["src"] == f"/inteligente/nueva/{request_id}/previsualizacion.pdf"
    pdf = usuario.get(f"/inteligente/nueva/{request_id}/previsualizacion.pdf")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf" and pdf.data.startswith(b"%PDF")
    assert "frame-ancestors 'self'" in pdf.headers["Content-Security-Policy"]

    done = _confirm(usuario, request_id)
    assert done.status_code == 303 and done.headers["Location"] == f"/inteligente/nueva/{request_id}/resultado"
    assert _receipts(live_service) == before + 1
    result = _soup(usuario.get(done.headers["Location"]))
    assert re.fullmatch(r"e-Factura A-\d{7}", text(result.find(attrs={"data-testid": "result-receipt"})))
    assert result.find(attrs={"data-testid": "result-total"}).get_text(strip=True) == "$\u00a018.300,00"
    assert result.find(attrs={"data-testid": "security-code"}).get_text(strip=True)
    links = {a.get_text(strip=True): a["href"] for a in result.select("a[role=button]")}
    assert re.fullmatch(r"/comprobantes/\S+", links["Ver el comprobante"])
    assert links["Ver la solicitud"] == f"/inteligente/solicitudes?request_id={request_id}"
    with portal_app.app_context():
        from portal.web.activity import recent

        [entry] = recent(1, action="emision_inteligente")
    assert entry.user_email == "usuario@demo.uy" and request_id in entry.summary
    assert links["Ver el comprobante"].endswith(entry.cfe_id)


def test_confirming_twice_issues_one_receipt_and_records_it_once(usuario, live_service, portal_app):
    request_id = _preview(usuario, _step1(usuario))
    before = _receipts(live_service)
    form = _confirm_form(usuario, request_id)  # the same page, clicked twice
    first = _confirm(usuario, request_id, headers=HTMX, form=form)
    assert first.status_code == 200 and first.headers["HX-Redirect"] == f"/inteligente/nueva/{request_id}/resultado"
    again = _confirm(usuario, request_id, form=form)
    assert again.status_code == 303 and again.headers["Location"] == first.headers["HX-Redirect"]
    assert _receipts(live_service) == before + 1
    with portal_app.app_context():
        from portal.web.activity import recent

        assert len(recent(1, action="emision_inteligente")) == 1


def test_the_confirm_button_disables_itself_while_issuing(usuario):
    request_id = _preview(usuario, _step1(usuario))
    button = _soup(usuario.get(f"/inteligente/nueva/{request_id}")).find("button", string=re.compile("Confirmar"))
    assert button["hx-disabled-elt"] == "this" and button["hx-post"].endswith("/confirmar")


def test_service_field_errors_land_next_to_their_fields_and_the_input_is_kept(usuario, live_service):
    before = _receipts(live_service)
    answer = usuario.post(
        "/inteligente/nueva",
        data=_step1(usuario, ("Café", "2", "120"), ("Libro", "1", "1.1234567", "", "libros"), documento="1.335.321-4"),
    )
    assert answer.status_code == 422
    page = _soup(answer)
    assert "decimales" in page.find(id="lineas-1-precio-error").get_text()
    assert page.find(id="lineas-1-precio")["aria-invalid"] == "true"
    assert page.find(id="documento")["value"] == "1.335.321-4"
    assert page.find(id="lineas-0-descripcion")["value"] == "Café"
    assert page.find(id="lineas-1-categoria").find("option", selected=True)["value"] == "libros"
    assert _receipts(live_service) == before


@pytest.mark.parametrize(
    ("fields", "error_id", "text"),
    [
        ({"documento": "12345"}, "documento-error", "No es un RUT ni una cédula"),
        ({"moneda": "USD", "tipo_cambio": "39.1234"}, "tipo_cambio-error", "decimales"),
    ],
)
def test_errors_about_the_inferred_receipt_land_on_the_input_that_caused_them(usuario, fields, error_id, text):
    answer = usuario.post("/inteligente/nueva", data=_step1(usuario, **fields))
    assert answer.status_code == 422 and text in _soup(answer).find(id=error_id).get_text()


def test_the_portal_checks_what_it_can_before_asking_the_service(usuario):
    answer = usuario.post("/inteligente/nueva", data=_step1(usuario, ("", "0", "abc"), moneda="USD"))
    assert answer.status_code == 422
    page = _soup(answer)
    assert "Indicá qué se vende" in page.find(id="lineas-0-descripcion-error").get_text()
    assert "mayor que cero" in page.find(id="lineas-0-cantidad-error").get_text()
    assert "número" in page.find(id="lineas-0-precio-error").get_text()
    assert "tipo de cambio" in page.find(id="tipo_cambio-error").get_text()


def test_the_error_summary_links_to_each_marked_field_lines_named_by_their_number(usuario):
    """The summary that takes the focus said only "Revisá los datos marcados": a keyboard or screen reader user
    walked the whole form to find them. Each marked field is now a link in it, in the form's order."""
    answer = usuario.post("/inteligente/nueva", data=_step1(usuario, ("Café", "2", "120"), ("", "0", "abc")))
    assert answer.status_code == 422
    summary = _soup(answer).find(attrs={"data-error-summary": True})
    links = [(a["href"], a.get_text(" ", strip=True)) for a in summary.select("ul.error-links a[data-focus-field]")]
    assert [href for href, _ in links] == ["#lineas-1-descripcion", "#lineas-1-cantidad", "#lineas-1-precio"]
    assert links[0][1].startswith("Descripción, línea 2: Indicá qué se vende")
    english = usuario.post(
        "/inteligente/nueva", data=_step1(usuario, ("", "2", "120")), headers={"Accept-Language": "en"}
    )
    summary = _soup(english).find(attrs={"data-error-summary": True})
    assert ", line 1:" in summary.select_one("ul.error-links a").get_text()


def test_a_reference_to_a_missing_receipt_is_a_field_error(usuario):
    answer = usuario.post("/inteligente/nueva", data=_step1(usuario, ref_id="nope", ref_razon="Devolución"))
    assert answer.status_code == 422
    assert "comprobante referenciado" in _soup(answer).find(id="ref_id-error").get_text()


def test_going_back_from_the_preview_keeps_what_was_typed(usuario):
    data = _step1(
        usuario,
        ("Café", "2", "120"),
        ("Medialuna", "3", "44", "", "alimentos_basicos"),
        documento="1.335.321-4",
        precios_incluyen_iva=None,
        forma_pago="2",
        adenda="Mesa 4",
    )
    request_id = _preview(usuario, data)
    back = _soup(usuario.get(f"/inteligente/nueva?desde={request_id}"))
    assert back.find(id="documento")["value"] == "1.335.321-4"
    assert back.find(id="lineas-1-descripcion")["value"] == "Medialuna"
    assert back.find(id="lineas-1-categoria").find("option", selected=True)["value"] == "alimentos_basicos"
    assert not back.find(id="precios_incluyen_iva").has_attr("checked")
    assert back.find(id="forma_pago").find("option", selected=True)["value"] == "2"
    assert back.find(id="adenda").get_text().strip() == "Mesa 4"
    assert _soup(usuario.get("/inteligente/nueva")).find(id="lineas-1-descripcion")["value"] == "Medialuna"


def test_lines_are_added_and_removed_in_place_keeping_what_was_typed(usuario):
    data = _step1(usuario, ("Café", "2", "120"), ("Torta", "1", "300"))
    added = usuario.post("/inteligente/nueva/lineas", data={**data, "accion": "agregar"}, headers=HTMX)
    html = added.get_data(as_text=True)
    assert added.status_code == 200 and html.lstrip().startswith('<fieldset id="lineas"') and "<html" not in html
    assert "HX-Request" in added.headers["Vary"]
    page = BeautifulSoup(html, "html.parser")
    assert len(page.select("tbody tr")) == 3 and page.find(id="lineas-2-descripcion").has_attr("autofocus")
    assert page.find(id="lineas-1-descripcion")["value"] == "Torta"

    removed = BeautifulSoup(
        usuario.post("/inteligente/nueva/lineas", data={**data, "quitar": "0"}, headers=HTMX).get_data(as_text=True),
        "html.parser",
    )
    assert [r.find("input")["value"] for r in removed.select("tbody tr")] == ["Torta"]
    assert removed.find(id="lineas-0-descripcion")["value"] == "Torta"  # renumbered
    assert removed.find("button", attrs={"name": "quitar"}).has_attr("disabled")  # the last line stays

    plain = usuario.post("/inteligente/nueva/lineas", data={**data, "accion": "agregar"})
    assert plain.status_code == 303 and plain.headers["Location"] == "/inteligente/nueva"
    assert len(_soup(usuario.get("/inteligente/nueva")).select("#lineas tbody tr")) == 3


@pytest.mark.parametrize(
    ("document", "kind"), [("21-999983-001-9", "rut"), ("1.335.321-4", "ci"), ("12345", "unknown"), ("", "empty")]
)
def test_the_document_hint_says_what_the_receiver_will_get(usuario, document, kind):
    answer = usuario.get("/inteligente/nueva/documento", query_string={"documento": document}, headers=HTMX)
    assert answer.status_code == 200 and "<html" not in answer.get_data(as_text=True)
    assert _soup(answer).find(attrs={"data-kind": True})["data-kind"] == kind


def test_warnings_must_be_acknowledged_before_issuing(usuario, live_service):
    request_id = _preview(usuario, _step1(usuario, documento=NOT_ELECTRONIC_RUT))
    page = _soup(usuario.get(f"/inteligente/nueva/{request_id}"))
    [box] = page.select("input[name=aceptadas]")
    assert box["value"] == "receptor_no_emisor_electronico" and box.has_attr("required")
    before = _receipts(live_service)
    form = _confirm_form(usuario, request_id)
    refused = _confirm(usuario, request_id, headers=HTMX, form=form)
    assert refused.status_code == 422 and _receipts(live_service) == before
    fragment = refused.get_data(as_text=True)
    assert fragment.lstrip().startswith('<section id="confirmacion"') and "Leí y acepto" in fragment
    assert "Marcá «Leí y acepto»" in _soup(refused).find(attrs={"data-testid": "confirm-error"}).get_text()
    accepted = _confirm(usuario, request_id, form={**form, "aceptadas": ["receptor_no_emisor_electronico"]})
    assert accepted.status_code == 303
    assert _receipts(live_service) == before + 1


def test_an_expired_preview_says_so_and_previews_again_from_the_same_input(usuario, live_service):
    request_id = _preview(usuario, _step1(usuario, ("Libro de cocina", "1", "900", "", "libros")))
    form = _confirm_form(usuario, request_id)
    _service_update(
        live_service,
        update(SmartRequest)
        .where(SmartRequest.id == request_id)
        .values(expires_at=datetime.now(UTC) - timedelta(seconds=1)),
    )
    refused = _confirm(usuario, request_id, form=form)
    assert refused.status_code == 409
    page = _soup(refused)
    assert "venció" in page.find(attrs={"data-testid": "confirm-error"}).get_text()
    repeat = page.find("form", action=f"/inteligente/nueva/{request_id}/repetir")
    assert repeat.find("button").get_text(strip=True) == "Previsualizar de nuevo"

    again = usuario.post(f"/inteligente/nueva/{request_id}/repetir", data={"csrf_token": _csrf(usuario)})
    assert again.status_code == 303
    new_id = again.headers["Location"].rsplit("/", 1)[1]
    assert new_id != request_id
    lines = _soup(usuario.get(again.headers["Location"])).find(attrs={"data-testid": "draft-lines"}).get_text()
    assert "Libro de cocina" in lines and "Exento" in lines


def test_soporte_is_refused_the_flow_and_lands_on_the_status_page(signed_in):
    soporte = signed_in("soporte@demo.uy")
    assert soporte.get("/inteligente/").headers["Location"] == "/inteligente/solicitudes"
    assert soporte.get("/inteligente/nueva").status_code == 403
    assert soporte.post("/inteligente/nueva", data={"csrf_token": _csrf(soporte)}).status_code == 403
    tabs = [a.get_text(strip=True) for a in _soup(soporte.get("/inteligente/solicitudes")).select(".subnav a")]
    assert tabs == ["Solicitudes"]


def test_a_preview_is_reachable_only_from_the_session_that_made_it(usuario, signed_in):
    request_id = _preview(usuario, _step1(usuario))
    other = signed_in("admin@demo.uy")
    assert other.get(f"/inteligente/nueva/{request_id}").status_code == 404
    assert other.get(f"/inteligente/nueva/{request_id}/previsualizacion.pdf").status_code == 404
    assert (
        other.post(f"/inteligente/nueva/{request_id}/confirmar", data={"csrf_token": _csrf(other)}).status_code == 404
    )


def test_status_page_shows_timeline_receipt_and_support_details_and_does_not_poll_when_final(usuario, signed_in):
    request_id = _preview(usuario, _step1(usuario, documento=NO_WARNINGS_RUT))
    _confirm(usuario, request_id)
    soporte = signed_in("soporte@demo.uy")
    answer = soporte.get("/inteligente/solicitudes", query_string={"request_id": request_id})
    page = _soup(answer)
    section = page.find(id="solicitud")
    assert answer.status_code == 200 and section["data-final"] == "true"
    assert not section.has_attr("hx-trigger") and not section.has_attr("hx-get")
    assert page.find(attrs={"data-testid": "request-state"})["data-state"] == "issued"
    states = [row["data-state"] for row in page.select("[data-testid=timeline] tbody tr")]
    assert states == ["preview", "confirmed", "issued"]
    receipt_link = page.find(attrs={"data-testid": "receipt-ids"}).find("a")
    receipt_id = receipt_link.get_text(strip=True)
    assert receipt_link["href"] == f"/comprobantes/{receipt_id}"
    assert re.fullmatch(r"e-Factura A-\d{7}", text(page.find(attrs={"data-testid": "receipt-number"})))
    assert page.find(attrs={"data-testid": "dgi-state"})["data-state"] == "pendiente"
    details = page.find(id="support-details").get_text()
    assert request_id in details and receipt_id in details and "Estado: Emitida (issued) · final" in details
    # Montevideo time only, as the rest of the page (no UTC beside it)
    assert "usuario@demo.uy" in details and re.search(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-03:00  Emitida \(issued\)", details
    )
    assert "Z " not in details
    assert page.find("button", attrs={"data-copy": "support-details"})


def test_status_block_polls_itself_while_the_request_is_moving(usuario):
    request_id = _preview(usuario, _step1(usuario))
    url = f"/inteligente/solicitudes?request_id={request_id}"
    section = _soup(usuario.get(url)).find(id="solicitud")
    assert section["data-final"] == "false" and section["hx-trigger"] == "every 2s" and section["hx-get"] == url
    polled = usuario.get(url, headers=HTMX)
    assert polled.get_data(as_text=True).lstrip().startswith('<section id="solicitud"')
    assert "HX-Request" in polled.headers["Vary"]
    _confirm(usuario, request_id)
    final = _soup(usuario.get(url, headers=HTMX)).find(id="solicitud")
    assert final["data-final"] == "true" and not final.has_attr("hx-trigger")


def test_a_failed_request_shows_its_error_code(usuario, live_service):
    request_id = _preview(usuario, _step1(usuario))
    form = _confirm_form(usuario, request_id)
    _service_update(
        live_service,
        update(CaeRangeRecord).where(CaeRangeRecord.tipo_cfe == 101).values(next_nro=CaeRangeRecord.hnro + 1),
    )
    failed = _confirm(usuario, request_id, form=form)
    assert failed.status_code == 409 and "cae_agotado" in failed.get_data(as_text=True)
    page = _soup(usuario.get(f"/inteligente/solicitudes?request_id={request_id}"))
    assert "cae_agotado" in page.find(attrs={"data-testid": "request-error"}).get_text()
    assert "Error: cae_agotado" in page.find(id="support-details").get_text()


def test_a_confirmation_refused_for_the_companys_setup_leads_to_the_page_that_fixes_it(signed_in, live_service):
    """No CAE for the type: as on the issuing form, the refusal links an admin to Empresa › CAE and tells anyone
    else that an admin fixes it, on the refusal and on a later visit to the failed request."""
    admin, usuario = signed_in("admin@demo.uy"), signed_in("usuario@demo.uy")
    previews = {client: _preview(client, _step1(client)) for client in (admin, usuario)}
    forms = {client: _confirm_form(client, request_id) for client, request_id in previews.items()}
    _service_update(
        live_service,
        delete(CaeRangeRecord).where(CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101),
    )
    refused = _confirm(admin, previews[admin], headers=HTMX, form=forms[admin])
    assert refused.status_code == 409
    alert = _soup(refused).select_one("[data-testid=confirm-error]")
    assert alert.select_one("[data-testid=setup-fix]")["href"] == "/empresa/cae"
    assert text(alert.select_one("[data-testid=setup-fix]")) == "Cargar un CAE"
    later = _soup(admin.get(f"/inteligente/nueva/{previews[admin]}")).find(id="confirmacion")
    assert later.select_one("[data-testid=setup-fix]")["href"] == "/empresa/cae"

    told = _soup(_confirm(usuario, previews[usuario], form=forms[usuario])).select_one("[data-testid=confirm-error]")
    assert told.select_one("a") is None  # Empresa is an admin's page
    assert "Un administrador de la empresa lo resuelve en Empresa" in text(told)


def test_a_preview_the_setup_cannot_issue_says_so_before_the_confirmation_with_the_way_forward(signed_in, live_service):
    """With the CAE used up, the preview looked issuable until "Confirmar y emitir" was refused. Now the
    confirmation step says what is missing (a link to Empresa › CAE for an admin, who fixes it for anyone else),
    the button is off, and once a CAE numbers again the same preview confirms."""
    admin, usuario = signed_in("admin@demo.uy"), signed_in("usuario@demo.uy")
    used_up = update(CaeRangeRecord).where(CaeRangeRecord.tipo_cfe == 101).values(next_nro=CaeRangeRecord.hnro + 1)
    _service_update(live_service, used_up)
    request_id = _preview(admin, _step1(admin))
    section = _soup(admin.get(f"/inteligente/nueva/{request_id}")).find(id="confirmacion")
    blocks = section.select_one("[data-testid=setup-blocks]")
    assert blocks.select_one("li[data-code=cae_agotado]") is not None
    assert "Se agotaron los números de CAE para el tipo e-Ticket" in text(blocks)
    assert blocks.select_one("[data-testid=setup-fix]")["href"] == "/empresa/cae"
    button = section.find("button", string=re.compile("Confirmar y emitir"))
    assert button.has_attr("disabled") and button["aria-describedby"] == "setup-blocks"

    theirs = _soup(usuario.get(f"/inteligente/nueva/{_preview(usuario, _step1(usuario))}")).find(id="confirmacion")
    assert theirs.select_one("[data-testid=setup-blocks] a") is None
    assert "Un administrador de la empresa lo resuelve en Empresa" in text(theirs)

    _service_update(live_service, update(CaeRangeRecord).where(CaeRangeRecord.tipo_cfe == 101).values(next_nro=1))
    again = _soup(admin.get(f"/inteligente/nueva/{request_id}")).find(id="confirmacion")
    assert again.select_one("[data-testid=setup-blocks]") is None
    assert not again.find("button", string=re.compile("Confirmar y emitir")).has_attr("disabled")
    assert _confirm(admin, request_id).status_code == 303


def test_status_of_an_unknown_or_malformed_request(signed_in):
    soporte = signed_in("soporte@demo.uy")
    missing = soporte.get("/inteligente/solicitudes?request_id=ei_0123456789abcdef")
    assert missing.status_code == 404
    page = _soup(missing)
    assert page.find(id="q-error").get_text(strip=True) == "No existe esa solicitud en tu empresa."
    assert page.find(id="q")["value"] == "ei_0123456789abcdef" and page.find(id="solicitud") is None
    malformed = soporte.get("/inteligente/solicitudes", query_string={"request_id": "../comprobante/x"})
    assert malformed.status_code == 422 and _soup(malformed).find(id="q-error")
    assert soporte.get("/inteligente/solicitudes").status_code == 200


def test_the_flow_speaks_english(usuario):
    usuario.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": _csrf(usuario)})
    page = _soup(usuario.get("/inteligente/nueva"))
    assert page.find("h1").get_text(strip=True) == "New smart issuance"
    assert page.find("button", attrs={"name": "accion"}).get_text(strip=True) == "+ Add line"
    assert page.find(id="lineas-0-tasa").find("option", value="").get_text() == "By category"


def test_a_preview_replaced_by_a_newer_one_cannot_be_confirmed_and_says_so(usuario, live_service):
    older = _preview(usuario, _step1(usuario))
    stale_form = _confirm_form(usuario, older)  # the first tab's page, still open
    newer = _preview(usuario, _step1(usuario, ("Consultoría", "12", "1500")))
    before = _receipts(live_service)
    refused = _confirm(usuario, older, form=stale_form)
    assert refused.status_code == 409
    page = _soup(refused)
    assert "ya no se puede confirmar" in page.select_one("[data-testid=confirm-error]").get_text()
    assert page.select_one("[data-testid=newer-preview]")["href"] == f"/inteligente/nueva/{newer}"
    assert _receipts(live_service) == before
    review = _soup(usuario.get(f"/inteligente/nueva/{older}"))
    assert review.find("button", string=re.compile("Confirmar")) is None
    newer_form = _confirm_form(usuario, newer)
    assert _confirm(usuario, newer, form=newer_form).status_code == 303 and _receipts(live_service) == before + 1
    again = _confirm(usuario, newer, form=newer_form)  # confirming the issued one again shows its receipt
    assert again.status_code == 303 and again.headers["Location"].endswith("/resultado")
