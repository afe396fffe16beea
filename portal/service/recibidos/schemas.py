"""Request and response bodies of the recibidos endpoints."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from portal.domain.commercial_motives import AGREED_GLOSA, CODES, MOTIVES, is_agreed
from portal.service.comprobante.schemas import TypedNumber
from portal.service.platform.api import MAX_PATH_INTEGER
from portal.service.platform.i18n import _
from portal.service.platform.jsontypes import WHOLE_NUMBER
from portal.service.platform.pydantic_errors import refuse
from portal.service.recibidos.motives import said_detail, said_motive

ESTADOS = ("aceptado", "rechazado", "pendiente", "rechazado_comercial", "rechazado_dgi")


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class VerQuery(BaseModel):
    """How one received CFE is answered."""

    model_config = ConfigDict(extra="forbid")

    formato: Literal["json", "xml", "pdf"] | None = Field(
        None,
        description="json, xml (el CFE firmado tal como llegó) o pdf (su representación impresa). Sin él, lo "
        "decide el encabezado Accept (application/json, application/xml o application/pdf); JSON si no dice nada.",
    )

    @field_validator("formato", mode="before")
    @classmethod
    def _known(cls, value: object) -> object:
        if value is not None and value not in ("json", "xml", "pdf"):  # pydantic's enum error: its code and message
            raise PydanticCustomError(
                "enum", "Valor no permitido (se espera {expected}).", {"expected": "'json', 'xml' or 'pdf'"}
            )
        return value


class RecibidosFiltros(BaseModel):
    """Filters of the received CFEs (combined with AND): the list's, and what booking by filters takes."""

    proveedor: str | None = Field(
        None, max_length=150, description="RUT del proveedor (12 dígitos) o el comienzo de su razón social."
    )
    tipo: int | None = Field(None, ge=100, le=999, description="Tipo de CFE (111 e-Factura, 101 e-Ticket...).")
    numero: TypedNumber = None
    desde: date | None = Field(None, description="Fecha de emisión desde (inclusive).")
    hasta: date | None = Field(None, description="Fecha de emisión hasta (inclusive).")
    monto_desde: Decimal | None = Field(None, alias="montoDesde", ge=0)
    monto_hasta: Decimal | None = Field(None, alias="montoHasta", ge=0)
    moneda: str | None = Field(None, pattern=r"^[A-Z]{3}$")
    estado: Literal[ESTADOS] | None = Field(  # type: ignore[valid-type]
        None,
        description="aceptado (AE), rechazado (BE al recibirlo), pendiente (AE sin decisión comercial), "
        "rechazado_comercial (rechazado por la empresa, E20-E60) o rechazado_dgi (DGI lo rechazó).",
    )

    model_config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=True)

    # On each range's upper end, so the error names a query parameter (a model-level error names none).
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


class RecibidosQuery(RecibidosFiltros):
    """The list's query: its filters, booked or not, and the page."""

    contabilizado: bool | None = Field(None, description="Solo los contabilizados (true) o los que no (false).")
    cursor: str | None = Field(None, max_length=200, description="El `siguienteCursor` de la página anterior.")
    limite: int = Field(50, ge=1, le=200)

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"proveedor": "2110", "numero": "A-15", "contabilizado": False}]},
    )


class MotivoRecepcion(_Out):
    codigo: str
    glosa: str = Field(description="El texto de DGI para el código, como DGI lo define (en español).")
    texto: str = Field(description="El motivo en el idioma de Accept-Language, según su código.")
    detalle: str | None = Field(None, description="Nuestro detalle, en el idioma de Accept-Language.")

    @classmethod
    def of(cls, entry: dict) -> MotivoRecepcion:
        """A stored motive (recibidos.motives.motive) with its text and detail said in the request's language."""
        glosa = entry.get("glosa") or ""
        return cls(
            codigo=entry["codigo"], glosa=glosa, texto=said_motive(entry["codigo"], glosa), detalle=said_detail(entry)
        )


class Respuesta(_Out):
    """One of our answers to the supplier (ACKSobre or ACKCFE) and its delivery."""

    id: int = Field(
        description="El número de la respuesta: su IDRespuesta, propio de la empresa (de uno en uno, nunca "
        "compartido con otra); descarga el documento en /recibidos/{id}/respuestas/{id de la respuesta}."
    )
    tipo: str = Field(description="ACKSobre o ACKCFE.")
    responde_a: Literal["recepcion", "decision"] = Field(
        alias="respondeA",
        description="recepcion: lo que se respondió al llegar el sobre (ACKSobre, y el ACKCFE de cada CFE: AE o BE); "
        "decision: el segundo ACKCFE, con la aceptación o el rechazo comercial de la empresa.",
    )
    canal: str = Field(description="ws, correo, api o portal: por donde llegó el sobre.")
    estado: str = Field(description="en_cola, enviando, enviado, fallido o sin_destino.")
    intentos: int
    error: str | None = None
    creada_en: datetime = Field(alias="creadaEn")
    enviada_en: datetime | None = Field(None, alias="enviadaEn")
    enviada_por: str | None = Field(None, alias="enviadaPor")


class Recibido(_Out):
    """A received CFE as listed."""

    id: int
    rut_emisor: str | None = Field(alias="rutEmisor")
    nombre_emisor: str | None = Field(alias="nombreEmisor")
    tipo_cfe: int | None = Field(alias="tipoCFE")
    serie: str | None
    nro: int | None
    fecha: date | None
    moneda: str | None
    total: Decimal | None
    a_pagar: Decimal | None = Field(alias="aPagar")
    estado: str = Field(description="AE o BE: la respuesta automática al recibirlo.")
    motivos: list[MotivoRecepcion]
    decision: str | None = Field(description="aceptado o rechazado (decisión comercial), o null.")
    rechazado_dgi: bool = Field(alias="rechazadoDgi")
    contabilizado: bool
    contabilizable: bool = Field(
        description="Si se puede marcar como contabilizado: aceptado al recibirlo y no rechazado por la empresa ni "
        "por DGI (lo que cuenta en el libro de compras)."
    )
    recibido_en: datetime = Field(alias="recibidoEn")


class TotalMonedaRecibidos(_Out):
    moneda: str
    cantidad: int
    total: Decimal


class PaginaRecibidos(_Out):
    items: list[Recibido]
    siguiente_cursor: str | None = Field(alias="siguienteCursor")
    totales: list[TotalMonedaRecibidos]
    sin_contabilizar: int = Field(
        alias="sinContabilizar",
        description="Cuántos de los que cumplen los filtros (todas las páginas) se pueden contabilizar y no lo están.",
    )
    sin_contabilizar_hasta: int | None = Field(
        alias="sinContabilizarHasta",
        description="El id más alto de esos (null si no hay ninguno): mandalo como `hastaId` a "
        "POST /recibidos/contabilizar-filtrados para marcar los que se contaron, no los que lleguen después.",
    )


class Linea(_Out):
    numero: int
    nombre: str
    cantidad: Decimal | None
    unidad: str | None
    precio_unitario: Decimal | None = Field(alias="precioUnitario")
    monto: Decimal | None
    ind_fact: int | None = Field(alias="indFact")


class RecibidoCompleto(Recibido):
    """A received CFE with its lines, totals, adenda, decision and our answers."""

    lineas: list[Linea]
    totales: dict[str, Decimal]
    tipo_cambio: Decimal | None = Field(
        alias="tipoCambio", description="El tipo de cambio que el CFE firmó (TpoCambio); null en pesos."
    )
    total_pesos: Decimal | None = Field(
        alias="totalPesos",
        description="MntTotal en pesos a ese tipo de cambio, al centésimo: lo que lleva el libro de compras. Null "
        "en pesos.",
    )
    adenda: str | None
    sobre_id: int = Field(
        alias="sobreId",
        description="Nuestro número del sobre que lo trajo: el IDReceptor de nuestras respuestas, propio de la "
        "empresa (de uno en uno, nunca compartido con otra).",
    )
    canal: str
    motivo_decision: MotivoRecepcion | None = Field(alias="motivoDecision")
    decidido_en: datetime | None = Field(alias="decididoEn")
    decidido_por: str | None = Field(alias="decididoPor")
    contabilizado_en: datetime | None = Field(alias="contabilizadoEn")
    respuestas: list[Respuesta]


class ResultadoSobre(_Out):
    """What became of one uploaded envelope."""

    archivo: str
    sobre_id: int = Field(
        alias="sobreId",
        description="Nuestro número del sobre: el IDReceptor de nuestras respuestas, propio de la empresa "
        "(de uno en uno, nunca compartido con otra).",
    )
    estado: str = Field(description="AS (recibido) o BS (rechazado).")
    motivos: list[MotivoRecepcion]
    aceptados: int
    rechazados: int
    recibidos: list[int] = Field(description="Los id de los CFE guardados.")
    rut_emisor: str | None = Field(
        alias="rutEmisor", description="El RUT de quien lo envió; null si el sobre es tan ilegible que no lo dice."
    )
    destino_respuesta: Literal["servicio_web", "correo"] | None = Field(
        alias="destinoRespuesta",
        description="Por dónde le llegan al emisor nuestras respuestas (ACKSobre, y ACKCFE si se recibió), como "
        "las enviará el servicio según el directorio de emisores electrónicos de DGI de hoy: a su servicio web de "
        "intercambio o, si no tiene, a su correo de intercambio. null: no hay a quién responder (no se pudo saber "
        "quién lo envió, o el directorio no lista un servicio web ni un correo de intercambio de ese RUT); las "
        "respuestas quedan guardadas, sin destino.",
    )


class ResultadoCarga(_Out):
    sobres: list[ResultadoSobre]


class Rechazar(BaseModel):
    """A commercial rejection, sent to the supplier as a second ACKCFE."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"motivo": "E24", "detalle": "El precio acordado era $ 140 por caja."}]},
    )

    motivo: Literal[CODES] = Field(  # type: ignore[valid-type]
        description=", ".join(f"{code} {MOTIVES[code].words.es}" for code in CODES if not is_agreed(code))
        + f", E27-E60 {AGREED_GLOSA.lower()} (el detalle es obligatorio). El ACKCFE firmado lleva la glosa de DGI."
    )
    detalle: str | None = Field(None, max_length=500, description="El motivo en palabras, para el proveedor.")


class ResumenRecibidos(_Out):
    """The day at a glance of the received CFEs."""

    model_config = ConfigDict(
        populate_by_name=True, json_schema_extra={"examples": [{"recibidosHoy": 12, "sinContabilizar": 40}]}
    )

    recibidos_hoy: int = Field(alias="recibidosHoy", description="CFE recibidos hoy (hora de Montevideo).")
    sin_contabilizar: int = Field(
        alias="sinContabilizar", description="CFE recibidos y aceptados que todavía no se marcaron como contabilizados."
    )


# How many received CFEs one call books: a month's purchases of a busy company, one page of the portal's list many
# times over, and one write transaction that stays short.
BOOK_MANY_LIMIT = 500


def _once_each(ids: list[int]) -> list[int]:
    if len(set(ids)) != len(ids):
        raise refuse("ids_repetidos", _("Cada id va una sola vez."))
    return ids


_ReceivedId = Annotated[StrictInt, Field(ge=1, le=MAX_PATH_INTEGER), WHOLE_NUMBER]


def _ids(limit: int):  # noqa: ANN202 - pydantic's FieldInfo, typed as the field's value
    return Field(
        min_length=1, max_length=limit, description=f"Los id de los CFE recibidos (de 1 a {limit}, sin repetir)."
    )


class ContabilizarVarios(BaseModel):
    """Received CFEs to mark as booked at once (an accountant's month)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"ids": [12, 13, 17]}]})

    ids: list[_ReceivedId] = _ids(BOOK_MANY_LIMIT)

    _repeated = field_validator("ids")(_once_each)


class _NoHecho(_Out):
    """A received CFE of a call on several that stays as it was, and why (the 409 the one-by-one call answers)."""

    id: int
    tipo_cfe: int | None = Field(alias="tipoCFE")
    serie: str | None
    nro: int | None
    mensaje: str = Field(description="Por qué, en el idioma de Accept-Language.")


class NoContabilizable(_NoHecho):
    codigo: str = Field(description="`no_contabilizable`: rechazado al recibirlo, comercialmente o por DGI.")


class ContabilizadosVarios(_Out):
    """What a call to book several received CFEs did: each id is in one of the three lists."""

    contabilizados: list[int] = Field(description="Marcados como contabilizados (los que ya lo estaban también).")
    no_contabilizables: list[NoContabilizable] = Field(alias="noContabilizables")
    inexistentes: list[int] = Field(description="No existen o son de otra empresa.")


# How many received CFEs one call rejects: each is a signed ACKCFE made in the one write transaction, so far fewer
# than a booking's; two pages of the portal's list.
REJECT_MANY_LIMIT = 100


class RechazarVarios(Rechazar):
    """Several received CFEs to reject commercially with one motive: each one is answered to its supplier as a
    rejection of it alone."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"ids": [12, 13], "motivo": "E21", "detalle": "Llegaron mojadas."}]},
    )

    ids: list[_ReceivedId] = _ids(REJECT_MANY_LIMIT)

    _repeated = field_validator("ids")(_once_each)


class NoRechazable(_NoHecho):
    codigo: str = Field(
        description="`ya_decidido`: ya fue aceptado o rechazado (el mensaje dice cuándo); `recibido_rechazado`: fue "
        "rechazado al recibirlo (BE); `rechazado_por_dgi`: DGI lo rechazó; `recibido_contabilizado`: está marcado "
        "como contabilizado."
    )


class RechazadosVarios(_Out):
    """What a call to reject several received CFEs did: each id is in one of the three lists."""

    rechazados: list[int] = Field(description="Rechazados ahora: a cada proveedor se le envía su ACKCFE (BE).")
    no_rechazables: list[NoRechazable] = Field(alias="noRechazables")
    inexistentes: list[int] = Field(description="No existen o son de otra empresa.")


# How many received CFEs one call by filters books: a busy company's month in one call, in one UPDATE that keeps the
# write transaction short; a caller told that some remain calls again.
BOOK_FILTERED_LIMIT = 10_000


class ContabilizarFiltrados(RecibidosFiltros):
    """Book every received CFE the list's filters match (an accountant's month: `desde` and `hasta`)."""

    hasta_id: int | None = Field(
        None,
        alias="hastaId",
        ge=1,
        le=MAX_PATH_INTEGER,
        description="Solo hasta este id: el `sinContabilizarHasta` de la lista que se miró, para no marcar los CFE "
        "que llegaron después. Sin él, todos los que cumplen los filtros ahora.",
    )

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"desde": "2026-10-01", "hasta": "2026-10-31", "hastaId": 4512}]},
    )


class ContabilizadosFiltrados(_Out):
    """What booking by filters did."""

    contabilizados: int = Field(description="Cuántos quedaron marcados con esta llamada (los que ya lo estaban no).")
    quedan: int = Field(
        description=f"Cuántos cumplen los filtros y siguen sin contabilizar porque pasaban de {BOOK_FILTERED_LIMIT} "
        "por llamada: llamá de nuevo."
    )


class CorreoNoRecibido(_Out):
    """A message of the exchange mailbox that was read and set aside: nothing of it was received."""

    remitente: str | None = Field(description="La dirección del From (o Reply-To) del mensaje, como vino.")
    leido_en: datetime = Field(alias="leidoEn", description="Cuándo se leyó del buzón.")
    archivo: str | None = Field(description="El adjunto que no se pudo recibir, cuando el motivo es de uno solo.")
    motivo: str = Field(
        description="muy_grande, demasiados (documentos), ilegible, error_interno, respuesta (a un sobre nuestro), "
        "aviso_dgi o sobre_rechazado (BS, y se le avisó al proveedor)."
    )
    texto: str = Field(description="El motivo en palabras, en el idioma de Accept-Language.")


class CorreosNoRecibidos(_Out):
    items: list[CorreoNoRecibido] = Field(description="Los de los últimos 30 días, el más nuevo primero (hasta 100).")
