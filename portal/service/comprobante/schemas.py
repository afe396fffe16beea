"""Request and response bodies of the Comprobante endpoints (the OpenAPI document is built from these)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    ValidationInfo,
    field_validator,
)

from portal.domain.cfe_types import CFC_NAMES, CFE_TYPES
from portal.domain.dgi_states import DGI_STATES
from portal.domain.receipt_numbers import MAX_TYPED, PATTERN, is_receipt_number
from portal.service.cfe.model_parts import ComplFiscal, Day, reject_control_chars
from portal.service.cfe.xmlchars import NOT_BLANK, text_pattern
from portal.service.comprobante.tracking_schemas import EstadoDgi, EstadoIntercambio, ResumenCorreo
from portal.service.platform.i18n import _
from portal.service.platform.paging import CURSOR_DESCRIPTION, CURSOR_PATTERN, Page
from portal.service.platform.pydantic_errors import PARAMETERS, refuse

# The codes a search filters by, as a JSON array for OpenAPI's enum: the CFE types and the keyed-in CFC (2xx).
_SEARCH_TYPES = sorted({*CFE_TYPES, *CFC_NAMES})
_CFE_TYPE_CODES: list[JsonValue] = [*_SEARCH_TYPES]


def _typed_number(value: str | None) -> str | None:
    if value and not is_receipt_number(value):
        raise refuse(*PARAMETERS["numero"])
    return value or None


# A receipt's serie and number as a person types them: one grammar for the issued and the received lists.
TypedNumber = Annotated[
    str | None,
    Field(
        max_length=MAX_TYPED,
        pattern=PATTERN,
        description="Serie y número como se escriba: A-15, A 0000015, A15, o solo 15.",
    ),
    AfterValidator(_typed_number),
]


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class CaeData(_Out):
    """The CAE that authorised the receipt's number."""

    cae_id: str = Field(alias="caeId", description="Número de CAE (11 dígitos).")
    dnro: int = Field(alias="dNro")
    hnro: int = Field(alias="hNro")
    vencimiento: date = Field(alias="fecVenc")


class Advertencia(_Out):
    codigo: str = Field(description="Código estable, p. ej. cae_por_agotarse.")
    mensaje: str


_PRINCIPAL = ComplFiscal.model_fields


class MandanteEmitido(_Out):
    """Venta por cuenta ajena: el mandante tal como se emitió (zona K), con los campos del complFiscal del pedido."""

    # The fields, in the order the stored request keeps them: emitir's plain path writes that dict as it is.
    tipo_doc_mdte: Literal[1, 2, 3, 4, 5, 6, 7] = Field(
        alias="tipoDocMdte", description=_PRINCIPAL["tipo_doc_mdte"].description
    )
    pais: str = Field(description=_PRINCIPAL["pais"].description)
    doc_mdte: str = Field(
        alias="docMdte", description="Documento del mandante (K-C4), sin puntos ni guiones para NIE, RUT y C.I."
    )
    nombre_mdte: str = Field(alias="nombreMdte", description=_PRINCIPAL["nombre_mdte"].description)


class CfeEmitido(_Out):
    """An issued, signed receipt."""

    id_cfe_emitido: str = Field(alias="idCfeEmitido")
    tipo_cfe: int = Field(alias="tipoCFE")
    serie: str
    nro: int
    fch_emis: date = Field(alias="fchEmis")
    tmst_firma: datetime = Field(alias="tmstFirma")
    tpo_moneda: str = Field(alias="tpoMoneda")
    receptor: dict | None = Field(None, description="El receptor tal como se emitió.")
    totales: dict = Field(description="Totales con los nombres de DGI (mntTotal, mntPagar, ...).")
    codigo_seguridad: str = Field(alias="codigoSeguridad", description="Primeros 6 caracteres del DigestValue.")
    url_qr: str = Field(alias="urlQR", description="URL de verificación de DGI codificada en el QR.")
    cae: CaeData
    estado_dgi: str = Field(
        alias="estadoDGI",
        description="Estado ante DGI (el detalle, en `dgi`): pendiente, "
        "en_sobre, recibido, aceptado, rechazado, observado, "
        "sobre_rechazado, pendiente_reporte, en_reporte.",
    )
    dgi: EstadoDgi | None = Field(None, description="El camino a DGI: estado, motivos, sobre, reporte, fechas.")
    intercambio: EstadoIntercambio | None = Field(
        None,
        description="El camino al receptor electrónico (intercambio entre empresas): estado, motivos del receptor, "
        "sobre, nota correctiva; ausente si el receptor no es emisor electrónico.",
    )
    corrige_rechazo_comercial: str | None = Field(
        None,
        alias="corrigeRechazoComercial",
        description="En una nota de crédito: idCfeEmitido del comprobante cuyo rechazo comercial corrige.",
    )
    referencia_cobro: str | None = Field(None, alias="referenciaCobro")
    creado_por: str = Field(alias="creadoPor")
    creado_en: datetime = Field(alias="creadoEn")
    advertencias: list[Advertencia] = Field(default_factory=list)
    historial_referencias: list[CambioReferencia] = Field(
        default_factory=list,
        alias="historialReferencias",
        description="Cada aplicación de una referencia de cobro, la más reciente primero.",
    )
    fma_pago: int | None = Field(None, alias="fmaPago", description="Forma de pago: 1 contado, 2 crédito.")
    fch_venc: date | None = Field(None, alias="fchVenc", description="Vencimiento del pago.")
    tipo_traslado: int | None = Field(None, alias="tipoTraslado", description="e-Remito: 1 venta, 2 traslado interno.")
    clau_venta: str | None = Field(
        None, alias="clauVenta", description="Exportación: la cláusula de venta (Incoterm o N/A) con que se emitió."
    )
    mod_venta: int | None = Field(None, alias="modVenta", description="Exportación: la modalidad de venta.")
    via_transp: int | None = Field(None, alias="viaTransp", description="Exportación: la vía de transporte.")
    compl_fiscal: MandanteEmitido | None = Field(
        None, alias="complFiscal", description="Venta por cuenta ajena: el mandante tal como se emitió (zona K)."
    )
    mnt_bruto: int | None = Field(
        None,
        alias="mntBruto",
        description="MntBruto de DGI: 1 si los precios incluyen IVA, 3 si son ventas de un "
        "contribuyente de IVA mínimo o Monotributo; ausente con precios netos.",
    )
    tpo_cambio: Decimal | None = Field(None, alias="tpoCambio")
    items: list[dict] = Field(
        default_factory=list, description="Las líneas tal como se emitieron (nomItem, cantidad, precioUnitario, ...)."
    )
    dsc_rcg_global: list[dict] = Field(default_factory=list, alias="dscRcgGlobal")
    medios_pago: list[dict] = Field(default_factory=list, alias="mediosPago")
    info_adicional_doc: str | None = Field(None, alias="infoAdicionalDoc")
    adenda: str | None = None
    referencias: list[ReferenciaEmitida] = Field(
        default_factory=list,
        description="Los comprobantes que esta nota ajusta (zona F), con su idCfeEmitido "
        "cuando los emitió esta empresa.",
    )
    notas: list[NotaRelacionada] = Field(
        default_factory=list, description="Las notas de crédito y débito que refieren este comprobante."
    )
    saldo_acreditable: Decimal | None = Field(
        None,
        alias="saldoAcreditable",
        description="Lo que una nota de crédito puede acreditar todavía: el total menos las notas de crédito "
        "ya emitidas. Solo en comprobantes que admiten nota de crédito.",
    )
    enlaces: dict = Field(description="xml y pdf: la misma URL con Accept application/xml o application/pdf.")
    correo: ResumenCorreo | None = Field(
        None,
        description="Los envíos por correo: cuántos y el más reciente (todos, en GET /api/v1/correo/comprobante/"
        "{id}/envios); ausente si nunca se envió. Solo en getByIdCfeEmitido.",
    )


class ReferenciaEmitida(_Out):
    """A reference line of a note, as issued; idCfeEmitido when the receipt it names is this company's."""

    tpo_doc_ref: int | None = Field(None, alias="tpoDocRef")
    serie: str | None = None
    nro_cfe_ref: int | None = Field(None, alias="nroCFERef")
    razon_ref: str | None = Field(None, alias="razonRef")
    fecha_cfe_ref: date | None = Field(None, alias="fechaCFEref")
    mnt_cfe_ref: Decimal | None = Field(None, alias="mntCFEref")
    tpo_moneda_ref: str | None = Field(None, alias="tpoMonedaRef")
    ind_global: int | None = Field(None, alias="indGlobal")
    id_cfe_emitido: str | None = Field(None, alias="idCfeEmitido")


class NotaRelacionada(_Out):
    """A credit or debit note that refers to the receipt."""

    id_cfe_emitido: str = Field(alias="idCfeEmitido")
    tipo_cfe: int = Field(alias="tipoCFE")
    serie: str
    nro: int
    fch_emis: date = Field(alias="fchEmis")
    tpo_moneda: str = Field(alias="tpoMoneda")
    mnt_total: Decimal = Field(alias="mntTotal")
    monto_aplicado: Decimal = Field(
        alias="montoAplicado", description="Parte del total de la nota que se imputa a este comprobante."
    )


class PreviewLink(_Out):
    """A short-lived link to a preview PDF."""

    token: str
    url: str
    expires_at: datetime = Field(alias="expiresAt")


_FORMATO = (
    "Papel del PDF: a4, o rollo térmico de 80mm o 57mm (solo e-Ticket y sus notas, 101 a 103 y 131 a 133). "
    "Por "
    "defecto, el formato configurado por la empresa (A4 si es un rollo y el tipo no lo admite)."
)


class GetByIdQuery(BaseModel):
    id_cfe_emitido: str = Field(
        alias="idCfeEmitido", min_length=1, max_length=40, description="El idCfeEmitido que devolvió emitir."
    )
    formato: Literal["a4", "80mm", "57mm"] | None = Field(None, description=_FORMATO)
    bilingue: bool | None = Field(
        None,
        description="PDF A4 con las etiquetas en español e inglés (las leyendas fiscales quedan como las escribe "
        "DGI). Por defecto, bilingüe si el receptor es del exterior (país del documento distinto de UY).",
    )


class PreviewQuery(BaseModel):
    formato: Literal["a4", "80mm", "57mm"] | None = Field(None, description=_FORMATO)


class ReaplicarReferencia(BaseModel):
    """Link an issued receipt to a collection (payment) reference, again."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        str_strip_whitespace=True,
        json_schema_extra={
            "examples": [
                {
                    "idCfeEmitido": "3f2a9c0e5b9d4e0fa1c2d3e4f5a6b7c8",
                    "referenciaCobro": "COB-2026-000123",
                    "observacion": "Pago por transferencia",
                }
            ]
        },
    )

    id_cfe_emitido: str = Field(alias="idCfeEmitido", min_length=1, max_length=40, pattern=NOT_BLANK)
    referencia_cobro: str = Field(
        alias="referenciaCobro",
        min_length=1,
        max_length=100,
        pattern=NOT_BLANK,
        description="Identificador del cobro en el sistema de cobranza.",
    )
    observacion: str | None = Field(None, max_length=200)


class CambioReferencia(_Out):
    referencia_anterior: str | None = Field(alias="referenciaAnterior")
    referencia_cobro: str = Field(alias="referenciaCobro")
    observacion: str | None = None
    por: str
    en: datetime


class ReferenciaAplicada(_Out):
    """The receipt's collection reference after the call, and its history (newest first)."""

    id_cfe_emitido: str = Field(alias="idCfeEmitido")
    referencia_cobro: str = Field(alias="referenciaCobro")
    cambio: bool = Field(description="false cuando la referencia ya estaba aplicada (repetir es inocuo).")
    historial: list[CambioReferencia]


class NotaCreditoTotal(BaseModel):
    """Cancel a receipt with the credit note of its whole amount."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        str_strip_whitespace=True,
        json_schema_extra={
            "examples": [{"idCfeEmitido": "3f2a9c0e5b9d4e0fa1c2d3e4f5a6b7c8", "razon": "Factura emitida por error"}]
        },
    )

    id_cfe_emitido: str = Field(
        alias="idCfeEmitido", min_length=1, max_length=40, pattern=NOT_BLANK, description="El comprobante a anular."
    )
    razon: Annotated[str, BeforeValidator(reject_control_chars)] = Field(
        min_length=1,
        max_length=90,
        description="Motivo (RazonRef); se imprime en la nota.",
        json_schema_extra={"pattern": text_pattern()},
    )
    fch_emis: Day | None = Field(None, alias="fchEmis", description="Fecha de la nota; por defecto hoy.")


class BorradorNotaQuery(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id_cfe_emitido: str = Field(
        alias="idCfeEmitido", min_length=1, max_length=40, description="El comprobante que la nota ajusta."
    )
    tipo: str = Field(
        json_schema_extra={"enum": ["credito", "debito"], "examples": ["credito"]},
        description="credito (nota de crédito parcial) o debito (nota de débito).",
    )

    @field_validator("tipo")
    @classmethod
    def _kind(cls, value: str) -> str:
        if value not in ("credito", "debito"):
            raise refuse("tipo_invalido", _("Se espera credito o debito."))
        return value


class BorradorNota(_Out):
    """A note ready to edit and send to emitir: the original's receiver, currency, rate and lines, and the
    reference to it filled in."""

    borrador: dict = Field(description="Cuerpo para emitir (mismo formato que POST emitir).")
    saldo_acreditable: Decimal | None = Field(
        None, alias="saldoAcreditable", description="Máximo que puede acreditar una nota de crédito."
    )
    id_cfe_original: str = Field(alias="idCfeOriginal")


class BuscarQuery(BaseModel):
    """Filters of the receipt list; all optional and combined with AND."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=True)

    desde: Day | None = Field(None, description="Fecha de emisión desde (inclusive), AAAA-MM-DD.")
    hasta: Day | None = Field(None, description="Fecha de emisión hasta (inclusive), AAAA-MM-DD.")
    tipo_cfe: int | None = Field(
        None,
        alias="tipoCFE",
        json_schema_extra={"enum": _CFE_TYPE_CODES},
        description="Tipo de CFE o de CFC (contingencia, 2xx), p. ej. 111 o 211.",
    )
    numero: TypedNumber = None
    receptor: str | None = Field(
        None,
        min_length=1,
        max_length=150,
        description="Comienzo del documento (con o sin puntos y guiones) o del nombre "
        "del receptor; sin distinguir mayúsculas ni tildes.",
    )
    monto_desde: Decimal | None = Field(
        None,
        alias="montoDesde",
        ge=0,
        max_digits=17,
        decimal_places=2,
        description="Monto total desde (inclusive), en la moneda del comprobante.",
    )
    monto_hasta: Decimal | None = Field(
        None, alias="montoHasta", ge=0, max_digits=17, decimal_places=2, description="Monto total hasta (inclusive)."
    )
    moneda: str | None = Field(None, pattern=r"^[A-Z]{3}$", description="Moneda ISO 4217, p. ej. UYU o USD.")
    estado_dgi: str | None = Field(
        None,
        alias="estadoDGI",
        json_schema_extra={"enum": list(DGI_STATES)},
        description="Estado ante DGI: " + ", ".join(DGI_STATES) + ".",
    )
    referencia: str | None = Field(
        None, max_length=255, description="El X-Request-ID o la Idempotency-Key con que se emitió."
    )
    cursor: str | None = Field(None, max_length=200, pattern=CURSOR_PATTERN, description=CURSOR_DESCRIPTION)
    limite: int = Field(50, ge=1, le=200, description="Comprobantes por página (50 si no se indica, hasta 200).")
    formato: Literal["json", "csv", "xlsx", "zip"] | None = Field(
        None,
        description="json (una página), csv o xlsx (todos los que cumplen los filtros), zip (el XML firmado de cada "
        "uno, tal como se firmó); sin él, lo decide Accept.",
    )

    @field_validator("tipo_cfe")
    @classmethod
    def _type(cls, value: int | None) -> int | None:
        if value is not None and value not in _SEARCH_TYPES:
            raise refuse(
                "tipo_invalido",
                _("Tipo de CFE desconocido; se espera {expected}.", expected=", ".join(map(str, _SEARCH_TYPES))),
            )
        return value

    @field_validator("estado_dgi")
    @classmethod
    def _state(cls, value: str | None) -> str | None:
        if value and value not in DGI_STATES:
            raise refuse(
                "estado_invalido", _("Estado desconocido; se espera {expected}.", expected=", ".join(DGI_STATES))
            )
        return value or None

    # On the range's upper end, so the error names a query parameter (a model-level error names none).
    @field_validator("hasta")
    @classmethod
    def _day_range(cls, value: date | None, info: ValidationInfo) -> date | None:
        if value and info.data.get("desde") and info.data["desde"] > value:
            raise refuse("rango_invalido", _("La fecha desde es posterior a la fecha hasta."))
        return value

    @field_validator("monto_hasta")
    @classmethod
    def _amount_range(cls, value: Decimal | None, info: ValidationInfo) -> Decimal | None:
        if value is not None and info.data.get("monto_desde") is not None and info.data["monto_desde"] > value:
            raise refuse("rango_invalido", _("El monto desde es mayor que el monto hasta."))
        return value


class ReceptorResumen(_Out):
    doc_recep: str | None = Field(None, alias="docRecep")
    rzn_soc_recep: str | None = Field(None, alias="rznSocRecep")


class NotaAnuladora(_Out):
    """The credit note that completed a receipt's cancellation."""

    id_cfe_emitido: str = Field(alias="idCfeEmitido")
    tipo_cfe: int = Field(alias="tipoCFE")
    numero: str = Field(description="Serie y número como se imprimen, p. ej. A-0000016.")


class ResumenCfe(_Out):
    """One receipt of the list."""

    id_cfe_emitido: str = Field(alias="idCfeEmitido")
    tipo_cfe: int = Field(alias="tipoCFE")
    serie: str
    nro: int
    numero: str = Field(description="Serie y número como se imprimen, p. ej. A-0000015.")
    fch_emis: date = Field(alias="fchEmis")
    tpo_moneda: str = Field(alias="tpoMoneda")
    mnt_total: Decimal = Field(alias="mntTotal")
    mnt_pagar: Decimal = Field(alias="mntPagar")
    receptor: ReceptorResumen | None = None
    estado_dgi: str = Field(alias="estadoDGI")
    solicitud: str | None = Field(None, description="X-Request-ID de la solicitud que lo emitió.")
    creado_en: datetime = Field(alias="creadoEn")
    importe: Decimal = Field(
        description="Lo que el comprobante representa en la lista: su monto total, negativo en las notas de crédito "
        "(como restan en las ventas netas de `totales`); el total retenido en un e-Resguardo."
    )
    anulado: bool = Field(
        False, description="Verdadero si sus notas de crédito acreditan todo su monto total (comprobante anulado)."
    )
    anulado_por: NotaAnuladora | None = Field(
        None, alias="anuladoPor", description="La nota de crédito que completó la anulación (la última emitida)."
    )


class TotalMoneda(_Out):
    """Las ventas netas en una moneda: los tipos del libro de ventas (e-Ticket, e-Factura, de exportación, por
    cuenta ajena, y sus papeles de contingencia), las notas de crédito restando. Un e-Remito, un e-Resguardo o una
    e-Boleta de entrada (una compra) no son ventas: no suman, y una moneda sin ventas no aparece."""

    moneda: str
    cantidad: int = Field(description="Cuántas ventas y notas de esa moneda se sumaron.")
    mnt_total: Decimal = Field(alias="mntTotal", description="Suma de sus montos totales; las notas de crédito restan.")


class ResultadoBusqueda(Page[ResumenCfe]):
    """A page of the company's receipts, newest first, and the totals of everything the filters match."""

    total: int = Field(
        description="Cuántos comprobantes cumplen los filtros (todas las páginas); con totalAcotado, más de "
        "esa cantidad."
    )
    total_acotado: bool = Field(
        False,
        alias="totalAcotado",
        description="true: cumplen más de `total` comprobantes y no se suman (`totales` vacío); filtrar más "
        "(fechas, tipo, receptor) da la cantidad exacta y las sumas.",
    )
    totales: list[TotalMoneda] = Field(
        description="Cantidad y suma por moneda de todos los que cumplen (vacío con totalAcotado)."
    )


CfeEmitido.model_rebuild()
