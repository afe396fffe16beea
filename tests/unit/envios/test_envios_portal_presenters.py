"""The portal's DGI badge: when it looks again, when it stops, and DGI's reasons."""

from __future__ import annotations

import pytest

from portal.client.envios import DgiMotive
from portal.web.envios.badges import dgi_badge

pytestmark = pytest.mark.usefixtures("in_spanish")


@pytest.mark.parametrize(
    ("state", "final", "poll"),
    [
        ("pendiente", False, 3),
        ("recibido", False, 3),
        ("pendiente_reporte", False, 60),
        ("aceptado", True, None),
        ("rechazado", True, None),
        ("en_reporte", False, 30),
        ("en_reporte", True, None),
        ("estado_nuevo", False, 30),
    ],
)
def test_a_badge_looks_again_until_the_service_says_final(state, final, poll):
    badge = dgi_badge("abc", state, final=final)
    assert badge.poll_seconds == poll and badge.final is final


def test_a_rejected_badge_carries_dgis_reasons_and_says_it_is_rejected():
    badge = dgi_badge(
        "abc", "rechazado", [DgiMotive("E07", "Fecha Firma de CFE no se corresponde con fecha CAE")], final=True
    )
    assert badge.rejected and badge.tone == "bad" and badge.label == "Rechazado por DGI"
    assert [(r.code, r.text) for r in badge.reasons] == [("E07", "Fecha Firma de CFE no se corresponde con fecha CAE")]


def test_a_list_that_only_knows_the_id_asks_at_once():
    badge = dgi_badge("abc", None)
    assert (badge.state, badge.poll_seconds, badge.final) == ("consultando", 0, False)
