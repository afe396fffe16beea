"""DGI's and a receiver's motive codes said in the reader's language by their code, DGI's glosa kept as it came."""

from __future__ import annotations

from flask import Flask

from portal.service.envios.states import in_words, motive
from portal.service.intercambio.states import said_motives
from portal.service.recibidos.motives import said_motive


def _in(language: str):
    return Flask(__name__).test_request_context(headers={"Accept-Language": language})


def test_dgis_codes_are_said_in_english_and_the_glosa_stays_dgis():
    stored = [motive("E07"), motive("S08")]
    assert [m["glosa"] for m in stored] == [
        "Fecha Firma de CFE no se corresponde con fecha CAE",
        "Sobre enviado ya existe en los registros de DGI",
    ]
    assert type(stored[0]["glosa"]) is str  # what is stored and signed: DGI's Spanish, a plain string
    with _in("en"):
        said = in_words(stored)
    assert [m["texto"] for m in said] == [
        "The CFE's signature date does not match the CAE's dates",
        "DGI already has an envelope with this number",
    ]
    assert [m["glosa"] for m in said] == [m["glosa"] for m in stored]
    with _in("es"):
        assert [m["texto"] for m in in_words(stored)] == [m["glosa"] for m in stored]


def test_a_receivers_motive_is_said_by_its_code_and_an_agreed_one_in_its_own_words():
    received = [
        {"codigo": "E24", "glosa": "Diferencia precios y descuentos"},  # the receiver's spelling of DGI's text
        {"codigo": "E40", "glosa": "Entrega fuera de horario"},  # agreed between the parties: its words are the motive
        {"codigo": "S20", "glosa": "Sobre duplicado"},
    ]
    with _in("en"):
        assert [m["texto"] for m in said_motives(received)] == [
            "Price or discount difference",
            "Entrega fuera de horario",
            "The receiver already has this envelope (duplicate)",
        ]
        assert said_motive("S01", "Formato del archivo no es el indicado") == "The file is not in the required format"
        assert said_motive("X99", "algo") == "algo"
