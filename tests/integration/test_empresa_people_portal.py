"""Empresa › Personas through the Flask test client, against a live service: the list with each member's role,
the add form (input kept and errors next to fields on a 422), a new user's one-time password shown in the one
answer that created them, role change and removal asked first (pages of their own without script), English."""

from __future__ import annotations

import pytest

from tests.support.html import csrf
from tests.support.html import soup as _soup
from tests.support.people import add_people

PAGE = "/empresa/personas"


@pytest.fixture
def admin(signed_in):
    return signed_in("admin@demo.uy")


def _rows(answer) -> dict[str, str]:
    """email -> role as the list shows them."""
    rows = _soup(answer).find_all(attrs={"data-testid": "member-row"})
    return {
        r.find("small").get_text(strip=True): r.find(attrs={"data-testid": "member-role"}).get_text(strip=True)
        for r in rows
    }


def _id_of(admin, email: str) -> int:
    return _id_of_on(admin.get(PAGE), email)


def _id_of_on(answer, email: str) -> int:
    row = next(r for r in _soup(answer).find_all(attrs={"data-testid": "member-row"}) if email in r.get_text())
    return int(row.find("form")["action"].split("/")[-2])


def test_the_page_lists_the_people_with_their_role_for_admins_only(admin, signed_in):
    answer = admin.get(PAGE)
    assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-store"
    assert _rows(answer) == {
        "admin@demo.uy": "Administrador",
        "soporte@demo.uy": "Soporte",
        "usuario@demo.uy": "Usuario",
    }
    page = _soup(answer)
    tabs = page.find("nav", class_="empresa-tabs")
    assert tabs.find("a", attrs={"aria-current": "page"}).get_text(strip=True) == "Personas"
    assert page.find("dialog", id=lambda i: i and i.startswith("remove-")) is not None
    for role in ("usuario@demo.uy", "soporte@demo.uy"):
        assert signed_in(role).get(PAGE).status_code == 403


def test_more_people_than_a_page_are_paged_with_the_lists_pager(admin, live_service):
    """52 people more than the demo's: the page listed all of them at once. Now it shows a page of 50 with the pager
    every list has (on to the next page; back to the first), every person once; a member on the second page is
    reached by its own address, and a cursor the list did not make shows the first page."""
    emails = add_people(live_service.app, 52)
    first = admin.get(PAGE)
    assert first.status_code == 200
    page = _soup(first)
    shown = list(_rows(first))
    assert len(shown) == 50 and shown[:3] == ["admin@demo.uy", "soporte@demo.uy", emails[0]]
    pager = page.find("nav", class_="pager")
    following = pager.find("a", rel="next")
    assert following.get_text(strip=True) == "Siguientes" and following["href"].startswith(f"{PAGE}?cursor=")
    second = admin.get(following["href"])
    rest = list(_rows(second))
    assert rest == [*emails[48:], "usuario@demo.uy"] and not set(rest) & set(shown)
    back = _soup(second).find("nav", class_="pager")
    assert back.find("a", rel="next") is None and back.find("a")["href"] == PAGE
    last = _id_of_on(second, emails[-1])
    assert "Rol de persona052@demo.uy" in admin.get(f"{PAGE}/{last}/rol").get_data(as_text=True)
    assert list(_rows(admin.get(f"{PAGE}?cursor=bm9uZQ")))[:1] == ["admin@demo.uy"]


def test_adding_a_new_person_shows_their_password_once(admin):
    answer = admin.post(
        PAGE,
        data={
            "email": "nueva@empresa.uy",
            "nombre": "Nueva Persona",
            "rol": "soporte",
            "csrf_token": csrf(admin, PAGE),
        },
    )
    assert answer.status_code == 201 and answer.headers["Cache-Control"] == "no-store"
    page = _soup(answer)
    panel = page.find(attrs={"data-testid": "member-password"})
    password = panel.find("input", id="new-password")["value"]
    assert len(password) >= 20 and panel.find("button", attrs={"data-copy": "new-password"})
    assert "cambie" in panel.get_text()
    assert _rows(answer)["nueva@empresa.uy"] == "Soporte"
    # The add form comes back empty, and the password never shows again.
    assert page.find("input", id="email").get("value", "") == ""
    again = admin.get(PAGE)
    assert password not in again.get_data(as_text=True)
    assert _soup(again).find(attrs={"data-testid": "member-password"}) is None


def test_a_duplicate_is_refused_next_to_the_email_with_the_input_kept(admin):
    token = csrf(admin, PAGE)
    answer = admin.post(
        PAGE, data={"email": "usuario@demo.uy", "nombre": "Usuario", "rol": "usuario", "csrf_token": token}
    )
    assert answer.status_code == 422
    page = _soup(answer)
    assert "ya es miembro" in page.find(id="email-error").get_text()
    assert page.find("input", id="email")["value"] == "usuario@demo.uy"
    assert page.find("input", id="nombre")["value"] == "Usuario"


def test_errors_keep_what_was_typed(admin):
    answer = admin.post(
        PAGE, data={"email": "no-es-correo", "nombre": "N" * 121, "rol": "soporte", "csrf_token": csrf(admin, PAGE)}
    )
    assert answer.status_code == 422
    page = _soup(answer)
    assert page.find(id="email-error") and page.find(id="nombre-error")
    assert page.find("input", id="email")["value"] == "no-es-correo"
    assert page.find("select", id="rol").find("option", selected=True)["value"] == "soporte"
    assert "no-es-correo" not in _rows(admin.get(PAGE))


def test_role_change_and_removal_are_asked_first_and_take_effect(admin, signed_in):
    usuario_id = _id_of(admin, "usuario@demo.uy")
    asked = admin.get(f"{PAGE}/{usuario_id}/rol")
    assert asked.status_code == 200 and _soup(asked).find("select", id=f"m{usuario_id}-rol")
    token = csrf(admin, PAGE)
    changed = admin.post(f"{PAGE}/{usuario_id}/rol", data={f"m{usuario_id}-rol": "soporte", "csrf_token": token})
    assert changed.status_code == 303
    assert _rows(admin.get(PAGE))["usuario@demo.uy"] == "Soporte"
    audit = _soup(admin.get("/empresa/auditoria")).find(attrs={"data-testid": "audit"}).get_text(" ", strip=True)
    assert "Cambió el rol de una persona" in audit and "usuario@demo.uy" in audit

    member = signed_in("usuario@demo.uy")
    assert member.get("/comprobantes/").status_code == 200
    confirm = admin.get(f"{PAGE}/{usuario_id}/quitar")
    assert confirm.status_code == 200 and "¿Quitar a usuario@demo.uy" in confirm.get_data(as_text=True)
    removed = admin.post(f"{PAGE}/{usuario_id}/quitar", data={"csrf_token": csrf(admin, PAGE)})
    assert removed.status_code == 303 and removed.headers["Location"].endswith(PAGE)
    assert "usuario@demo.uy" not in _rows(admin.get(PAGE))
    assert member.get("/comprobantes/").status_code == 403  # the service refuses them at once
    assert admin.get(f"{PAGE}/{usuario_id}/quitar").status_code == 404


def test_the_last_admin_is_kept_and_said_why(admin):
    admin_id = _id_of(admin, "admin@demo.uy")
    token = csrf(admin, PAGE)
    answer = admin.post(f"{PAGE}/{admin_id}/quitar", data={"csrf_token": token}, follow_redirects=True)
    assert "único administrador" in answer.get_data(as_text=True)
    answer = admin.post(
        f"{PAGE}/{admin_id}/rol", data={f"m{admin_id}-rol": "usuario", "csrf_token": token}, follow_redirects=True
    )
    assert "único administrador" in answer.get_data(as_text=True)
    assert _rows(admin.get(PAGE))["admin@demo.uy"] == "Administrador"


def test_without_the_csrf_token_nothing_changes(admin):
    usuario_id = _id_of(admin, "usuario@demo.uy")
    assert admin.post(f"{PAGE}/{usuario_id}/quitar", data={}).status_code == 400
    assert admin.post(PAGE, data={"email": "x@y.uy", "nombre": "X", "rol": "admin"}).status_code in (400, 422)
    assert set(_rows(admin.get(PAGE))) == {"admin@demo.uy", "soporte@demo.uy", "usuario@demo.uy"}


def test_the_page_in_english(admin):
    admin.post("/idioma", data={"lang": "en", "csrf_token": csrf(admin, PAGE), "next": PAGE})
    answer = admin.post(
        PAGE,
        data={"email": "new@empresa.uy", "nombre": "New Person", "rol": "usuario", "csrf_token": csrf(admin, PAGE)},
    )
    text = _soup(answer).get_text(" ", strip=True)
    assert "People" in text and "Copy it now" in text and "Add to the company" in text
    assert _rows(answer)["new@empresa.uy"] == "User"
    refused = admin.post(
        PAGE, data={"email": "new@empresa.uy", "nombre": "New", "rol": "usuario", "csrf_token": csrf(admin, PAGE)}
    )
    assert "already a member" in _soup(refused).find(id="email-error").get_text()


def test_an_admin_who_steps_down_lands_home_with_their_new_navigation(admin):
    """Changing one's own role to usuario led home still showing the admin's navigation (the session's roles of the
    sign-in), each admin page then refused by the service. The session reads them again at once."""
    usuario_id, admin_id = _id_of(admin, "usuario@demo.uy"), _id_of(admin, "admin@demo.uy")
    token = csrf(admin, PAGE)
    admin.post(f"{PAGE}/{usuario_id}/rol", data={f"m{usuario_id}-rol": "admin", "csrf_token": token})  # another admin
    stepped = admin.post(f"{PAGE}/{admin_id}/rol", data={f"m{admin_id}-rol": "usuario", "csrf_token": token})
    assert stepped.status_code == 303 and stepped.headers["Location"].endswith("/")
    header = _soup(admin.get("/")).find("header")
    links = {a["href"] for a in header.select("nav a[href]")}
    assert "/empresa/" not in links and "/comprobantes/" in links
    assert admin.get(PAGE).status_code == 403
