"""DGI's and a receiver's motive codes said in the reader's language by their code, DGI's glosa kept as it came."""

from __future__ import annotations

from flask import Flask

from portal.service.envios.cfc import observations
from portal.service.envios.states import ALL_MOTIVES, in_words, motive
from portal.service.intercambio.states import said_motives
from portal.service.platform.i18n import Text, say
from portal.service.recibidos.motives import said_motive
from tests.support.i18n import asked_in


def _in(language: str):
    return asked_in(Flask(__name__), language)


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


def test_dgis_report_and_contingency_codes_are_said_in_english_and_the_glosa_stays_dgis():
    """DGI's daily report codes (R01-R06) and its observations of contingency receipts (C03-C15) had no English:
    `texto` was the Spanish glosa."""
    stored = [motive("R05"), motive("R06"), motive("C03"), motive("C09")]
    assert all(type(m["glosa"]) is str for m in stored)  # what is stored and signed: DGI's Spanish
    with _in("en"):
        said = in_words(stored)
    assert [m["texto"] for m in said] == [
        "The sequence number given in the report is not correct",
        "The date received cannot be earlier than the date the report summarises",
        "The CAE is not authorised according to DGI's records",
        "The CFC type received is not among DGI's certified CFE types",
    ]
    assert [m["glosa"] for m in said] == [
        "La secuencia indicada en el reporte no es correcta",
        "Fecha recepción no puede ser menor a fecha resumen",
        "Constancia no autorizada según registros",
        "Tipo de CFC recibido no figura en la base de CFE certificados",
    ]


def test_every_code_of_dgis_is_a_catalogue_message_with_english():
    with _in("en"):
        untold = [code for code, text in ALL_MOTIVES.items() if not isinstance(text, Text) or say(text) == text]
    assert untold == []


def test_a_cfcs_observation_keeps_dgis_spanish_and_is_said_in_english():
    (observed,) = observations([{"codigo": "E05", "glosa": "No cumple validaciones de Formato comprobantes"}])
    assert type(observed["glosa"]) is str and observed["glosa"] == "No cumple validaciones de Formato comprobantes"
    with _in("en"):
        assert in_words([observed])[0]["texto"] == "The CFE fails the validations of the CFE format"
