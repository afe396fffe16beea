"""One set of DGI states: the domain table, the service's submission states and the portal's badges name the
same states, so a filter, a CSV column and a badge never disagree about a receipt."""

from portal.domain.dgi_states import DGI_STATES, FINAL_DGI_STATES
from portal.service.envios import states
from portal.web.envios import badges


def test_service_states_and_portal_badges_are_the_domain_states():
    assert set(states.STATES) == set(DGI_STATES)
    assert set(badges.STATES) == set(DGI_STATES)


def test_final_states_poll_no_more():
    assert FINAL_DGI_STATES <= set(DGI_STATES)
    assert {code for code, (_label, _tone, poll) in badges.STATES.items() if poll is None} == FINAL_DGI_STATES
