"""The credit note that cancels what is left of a receipt after partial credit notes: its lines."""

from __future__ import annotations

from decimal import Decimal

from portal.client.cfe import Line
from portal.web.comprobantes.balance import rest_lines

CAFE = Line(name="Café", quantity=Decimal(3), unit_price=Decimal(100), ind_fact=3)
TORTA = Line(name="Torta", quantity=Decimal(1), unit_price=Decimal(250), ind_fact=2)


def test_the_rest_is_each_line_less_what_the_notes_took():
    first = (Line(name="Café", quantity=Decimal(1), unit_price=Decimal(100), ind_fact=3),)
    second = (Line(name="Torta", quantity=Decimal(1), unit_price=Decimal(250), ind_fact=2),)
    assert rest_lines((CAFE, TORTA), [first, second]) == (
        Line(name="Café", quantity=Decimal(2), unit_price=Decimal(100), ind_fact=3),
    )


def test_nothing_credited_yet_is_every_line():
    assert rest_lines((CAFE, TORTA), []) == (CAFE, TORTA)


def test_a_note_line_that_matches_no_original_line_leaves_it_to_a_person():
    other_price = (Line(name="Café", quantity=Decimal(1), unit_price=Decimal(90), ind_fact=3),)
    too_many = (Line(name="Café", quantity=Decimal(4), unit_price=Decimal(100), ind_fact=3),)
    assert rest_lines((CAFE,), [other_price]) is None
    assert rest_lines((CAFE,), [too_many]) is None


def test_a_line_with_an_amount_discount_leaves_it_to_a_person():
    assert (
        rest_lines((Line(name="Café", quantity=Decimal(3), unit_price=Decimal(100), discount=Decimal(10)),), []) is None
    )
