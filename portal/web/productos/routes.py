"""Views of the productos area: the list (search by any word's start or the code, pages), the forms to add, edit
and remove a product (usuario and admin), and a price list imported from CSV whole or not at all."""

from __future__ import annotations

import re
from decimal import Decimal

from flask import abort, flash, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from portal.client.errors import Conflict, NotFound, ValidationError
from portal.client.productos import Product, ProductFields
from portal.domain import roles
from portal.web.auth.session import member_required, writer_required
from portal.web.backend import api
from portal.web.forms_common import apply_service_errors
from portal.web.productos import bp
from portal.web.productos.forms import ImportForm, ProductForm, SearchForm, ind_fact_label
from portal.web.rendering import redirect_after_post, render

__all__ = ["bp"]

PAGE_SIZE = 50
MAX_IMPORT_BYTES = 1_000_000
bp.add_app_template_global(ind_fact_label, "ind_fact_label")


# Where the service says a refused row is: filas[<line of the file>].<column>, "*" for the whole row, line 0 for
# the whole file (portal/service/productos/catalog.py).
_ROW = re.compile(r"^filas\[(\d+)\]\.(.+)$")


def _where(path: str) -> str:
    """A refused row's place in words, as a person finds it in their spreadsheet: "Fila 2, columna precio"."""
    found = _ROW.match(path)
    if found is None:
        return path
    line, column = int(found[1]), found[2]
    if line == 0:
        return _("El archivo")
    if column == "*":
        return _("Fila %(line)d", line=line)
    return _("Fila %(line)d, columna %(column)s", line=line, column=column)


def _fields(form: ProductForm) -> ProductFields:
    return ProductFields(
        code=form.codigo.data.strip(),
        name=form.nombre.data.strip(),
        unit=(form.unidad.data or "").strip() or None,
        price=Decimal(form.precio.data),
        price_includes_tax=bool(form.precio_con_iva.data),
        ind_fact=int(form.indicador.data),
        currency=form.moneda.data,
    )


def _filled(product: Product) -> ProductForm:
    return ProductForm(
        formdata=None,
        data={
            "codigo": product.code,
            "nombre": product.name,
            "unidad": product.unit,
            "precio": product.price,
            "precio_con_iva": product.price_includes_tax,
            "indicador": str(product.ind_fact),
            "moneda": product.currency,
        },
    )


@bp.get("/")
@member_required
def index():
    """The company's products by name; the search narrows them as it is typed."""
    form = SearchForm(formdata=request.args)
    if not form.validate():
        return render("productos/index.html", "results", status=422, form=form, page=None, next_url=None)
    try:
        page = api().list_products(form.q.data or None, cursor=form.cursor.data or None, limit=PAGE_SIZE)
    except ValidationError as exc:  # a cursor edited by hand, or one of a list that changed: said, not a 502
        apply_service_errors(form, exc, {"*": "q"})
        return render("productos/index.html", "results", status=422, form=form, page=None, next_url=None)
    query = {"q": form.q.data} if form.q.data else {}
    following = url_for("productos.index", **query, cursor=page.next_cursor) if page.next_cursor else None
    can_edit = current_user.role in roles.WRITERS
    return render("productos/index.html", "results", form=form, page=page, next_url=following, can_edit=can_edit)


@bp.route("/nuevo", methods=["GET", "POST"])
@writer_required
def new():
    """Add a product or service."""
    form = ProductForm()
    if request.method == "POST" and form.validate():
        try:
            api().create_product(_fields(form))
        except ValidationError as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        except Conflict as exc:  # the code is another product's (codigo_existente): said beside it
            apply_service_errors(form, exc, {"*": "codigo"})
        else:
            flash(_("Producto agregado."), "success")
            return redirect_after_post("productos.index")
    status = 422 if request.method == "POST" else 200
    return render("productos/edit.html", "form", status=status, form=form, product=None)


@bp.route("/<int:product_id>", methods=["GET", "POST"])
@writer_required
def edit(product_id: int):
    """Change a product; the receipts that used it keep what they said."""
    try:
        product = api().get_product(product_id)
    except NotFound:
        abort(404)
    form = _filled(product) if request.method == "GET" else ProductForm()
    if request.method == "POST" and form.validate():
        try:
            api().update_product(product_id, _fields(form))
        except ValidationError as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        except Conflict as exc:  # the code is another product's (codigo_existente): said beside it
            apply_service_errors(form, exc, {"*": "codigo"})
        else:
            flash(_("Cambios guardados."), "success")
            return redirect_after_post("productos.index")
    status = 422 if request.method == "POST" else 200
    return render("productos/edit.html", "form", status=status, form=form, product=product)


@bp.route("/<int:product_id>/quitar", methods=["GET", "POST"])
@writer_required
def remove(product_id: int):
    """Take a product out of the catalogue, once asked (GET: the question on its own page, for a browser without
    script; with script the edit page asks in a dialog and posts here)."""
    try:
        if request.method == "GET":
            return render("productos/remove.html", product=api().get_product(product_id))
        api().delete_product(product_id)
    except NotFound:
        abort(404)
    flash(_("Producto quitado del catálogo."), "success")
    return redirect_after_post("productos.index")


@bp.route("/importar", methods=["GET", "POST"])
@writer_required
def import_list():
    """A price list from CSV: all of it or nothing, with what is wrong in each refused row."""
    form = ImportForm()
    problems: list[tuple[str, str]] = []
    if request.method == "POST" and form.validate():
        data = form.archivo.data.read(MAX_IMPORT_BYTES + 1)
        if len(data) > MAX_IMPORT_BYTES:
            form.archivo.errors = [_("El archivo supera 1 MB.")]
        else:
            try:
                result = api().import_price_list(data)
            except ValidationError as exc:
                problems = [(_where(f.field), f.message) for f in exc.fields]
                form.form_errors.append(_("No se importó nada: corregí estas filas y volvé a subir el archivo."))
            except Conflict as exc:  # another user added one of the list's codes at the same moment
                form.form_errors.append(exc.message)
            else:
                flash(
                    _(
                        "Lista importada: %(added)s productos nuevos, %(updated)s actualizados.",
                        added=result.added,
                        updated=result.updated,
                    ),
                    "success",
                )
                return redirect_after_post("productos.index")
    status = 422 if request.method == "POST" else 200
    return render("productos/import.html", status=status, form=form, problems=problems)
