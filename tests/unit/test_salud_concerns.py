"""Each threshold of the compliance watch, on both sides."""

from __future__ import annotations

from datetime import date

import pytest

from portal.service.salud import concerns
from portal.service.salud.concerns import OK, PROBLEM, WARNING


@pytest.mark.parametrize(
    ("days", "state", "level"),
    [
        (31, OK, 0),
        (30, WARNING, 30),
        (16, WARNING, 30),
        (15, WARNING, 15),
        (8, WARNING, 15),
        (7, PROBLEM, 7),
        (2, PROBLEM, 7),
        (1, PROBLEM, 1),
        (0, PROBLEM, 1),
        (-3, PROBLEM, 0),
    ],
)
def test_certificate_days_left(days, state, level):
    concern = concerns.certificate(days, date(2027, 1, 1))
    assert (concern.state, concern.level) == (state, level)
    assert concern.link == "/empresa/certificados"


def test_no_certificate_is_a_problem():
    assert concerns.certificate(None, None).state == PROBLEM


def test_certificate_sentences_say_when():
    assert "mañana" in concerns.certificate(1, date(2027, 1, 1)).message
    assert "venció" in concerns.certificate(-2, date(2027, 1, 1)).message


def _cae(**changes):
    facts = {
        "range_id": 7,
        "tipo_cfe": 101,
        "serie": "A",
        "size": 1000,
        "remaining": 900,
        "used_last_30_days": 30,
        "days_to_expiry": 400,
    }
    return concerns.cae_range(**{**facts, **changes})


def test_a_cae_range_with_room_and_time_is_ok():
    concern = _cae()
    assert concern.state == OK and concern.key == "cae:7" and concern.facts["diasDeUso"] == 900.0


@pytest.mark.parametrize(("remaining", "state"), [(201, OK), (200, WARNING), (1, WARNING)])
def test_cae_warns_at_twenty_percent_left(remaining, state):
    assert _cae(remaining=remaining, used_last_30_days=0).state == state


def test_a_few_numbers_left_of_a_large_range_are_less_than_one_percent_not_none():
    assert "queda el 20% de sus números (200)" in _cae(remaining=200, used_last_30_days=0).message
    message = _cae(remaining=5, size=100_000, used_last_30_days=0).message
    assert "quedan solo 5 de sus números, menos del 1%" in message and "0%" not in message


@pytest.mark.parametrize(
    ("remaining", "used", "state"),
    [
        (300, 300, OK),  # 30 days of use left: not fewer than 30
        (290, 300, WARNING),  # 29 days
        (70, 300, WARNING),  # 7 days: warning still
        (69, 300, PROBLEM),  # fewer than 7 days
    ],
)
def test_cae_warns_at_fewer_than_thirty_days_of_use(remaining, used, state):
    concern = _cae(size=2 * remaining, remaining=remaining, used_last_30_days=used)  # half left: share is fine
    assert concern.state == state, concern.message


def test_an_unused_range_is_judged_by_share_alone():
    assert _cae(remaining=900, used_last_30_days=0).state == OK


@pytest.mark.parametrize(("days", "state"), [(31, OK), (30, WARNING), (8, WARNING), (7, PROBLEM), (0, PROBLEM)])
def test_cae_expiry(days, state):
    concern = _cae(days_to_expiry=days)
    assert concern.state == state
    if state != OK:
        assert "anular" in concern.message


def test_an_expired_range_with_numbers_left_proposes_voiding_them():
    concern = _cae(days_to_expiry=-1, remaining=120)
    assert concern.state == PROBLEM and "120" in concern.message and concern.link == "/envios/"
    assert _cae(days_to_expiry=-1, remaining=0).state == OK


def test_an_exhausted_range_is_a_problem():
    concern = _cae(remaining=0)
    assert concern.state == PROBLEM and concern.link == "/empresa/cae"


def test_the_worse_finding_wins_and_both_are_said():
    concern = _cae(remaining=150, used_last_30_days=0, days_to_expiry=5)
    assert concern.state == PROBLEM and "%" in concern.message and "vence en 5" in concern.message


@pytest.mark.parametrize(
    ("activity", "report", "state"),
    [
        (False, None, OK),
        (True, "aceptado", OK),
        (True, None, WARNING),
        (True, "armado", WARNING),
        (True, "rechazado", PROBLEM),
        (True, "error", PROBLEM),
    ],
)
def test_yesterdays_daily_report(activity, report, state):
    assert concerns.daily_report(date(2026, 11, 26), activity, report).state == state


@pytest.mark.parametrize(("count", "oldest", "state"), [(0, None, OK), (3, 15, WARNING), (1, 24 * 60, PROBLEM)])
def test_receipts_waiting_on_dgi(count, oldest, state):
    assert concerns.waiting_on_dgi(count, oldest, 10).state == state


@pytest.mark.parametrize(("receipts", "errors", "state"), [(0, 0, OK), (4, 0, PROBLEM), (0, 1, PROBLEM)])
def test_rejected_envelopes(receipts, errors, state):
    assert concerns.rejected_envelopes(receipts, errors).state == state


def test_crossing_a_new_threshold_changes_the_signature():
    assert concerns.certificate(20, None).signature != concerns.certificate(10, None).signature
    assert concerns.certificate(20, None).signature == concerns.certificate(16, None).signature
