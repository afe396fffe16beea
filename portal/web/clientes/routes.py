"""Views of the clientes area: the list (search by the start of the name or document, pages), a customer's card
with its balance of credit sales and latest receipts, and the forms to add and edit one (usuario and admin)."""

from __future__ import annotations

from flask import abort, flash, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from portal.client.clientes import Customer, CustomerChanges, NewCustomer
from portal.client.errors import Conflict, NotFound, ValidationError
from portal.domain import roles
from portal.web.auth.session import member_required, writer_required
from portal.web.backend import api
from portal.web.clientes import bp
from portal.web.clientes.forms import CustomerForm, NewCustomerForm, SearchForm
from portal.web.forms_common import apply_service_errors
from portal.web.rendering import redirect_after_post, render

__all__ = ["bp"]

PAGE_SIZE = 50


def _can_edit() -> bool:
    return current_user.role in roles.WRITERS


def _changes(form: CustomerForm) -> CustomerChanges:
    return CustomerChanges(
        name=form.nombre.data.strip(),
        address=form.direccion.data or "",
        city=form.ciudad.data or "",
        department=form.departamento.data or "",
        email=form.correo.data or "",
        currency=form.moneda.data,
        payment_terms=int(form.forma_pago.data),
        credit_days=int(form.dias_credito.data) if form.dias_credito.data is not None else None,
    )


def _filled(customer: Customer) -> CustomerForm:
    return CustomerForm(
        formdata=None,
        data={
            "nombre": customer.name,
            "direccion": customer.address,
            "ciudad": customer.city,
            "departamento": customer.department,
            "correo": customer.email,
            "moneda": customer.currency,
            "forma_pago": str(customer.payment_terms),
            "dias_credito": customer.credit_days,
        },
    )


@bp.get("/")
@member_required
def index():
    """The company's customers by name; the search narrows them as it is typed (htmx swaps the results)."""
    form = SearchForm(formdata=request.args)
    if not form.validate():
        return render("clientes/index.html", "results", status=422, form=form, page=None, next_url=None)
    try:
        page = api().list_customers(form.q.data or None, cursor=form.cursor.data or None, limit=PAGE_SIZE)
    except ValidationError as exc:  # a cursor edited by hand, or one of a list that changed: said, not a 502
        apply_service_errors(form, exc, {"*": "q"})
        return render("clientes/index.html", "results", status=422, form=form, page=None, next_url=None)
    query = {"q": form.q.data} if form.q.data else {}
    following = url_for("clientes.index", **query, cursor=page.next_cursor) if page.next_cursor else None
    return render("clientes/index.html", "results", form=form, page=page, next_url=following, can_edit=_can_edit())


@bp.route("/nuevo", methods=["GET", "POST"])
@writer_required
def new():
    """Add a customer by hand (those of past receipts are added by themselves)."""
    form = NewCustomerForm()
    if request.method == "POST" and form.validate():
        customer = NewCustomer(
            doc_type=int(form.tipo_documento.data),
            document=form.documento.data.strip(),
            name=form.nombre.data.strip(),
            country=form.pais.data.strip().upper(),
            details=_changes(form),
        )
        try:
            created = api().create_customer(customer)
        except ValidationError as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        except Conflict as exc:  # the document is another customer's (cliente_existente): said beside it
            apply_service_errors(form, exc, {"*": "documento"})
        else:
            flash(_("Cliente agregado."), "success")
            return redirect_after_post("clientes.card", customer_id=created.id)
    status = 422 if request.method == "POST" else 200
    return render("clientes/new.html", "form", status=status, form=form)


def _card(customer_id: int):
    try:
        return api().get_customer(customer_id)
    except NotFound:
        abort(404)


@bp.get("/<int:customer_id>")
@member_required
def card(customer_id: int):
    """A customer: its data (a form for usuario and admin), balance of credit sales and latest receipts."""
    found = _card(customer_id)
    form = _filled(found.customer) if _can_edit() else None
    return render("clientes/card.html", card=found, form=form)


@bp.post("/<int:customer_id>")
@writer_required
def update(customer_id: int):
    """Save the customer's data; an error re-renders the form with what was typed."""
    found = _card(customer_id)
    form = CustomerForm()
    if form.validate():
        try:
            api().update_customer(customer_id, _changes(form))
        except ValidationError as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            flash(_("Cambios guardados."), "success")
            return redirect_after_post("clientes.card", customer_id=customer_id)
    return render("clientes/card.html", "form", status=422, card=found, form=form)
