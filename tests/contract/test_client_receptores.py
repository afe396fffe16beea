"""The real client's receptores methods against a live service: typed results (never dicts), the company
they act for, and the error mapping."""

from __future__ import annotations

import copy
import socket

import pytest
import requests

from portal.client import CfeClient, ServiceUnavailable, ValidationError
from portal.client.receptores import DgiReceiver, PastReceiver, ReceiverWarning
from portal.service.dgi import sandbox_data as data
from tests.support import cfe_bodies as bodies


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url, retries=0).as_user(live_token_for("usuario@demo.uy"), company_id=1)


def test_receiver_from_dgi_is_typed_with_its_warnings(api):
    found = api.receiver_from_dgi(2, "21-555001-001-8")

    assert isinstance(found, DgiReceiver) and found.found
    assert (found.number, found.name, found.address) == (
        data.INACTIVE_RUT,
        "FRIGORIFICO LA BLANQUEADA S.A.",
        "AV. GENERAL RIVERA 3320",
    )
    assert all(isinstance(w, ReceiverWarning) for w in found.warnings)
    assert [w.code for w in found.warnings] == ["receptor_inactivo", "receptor_no_emisor_electronico", "cva_vencido"]


def test_past_receivers_are_typed_and_of_the_callers_company(api, live_service, live_token_for):
    body = copy.deepcopy(bodies.body(bodies.EFACTURA))
    body["receptor"]["rznSocRecep"] = "Cliente Contrato"
    headers = {"Authorization": f"Bearer {live_token_for('usuario@demo.uy')}"}
    issued = requests.post(f"{live_service.url}/api/v1/comprobante/emitir", json=body, headers=headers, timeout=30)
    assert issued.status_code == 201, issued.text
    as_norte = CfeClient(live_service.url, retries=0).as_user(live_token_for("admin@demo.uy"), company_id=2)

    mine = api.past_receivers("Cliente Con", limit=5)

    assert [type(r) for r in mine] == [PastReceiver] and mine[0].number == "214844360018"
    assert mine[0].doc_type == 2 and mine[0].last_used is not None
    assert as_norte.past_receivers("Cliente Con") == ()


def test_bad_input_and_dgi_down(api, live_service):
    with pytest.raises(ValidationError) as bad:
        api.receiver_from_dgi(2, "215550010019")
    assert [f.field for f in bad.value.fields] == ["nroDoc"]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    live_service.app.config.update(DGI_BACKEND="soap", DGI_SOAP_URL=f"http://127.0.0.1:{port}/x")
    with pytest.raises(ServiceUnavailable) as down:
        api.receiver_from_dgi(2, data.DEMO_RUT)
    assert down.value.status == 502 and down.value.code.startswith("dgi_")
