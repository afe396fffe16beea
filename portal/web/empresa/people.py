"""The empresa area's people page (admins): the company's members with their role, a form to add one, and
each member's role change and removal, asked first (a dialog with script, a page of its own without).

A new user's one-time password exists in exactly one response: the one to the add POST, never in a URL, a
redirect, a flash or a log; every answer here is `no-store`. Removing or demoting yourself is allowed while
another admin stays (the service keeps the last one): you land on the home page, as a member who lost the
role there."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass

from flask import flash, request
from flask_babel import gettext as _
from flask_login import current_user

from portal.client.errors import CfeError, Conflict
from portal.client.members import AddedMember, Member
from portal.web import paging
from portal.web.auth.session import admin_required, update_companies
from portal.web.backend import api
from portal.web.empresa import bp
from portal.web.empresa.forms import MemberForm, RoleForm
from portal.web.empresa.views import REFUSALS
from portal.web.forms_common import apply_service_errors
from portal.web.navigation import role_label
from portal.web.rendering import redirect_after_post, render

TEMPLATE = "empresa/people.html"
_ABOUT_THE_EMAIL = {"miembro_existente", "usuario_desactivado"}  # a Conflict that belongs next to the e-mail


@dataclass(frozen=True)
class MemberRow:
    member: Member
    role_form: RoleForm
    is_me: bool


def _is_me(member: Member) -> bool:
    return member.email.lower() == (current_user.email or "").lower()


def _rows(members: tuple[Member, ...]) -> list[MemberRow]:
    return [
        MemberRow(m, RoleForm(prefix=f"m{m.user_id}", formdata=None, data={"rol": m.role}), _is_me(m)) for m in members
    ]


def _my_companies_again() -> None:
    """After an admin changed their own role or left the company: the session's companies as they are now, so the
    page they land on already shows their new navigation (session.update_companies)."""
    with suppress(CfeError):
        update_companies(api().userinfo())


def _no_store(response):
    response.headers["Cache-Control"] = "no-store"
    return response


def _page(form: MemberForm, *, status: int, added: AddedMember | None = None):
    """The page of members the address asks for (`cursor`), with the pager of every list."""
    paged = paging.load("empresa.people", lambda cursor: api().list_members(cursor=cursor))
    rows = _rows(paged.items)
    return _no_store(render(TEMPLATE, form=form, rows=rows, paged=paged, added=added, status=status))


def _member(user_id: int) -> Member:
    """The company's member with this id; 404 for anyone else (another company's member too)."""
    return api().get_member(user_id)


@bp.route("/personas", methods=["GET", "POST"])
@admin_required
def people():
    """The company's people and their roles; adding one shows a new user's one-time password once."""
    if request.method == "GET":
        return _page(MemberForm(formdata=None), status=200)
    form = MemberForm()
    if form.validate_on_submit():
        try:
            added = api().add_member(form.email.data, form.nombre.data, form.rol.data)
        except REFUSALS as exc:
            if isinstance(exc, Conflict) and exc.code in _ABOUT_THE_EMAIL:
                form.email.errors = [*form.email.errors, exc.message]
            else:
                apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            return _added(added)
    return _page(form, status=422)


def _added(added: AddedMember):
    who = added.member
    if added.one_time_password is None:
        flash(
            _(
                "Agregaste a %(email)s como %(role)s: entra con su contraseña de siempre.",
                email=who.email,
                role=role_label(who.role),
            ),
            "success",
        )
        return _no_store(redirect_after_post("empresa.people"))
    flash(_("Agregaste a %(email)s como %(role)s.", email=who.email, role=role_label(who.role)), "success")
    return _page(MemberForm(formdata=None), status=201, added=added)


@bp.route("/personas/<int:user_id>/rol", methods=["GET", "POST"])
@admin_required
def member_role(user_id: int):
    """Change a member's role. GET asks on a page of its own (a browser without script; the list asks in a dialog)."""
    member = _member(user_id)
    form = RoleForm(
        prefix=f"m{user_id}", **({} if request.method == "POST" else {"formdata": None}), data={"rol": member.role}
    )
    if request.method == "GET" or not form.validate_on_submit():
        status = 200 if request.method == "GET" else 422
        return _no_store(render("empresa/member_role.html", member=member, form=form, status=status))
    try:
        changed = api().change_member_role(user_id, form.rol.data)
    except REFUSALS as exc:
        flash(exc.message, "error")
        return redirect_after_post("empresa.people")
    flash(_("%(email)s ahora es %(role)s.", email=changed.email, role=role_label(changed.role)), "success")
    if _is_me(changed) and changed.role != "admin":
        _my_companies_again()
        return redirect_after_post("main.home")  # no longer an admin here: this page is not theirs any more
    return redirect_after_post("empresa.people")


@bp.route("/personas/<int:user_id>/quitar", methods=["GET", "POST"])
@admin_required
def remove_member(user_id: int):
    """Take a member out of the company. GET asks on a page of its own (without script; the list uses a dialog)."""
    member = _member(user_id)
    if request.method == "GET":
        return _no_store(render("empresa/member_remove.html", member=member, is_me=_is_me(member)))
    try:
        api().remove_member(user_id)
    except REFUSALS as exc:
        flash(exc.message, "error")
        return redirect_after_post("empresa.people")
    flash(_("Quitaste a %(email)s de la empresa: ya no puede entrar a ella.", email=member.email), "success")
    if _is_me(member):
        _my_companies_again()
        return redirect_after_post("main.home")
    return redirect_after_post("empresa.people")
