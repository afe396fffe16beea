"""The size a refused envelope is said to have (S07, checked before parsing)."""

from __future__ import annotations

from portal.service.recibidos.checks import MAX_BYTES, read_envelope


def test_an_envelope_just_past_2_mb_is_said_to_be_past_the_maximum():
    problem = read_envelope(b"<a>" + b" " * MAX_BYTES + b"</a>", "219999830019").problem
    assert problem is not None and problem["codigo"] == "S07"
    assert problem["detalle"] == "El sobre tiene 2049 KB; el máximo es 2048 KB."  # not "2048 KB ... is 2048 KB"
