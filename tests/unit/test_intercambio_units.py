"""Pure parts of the exchange: commercial motive codes in words, the debounce of wake-ups, and the receivers
the simulator's directory lists."""

from __future__ import annotations

from portal.service.dgi.sandbox_data import DGI_RUT, INACTIVE_RUT, NOT_EMISOR_RUT
from portal.service.intercambio.simulated import simulated_issuers
from portal.service.intercambio.states import is_commercial, motive
from portal.service.platform.jobs import Debouncer


def test_commercial_codes_are_e20_to_e60_and_have_words():
    assert [code for code in ("E15", "E19", "E20", "E44", "E60", "E61", "S20", "E2") if is_commercial(code)] == [
        "E20",
        "E44",
        "E60",
    ]
    # A receiver that wrote no glosa: DGI's, the one it would have signed (portal.domain.commercial_motives).
    assert motive("E24")["glosa"] == "Diferencia precios y/o descuentos"
    assert motive("E44")["glosa"] == "Otro motivo acordado entre las partes"
    assert motive("E24", "Precio mal")["glosa"] == "Precio mal"  # the receiver's own words win
    assert motive("E04")["glosa"] == "Firma electrónica no es válida"  # DGI's motives keep DGI's text
    assert motive("S20")["glosa"].startswith("Sobre ya recibido")


def test_one_scheduled_run_per_key_while_it_waits():
    wakes = Debouncer()
    assert wakes.claim(1, 60) is True
    assert wakes.claim(1, 60) is False  # already scheduled
    assert wakes.claim(2, 60) is True  # another company
    assert wakes.claim(3, 0) is True and wakes.claim(3, 0) is True  # its run started: a new wake schedules again
    wakes.clear()
    assert wakes.claim(1, 60) is True


def test_the_simulators_directory_lists_electronic_issuers_only():
    listed = {issuer.rut: issuer for issuer in simulated_issuers({})}
    assert {"219999830019", "211003420017"} <= set(listed)
    assert not {NOT_EMISOR_RUT, INACTIVE_RUT, DGI_RUT} & set(listed)
    assert all(issuer.ws_url is None for issuer in listed.values())
    with_ws = simulated_issuers({"INTERCAMBIO_LOCAL_WS_URL": "http://127.0.0.1:9/ws"}, rut="211003420017")
    assert [issuer.ws_url for issuer in with_ws] == ["http://127.0.0.1:9/ws"]
