"""Forms of the comprobantes area: issue a receipt (with its detail lines), look one up, sign an XML,
reapply a collection reference."""

from __future__ import annotations

import re
from datetime import datetime

from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired, FileSize
from werkzeug.datastructures import MultiDict
from wtforms import (
    BooleanField,
    FieldList,
    Form,
    FormField,
    HiddenField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import AnyOf, DataRequired, Length, Optional, Regexp
from wtforms.validators import ValidationError as FieldInvalid

from portal.client.comprobante_list import ReceiptFilters
from portal.client.empresa_records import Branch
from portal.domain.cfe_types import (
    BOLETA_TYPES,
    E_REMITO,
    E_REMITO_EXPORTACION,
    E_RESGUARDO,
    EXPORT_INVOICE_TYPES,
    MOD_VENTA_SERVICES,
    NOTE_BASE_TYPE,
    RUT_RECEIVER_TYPES,
)
from portal.domain.digits import ascii_number
from portal.domain.uruguay_time import today_montevideo
from portal.web.comprobantes import choices
from portal.web.comprobantes.payload import PREFILL_PARAMS
from portal.web.correo import on_issue
from portal.web.correo.forms import split_addresses
from portal.web.forms_common import LINE_FIELD, DayField, NumberField, PortalForm, idempotency_key_field

MAX_LINES = 700
SIGN_MAX_BYTES = 2 * 1024 * 1024
_LINE_KEY = re.compile(r"^lines-(\d+)-(.+)$")


class LineForm(Form):
    """One detail line (a plain Form: the receipt form's CSRF token covers it)."""

    ind_fact = SelectField(
        _l("Indicador de facturación"), choices=choices.options(choices.LINE_IND_FACT), coerce=int, default=3
    )
    nom_item = StringField(_l("Descripción"), validators=[Length(max=80)])
    # The product's code when the line was picked from the catalogue (CodItem INT1); hidden, never typed.
    cod_item = HiddenField(validators=[Length(max=35)])
    cantidad = NumberField(_l("Cantidad"), default="1")
    uni_med = StringField(_l("Unidad"), validators=[Length(max=4)])
    precio_unitario = NumberField(_l("Precio unitario"))
    descuento = NumberField(_l("Descuento"))
    # e-Resguardo: a line is one retention
    cod_ret = StringField(
        _l("Código de retención"),
        validators=[
            Optional(),
            Regexp(r"^\s*\d{1,8}\s*$", message=_l("El código de DGI: hasta 8 dígitos, como 2183165.")),
        ],
    )
    tasa = NumberField(_l("Tasa (%)"))
    base = NumberField(_l("Monto sujeto a retención"))
    valor = NumberField(_l("Monto retenido"))


class ReceiptForm(PortalForm):
    """The issuing form. The idempotency key is made when the form is first shown and travels with it, so
    a double click or a browser retry issues one receipt."""

    ROW_LABEL = LINE_FIELD
    idempotency_key = idempotency_key_field()
    # The rejected receipt this one corrects ("Emitir corregido", notes.correct).
    corrige = HiddenField(validators=[Optional(), Regexp(r"^[A-Za-z0-9_-]{1,40}$")])
    tipo_cfe = SelectField(
        _l("Tipo de comprobante"), choices=choices.options(choices.CFE_TYPES), coerce=int, default=101
    )
    fch_emis = DayField(_l("Fecha"), default=today_montevideo, validators=[DataRequired()])
    # A paper contingency receipt (CFC) keyed in: the type chosen + 100, the serie and number printed on it, its
    # date in fch_emis. `corrige_cfc`: the observed CFC this form corrects (same paper).
    contingencia = BooleanField(_l("Comprobante de contingencia (papel)"), default=False)
    cfc_serie = StringField(
        _l("Serie del papel"),
        validators=[Optional(), Regexp(r"^[A-Za-z]{1,2}$", message=_l("Una o dos letras."))],
    )
    cfc_nro = StringField(
        _l("Número del papel"),
        validators=[Optional(), Regexp(r"^\d{1,7}$", message=_l("Un número de hasta 7 dígitos."))],
    )
    corrige_cfc = HiddenField(validators=[Optional(), Regexp(r"^[A-Za-z0-9_-]{1,40}$")])
    fma_pago = SelectField(_l("Forma de pago"), choices=choices.options(choices.FMA_PAGO), coerce=int, default=1)
    fch_venc = DayField(_l("Vencimiento del pago"), validators=[Optional()])
    tpo_moneda = SelectField(_l("Moneda"), choices=choices.options(choices.CURRENCIES), default="UYU")
    tpo_cambio = NumberField(_l("Tipo de cambio"))
    mnt_bruto = BooleanField(_l("Los precios incluyen IVA"), default=True)
    # "1" when the company sells without IVA (IVA mínimo or Monotributo: DGI's MntBruto 3). The service's
    # settings say so when the form is first shown (issuing.fresh_editor); the form carries it from there.
    ventas_sin_iva = HiddenField(validators=[Optional(), AnyOf(("", "1"))])
    # The branch the receipt is issued from (its address is printed, its code goes in the CFE). Offered when the
    # company has more than one (issuing._editor fills the choices from the service); empty: the default one.
    sucursal = SelectField(
        _l("Sucursal"),
        coerce=lambda v: int(v) if v not in (None, "", "None") else None,
        choices=[],
        validate_choice=False,
        validators=[Optional()],
    )
    tipo_traslado = SelectField(
        _l("Tipo de traslado"), choices=choices.options(choices.TRASLADO), coerce=int, default=1
    )
    # Export only (121-123): the terms of sale.
    clau_venta = StringField(
        _l("Cláusula de venta"),
        default="N/A",
        validators=[Optional(), Regexp(r"^([A-Za-z]{1,3}|N/A)$", message=_l("Un Incoterm (FOB, CIF...) o N/A."))],
    )
    # e-Boleta de entrada only: the prices include IMEBA and additional taxes (DGI's MntBruto 2).
    incluye_imeba = BooleanField(_l("Los precios incluyen IMEBA"), default=False)
    # Sales on behalf of others only (131-133, 141-143): the principal (mandante).
    tipo_doc_mdte = SelectField(
        _l("Tipo de documento del mandante"), choices=choices.options(choices.DOC_TYPES[1:]), default="2"
    )
    pais_mdte = StringField(
        _l("País del documento del mandante"),
        default="UY",
        validators=[Optional(), Regexp(r"^([A-Za-z]{2}|99)$", message=_l("Código de 2 letras (o 99)."))],
    )
    doc_mdte = StringField(_l("Documento del mandante"), validators=[Length(max=20)])
    nombre_mdte = StringField(_l("Nombre del mandante"), validators=[Length(max=150)])
    mod_venta = SelectField(
        _l("Modalidad de venta"), choices=choices.options(choices.MOD_VENTA), coerce=int, default=90
    )
    via_transp = SelectField(
        _l("Vía de transporte"), choices=choices.options(choices.VIA_TRANSP), coerce=int, default=8
    )

    tipo_doc_recep = SelectField(_l("Tipo de documento"), choices=choices.options(choices.DOC_TYPES), default="")
    cod_pais_recep = StringField(
        _l("País del documento"),
        default="UY",
        validators=[Optional(), Regexp(r"^([A-Za-z]{2}|99)$", message=_l("Código de 2 letras (o 99)."))],
    )
    doc_recep = StringField(_l("Número de documento"), validators=[Length(max=20)])
    rzn_soc_recep = StringField(_l("Nombre o razón social"), validators=[Length(max=150)])
    dir_recep = StringField(_l("Dirección"), validators=[Length(max=70)])
    ciudad_recep = StringField(_l("Ciudad"), validators=[Length(max=30)])
    depto_recep = StringField(_l("Departamento"), validators=[Length(max=30)])
    pais_recep = StringField(_l("País"), validators=[Length(max=30)])  # its name, for a receiver abroad

    lines = FieldList(FormField(LineForm), min_entries=1, max_entries=MAX_LINES)

    ref_tipo = SelectField(
        _l("Tipo del comprobante referido"), choices=choices.options(choices.REFERENCE_TYPES), coerce=int, default=101
    )
    ref_serie = StringField(_l("Serie"), validators=[Length(max=2)])
    ref_nro = StringField(
        _l("Número"), validators=[Optional(), Regexp(r"^\d{1,7}$", message=_l("Un número de hasta 7 dígitos."))]
    )
    ref_razon = StringField(_l("Motivo"), validators=[Length(max=90)])
    ref_fecha = DayField(_l("Fecha del comprobante referido"), validators=[Optional()])

    adenda = TextAreaField(_l("Adenda"), validators=[Length(max=10000)])
    enviar_a = on_issue.recipients_field()  # e-mail the PDF and XML as soon as it is issued (correo area)

    # The service's field paths -> this form's fields (portal.web.forms_common.apply_service_errors).
    # The request's field paths, as the client names the service's field errors (CfeRequest's names).
    SERVICE_FIELDS = {
        "tipo_cfe": "tipo_cfe",
        "issue_date": "fch_emis",
        "paper": "cfc_nro",
        "paper.serie": "cfc_serie",
        "paper.number": "cfc_nro",
        "payment_form": "fma_pago",
        "due_date": "fch_venc",
        "gross_amounts": "mnt_bruto",
        "currency": "tpo_moneda",
        "exchange_rate": "tpo_cambio",
        "transfer_kind": "tipo_traslado",
        "sale_clause": "clau_venta",
        "sale_mode": "mod_venta",
        "transport": "via_transp",
        "receiver.country_name": "pais_recep",
        "principal": "doc_mdte",
        "principal.doc_type": "tipo_doc_mdte",
        "principal.country": "pais_mdte",
        "principal.document": "doc_mdte",
        "principal.name": "nombre_mdte",
        "adenda": "adenda",
        "receiver": "tipo_doc_recep",
        "receiver.doc_type": "tipo_doc_recep",
        "receiver.country": "cod_pais_recep",
        "receiver.document": "doc_recep",
        "receiver.name": "rzn_soc_recep",
        "receiver.address": "dir_recep",
        "receiver.city": "ciudad_recep",
        "receiver.department": "depto_recep",
        # "lines" alone is about all the lines (a negative total, too many lines): the banner, not line 1.
        "lines[]": "lines-[]-nom_item",
        "lines[].ind_fact": "lines-[]-ind_fact",
        "lines[].name": "lines-[]-nom_item",
        "lines[].description": "lines-[]-nom_item",
        "lines[].quantity": "lines-[]-cantidad",
        "lines[].unit": "lines-[]-uni_med",
        "lines[].unit_price": "lines-[]-precio_unitario",
        "lines[].discount": "lines-[]-descuento",
        "lines[].discount_pct": "lines-[]-descuento",
        "lines[].retentions[].rate": "lines-[]-tasa",
        "lines[].retentions[].base": "lines-[]-base",
        "lines[].retentions[].amount": "lines-[]-valor",
        "lines[].retentions.*": "lines-[]-cod_ret",
        "references.*": "ref_nro",
        "references[].tipo_cfe": "ref_tipo",
        "references[].serie": "ref_serie",
        "references[].reason": "ref_razon",
        "references[].issue_date": "ref_fecha",
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fit_to_regime(fill=False)

    def offer_branches(self, branches: tuple[Branch, ...]) -> None:
        """The company's branches to choose from, the default one first chosen."""
        branches = tuple(b for b in branches if b.active)
        self.sucursal.choices = [(b.code, f"{b.name} · {b.address}" if b.address else b.name) for b in branches]
        codes = {b.code for b in branches}
        if self.sucursal.data not in codes:
            default = next((b.code for b in branches if b.default), None)
            self.sucursal.data = default

    @property
    def sells_without_iva(self) -> bool:
        return self.ventas_sin_iva.data == "1"

    def fit_to_regime(self, *, fill: bool = True) -> None:
        """Each line offers the indicators the company may use. With `fill` (a form being shown, a line
        added), a line holding one it may not (a new line's default, a receipt copied from before a change
        of regime) takes the first offered: the sale without IVA, or the basic rate; what was posted is left
        for validation to answer."""
        if self.tipo_cfe.data in EXPORT_INVOICE_TYPES:
            offered = choices.LINE_IND_FACT_EXPORT
        elif self.tipo_cfe.data in BOLETA_TYPES:
            offered = choices.LINE_IND_FACT_BOLETA
        elif self.tipo_cfe.data == E_REMITO_EXPORTACION:
            offered = choices.LINE_IND_FACT_EXPORT_REMITO
        elif self.sells_without_iva:
            offered = choices.LINE_IND_FACT_SMALL_TAXPAYER
        else:
            offered = choices.LINE_IND_FACT
        codes = {code for code, _label in offered}
        for entry in self.lines:
            entry.form.ind_fact.choices = choices.options(offered)
            if fill and entry.form.ind_fact.data not in codes:
                entry.form.ind_fact.data = offered[0][0]

    def validate_enviar_a(self, field) -> None:
        """A paper contingency receipt goes to DGI only (the customer already has the paper): addresses typed
        beside it are refused, not dropped without a word, so the person decides which of the two they meant."""
        if self.contingencia.data and split_addresses(field.data):
            raise FieldInvalid(
                _l(
                    "Un comprobante de contingencia va solo a DGI: el cliente ya tiene el papel. Borrá las "
                    "direcciones, o desmarcá «Comprobante de contingencia (papel)» para emitirlo electrónico."
                )
            )

    def fit_to_type(self) -> None:
        """Defaults that follow the type: an e-Factura's receiver has a RUT, as an e-Remito's and an e-Resguardo's
        usually do (they always identify theirs); a note refers to its base type; the lines offer the type's
        indicators."""
        tipo = self.tipo_cfe.data
        if tipo in (*RUT_RECEIVER_TYPES, E_REMITO, E_RESGUARDO) and not self.tipo_doc_recep.data:
            self.tipo_doc_recep.data = "2"
        if tipo in NOTE_BASE_TYPE and not (self.ref_serie.data or self.ref_nro.data):
            self.ref_tipo.data = NOTE_BASE_TYPE[tipo]
        if tipo == E_REMITO_EXPORTACION and self.mod_venta.data == MOD_VENTA_SERVICES:
            self.mod_venta.data, self.via_transp.data = 1, 1  # a remito moves goods: general regime, by sea
        self.fit_to_regime()  # an export's lines are export (10); back from one, a taxed line again


def prefilled_form(args: MultiDict) -> ReceiptForm:
    """A fresh form, pre-filled from query parameters (see payload.PREFILL_PARAMS); unknown values are
    ignored rather than refused, since the link may come from another page."""
    data: dict = {}
    for param, name in PREFILL_PARAMS.items():
        value = (args.get(param) or "").strip()
        if not value:
            continue
        if name in ("tipo_cfe", "ref_tipo"):
            if ascii_number(value) in dict(choices.CFE_TYPES if name == "tipo_cfe" else choices.REFERENCE_TYPES):
                data[name] = ascii_number(value)
        elif name == "tipo_doc_recep":
            if value in dict(choices.DOC_TYPES):
                data[name] = value
        elif name == "ref_fecha":
            try:
                data[name] = datetime.strptime(value, "%Y-%m-%d").date()
            except ValueError:
                pass
        else:
            data[name] = value[:150]
    form = ReceiptForm(formdata=None, data=data)
    form.fit_to_type()
    return form


def renumbered(formdata: MultiDict, *, drop: int | None = None) -> MultiDict:
    """The posted form with line `drop` removed and the remaining lines numbered 0..n-1 again, so the
    server and the page always agree on which line is which."""
    rows: dict[int, list[tuple[str, str]]] = {}
    result: MultiDict[str, str] = MultiDict()
    for key, value in formdata.items(multi=True):
        match = _LINE_KEY.match(key)
        if match:
            rows.setdefault(int(match[1]), []).append((match[2], value))
        else:
            result.add(key, value)
    kept = [index for index in sorted(rows) if index != drop]
    for new_index, old_index in enumerate(kept):
        for name, value in rows[old_index]:
            result.add(f"lines-{new_index}-{name}", value)
    return result


class LookupForm(PortalForm):
    """Find a receipt by the id the service gave it (a GET form: no CSRF needed)."""

    class Meta:
        csrf = False

    id = StringField(
        _l("Identificador del comprobante"),
        validators=[
            DataRequired(message=_l("Ingresá el identificador del comprobante.")),
            Regexp(
                r"^\s*[A-Za-z0-9_-]{1,40}\s*$",
                message=_l("Un identificador tiene letras y números, como 3f2a9c0e5b9d4e0fa1c2d3e4f5a6b7c8."),
            ),
        ],
    )


class ReceiptFilterForm(PortalForm):
    """The receipt list's filters (a GET form: the URL holds the query, so it can be shared and reloaded)."""

    class Meta:
        csrf = False

    numero = StringField(_l("Número"), validators=[Optional(), Length(max=40)])
    receptor = StringField(_l("Receptor"), validators=[Optional(), Length(max=150)])
    desde = DayField(_l("Desde"), validators=[Optional()])
    hasta = DayField(_l("Hasta"), validators=[Optional()])
    tipo = SelectField(_l("Tipo"), choices=choices.options(choices.FILTER_TYPES), default="")
    moneda = SelectField(_l("Moneda"), choices=choices.options(choices.FILTER_CURRENCIES), default="")
    estado = SelectField(_l("Estado DGI"), choices=choices.options(choices.FILTER_STATES), default="")
    monto_desde = NumberField(_l("Monto desde"))
    monto_hasta = NumberField(_l("Monto hasta"))
    referencia = StringField(_l("Solicitud o clave de idempotencia"), validators=[Optional(), Length(max=255)])
    cursor = HiddenField(validators=[Optional(), Length(max=200)])

    # form field -> the ReceiptFilters field it fills
    FILTER_FIELDS = {
        "numero": "number",
        "receptor": "receiver",
        "desde": "since",
        "hasta": "until",
        "tipo": "tipo_cfe",
        "moneda": "currency",
        "estado": "dgi_state",
        "monto_desde": "amount_from",
        "monto_hasta": "amount_to",
        "referencia": "reference",
    }

    def service_filters(self) -> ReceiptFilters:
        values = {
            field: self[name].data.strip() if isinstance(self[name].data, str) else self[name].data
            for name, field in self.FILTER_FIELDS.items()
        }
        values["tipo_cfe"] = int(values["tipo_cfe"]) if values["tipo_cfe"] else None
        return ReceiptFilters(**{field: value if value != "" else None for field, value in values.items()})

    def query_args(self, **overrides) -> dict:
        """The filters as URL parameters (for links: CSV, next page, first page)."""
        args = {
            name: self[name].raw_data[0]
            for name in self.FILTER_FIELDS
            if self[name].raw_data and self[name].raw_data[0]
        }
        return {**args, **overrides}


class SignXmlForm(PortalForm):
    archivo = FileField(
        _l("Archivo XML sin firmar"),
        validators=[
            FileRequired(message=_l("Elegí un archivo XML.")),
            FileSize(max_size=SIGN_MAX_BYTES, message=_l("El archivo supera los 2 MB.")),
        ],
    )


class CollectionReferenceForm(PortalForm):
    referencia = StringField(
        _l("Referencia de cobro"),
        validators=[DataRequired(message=_l("Ingresá la referencia de cobro.")), Length(max=100)],
    )
    observacion = StringField(_l("Observación"), validators=[Length(max=200)])


class CancelForm(PortalForm):
    """Cancel a receipt with the credit note of its whole amount: the reason is printed on the note. The key,
    made when the page is shown, makes a second click (or a reload) return the same note."""

    idempotency_key = idempotency_key_field()
    razon = StringField(
        _l("Motivo"),
        validators=[DataRequired(message=_l("Escribí el motivo: se imprime en la nota de crédito.")), Length(max=90)],
    )


class ExchangeRetryForm(PortalForm):
    """Send again the receipt's envelope to its electronic receiver. The key, made when the page is shown, makes
    a second click (or a browser's retry) the same retry, not a second delivery."""

    idempotency_key = idempotency_key_field()
