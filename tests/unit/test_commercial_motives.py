"""The commercial motives a receiver rejects a CFE with (E20-E60) are one catalogue,
portal/domain/commercial_motives.py: the glosa the receiver signs is DGI's text exactly, and the words people read,
in Spanish and English, are the same on both sides of the exchange (the receiver's rejection and the issuer's
receipt). Three tables said them before, with two spellings of E24 and E25 in Spanish."""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from lxml import etree

from portal.domain.commercial_motives import AGREED_CODES, CODES, MOTIVES
from portal.service.cfe.schema import validate_xml
from portal.service.cfe.signing import shared_signer
from portal.service.envios import acks
from portal.service.intercambio.states import said_motives
from portal.service.platform.certificates import generate_self_signed
from portal.service.recibidos.motives import motive, said_motive
from tests.support.exchange import NORTE, unsigned_ack_cfe
from tests.support.i18n import asked_in

ROOT = Path(__file__).resolve().parents[2]


def test_the_codes_are_e20_to_e60_and_the_glosa_is_dgis_text():
    assert CODES == tuple(f"E{n}" for n in range(20, 61))
    assert AGREED_CODES == frozenset(f"E{n}" for n in range(27, 61))
    assert MOTIVES["E24"].glosa == "Diferencia precios y/o descuentos"  # as RESP19 and DGITypes.xsd write it
    assert MOTIVES["E25"].glosa == "Factura con error cálculos"
    assert MOTIVES["E22"].glosa == "Proveedor inhabilitado por organismo de contralor"
    assert {MOTIVES[code].glosa for code in AGREED_CODES} == {"Otro motivo acordado entre las partes"}
    assert all(len(m.glosa) <= 100 for m in MOTIVES.values())  # Glosa50Type


def test_the_receiver_signs_the_catalogues_glosa_and_every_code_validates_against_the_xsd():
    key, cert = generate_self_signed(NORTE, "Comercial del Norte S.R.L.")
    cfes = [{"tipoCFE": 111, "serie": "A", "nro": nro} for nro, _code in enumerate(CODES, start=1)]
    document = unsigned_ack_cfe(cfes, [("BE", [motive(code, "Lista de octubre")]) for code in CODES])
    signed = shared_signer(key, cert, "sha256").sign(document).xml
    assert validate_xml(signed, "ACKCFE_Partes.xsd") == []
    signed_motives = etree.fromstring(signed).iter(f"{{{acks.NS}}}MotivosRechazoCF")
    read = [(m.findtext(f"{{{acks.NS}}}Motivo"), m.findtext(f"{{{acks.NS}}}Glosa")) for m in signed_motives]
    assert read == [(code, MOTIVES[code].glosa) for code in CODES]
    assert all(type(motive(code)["glosa"]) is str for code in CODES)  # DGI's Spanish, never a message to translate


def test_both_sides_of_the_exchange_say_a_motive_in_the_same_words_in_each_language():
    """The receiver's API said E24 in Spanish as DGI's glosa ("Diferencia precios y/o descuentos") and the issuer's
    as its own words ("Diferencia de precios y/o descuentos")."""
    for language in ("es", "en"):
        with asked_in(Flask(__name__), language):
            for code in CODES:
                expected = MOTIVES[code].words.said(language)
                [issuer] = said_motives([{"codigo": code, "glosa": MOTIVES[code].glosa}])
                assert (issuer["texto"], said_motive(code, MOTIVES[code].glosa)) == (expected, expected), code
    assert MOTIVES["E24"].words.said("es") == "Diferencia de precios y/o descuentos"
    assert MOTIVES["E24"].words.said("en") == "Price or discount difference"


def test_no_other_module_spells_a_motives_words():
    """One source: the service's two areas and the portal read the catalogue; none keeps the words again."""
    catalogue = ROOT / "portal/domain/commercial_motives.py"
    texts = {m.glosa for m in MOTIVES.values()} | {
        text for m in MOTIVES.values() for words in (m.words, m.option) for text in (words.es, words.en)
    }
    sources = [*ROOT.joinpath("portal").rglob("*.py"), *ROOT.joinpath("templates").rglob("*.html")]
    spelled = sorted(
        f"{path.relative_to(ROOT)}: {text}"
        for path in sources
        if path != catalogue and "migrations" not in path.parts
        for text in texts
        if f'"{text}"' in path.read_text(encoding="utf-8")
    )
    assert spelled == []
