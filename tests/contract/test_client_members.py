"""The real client's methods for the company's people against a live service: typed results, the one-time
password once, and the service's refusals mapped to the client's errors."""

from __future__ import annotations

import pytest

from portal.client import CfeClient, Conflict, Forbidden, NotFound, ValidationError
from portal.client.members import AddedMember, Member
from portal.client.pages import Page


@pytest.fixture
def as_user(live_service, live_token_for):
    client = CfeClient(live_service.url)
    return lambda email="admin@demo.uy", company_id=1: client.as_user(live_token_for(email), company_id=company_id)


def test_list_add_change_and_remove(as_user):
    api = as_user()
    page = api.list_members()
    assert isinstance(page, Page) and page.next_cursor is None
    people = page.items
    assert all(isinstance(m, Member) for m in people)
    assert [(m.email, m.role) for m in people][0] == ("admin@demo.uy", "admin")
    assert {m.email for m in people} == {"admin@demo.uy", "soporte@demo.uy", "usuario@demo.uy"}

    added = api.add_member("nuevo@empresa.uy", "Nuevo Miembro", "soporte")
    assert isinstance(added, AddedMember) and added.new_user
    assert added.member.email == "nuevo@empresa.uy" and added.member.role == "soporte" and added.member.since
    assert added.one_time_password and added.one_time_password not in repr(added)
    assert "nuevo@empresa.uy" in {m.email for m in api.list_members().items}

    changed = api.change_member_role(added.member.user_id, "usuario")
    assert (changed.user_id, changed.role) == (added.member.user_id, "usuario")
    assert {m.email: m.role for m in api.list_members().items}["nuevo@empresa.uy"] == "usuario"

    api.remove_member(added.member.user_id)
    assert "nuevo@empresa.uy" not in {m.email for m in api.list_members().items}
    with pytest.raises(NotFound) as gone:
        api.remove_member(added.member.user_id)
    assert gone.value.code == "miembro_inexistente"


def test_an_existing_user_gets_no_password(as_user):
    added = as_user("admin@demo.uy", 2).add_member("usuario@demo.uy", "Usuario", "usuario")
    assert not added.new_user and added.one_time_password is None and added.member.name != ""


def test_refusals_are_mapped(as_user):
    api = as_user()
    admin_id = next(m.user_id for m in api.list_members().items if m.email == "admin@demo.uy")
    with pytest.raises(ValidationError) as invalid:
        api.add_member("no-es-correo", "", "dueño")
    assert {"email", "nombre", "rol"} & set(invalid.value.field_messages())
    with pytest.raises(Conflict) as duplicate:
        api.add_member("usuario@demo.uy", "Usuario", "usuario")
    assert duplicate.value.code == "miembro_existente"
    for refused in (lambda: api.change_member_role(admin_id, "usuario"), lambda: api.remove_member(admin_id)):
        with pytest.raises(Conflict) as last:
            refused()
        assert last.value.code == "ultimo_administrador"
    with pytest.raises(NotFound):
        as_user("admin@demo.uy", 2).remove_member(
            next(m.user_id for m in api.list_members().items if m.role == "usuario")
        )
    with pytest.raises(Forbidden):
        as_user("soporte@demo.uy").list_members()


def test_the_members_page_by_page_and_one_by_its_id(as_user):
    api = as_user()
    first = api.list_members(limit=2)
    assert [m.email for m in first.items] == ["admin@demo.uy", "soporte@demo.uy"] and first.next_cursor
    rest = api.list_members(cursor=first.next_cursor, limit=2)
    assert [m.email for m in rest.items] == ["usuario@demo.uy"] and rest.next_cursor is None
    assert api.get_member(first.items[1].user_id) == first.items[1]
    with pytest.raises(NotFound):
        as_user("admin@demo.uy", 2).get_member(first.items[1].user_id)
    with pytest.raises(ValidationError) as refused:
        api.list_members(cursor="bm9uZQ")
    assert refused.value.fields[0].field == "cursor"
