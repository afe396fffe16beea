"""What each event's `data` carries, and the body a webhook receives around it (webhooks/delivery.py's `body_of`).

One model per event of the catalogue, with the field names the publishers write (integrators depend on them:
`idCfe`, `tipoCfe`, `estadoDgi`, the CAE concern's `tipoCFE`). Published in the OpenAPI document's `webhooks`
section; tests/integration/test_eventos_payloads.py validates what every publisher sends against them, with no
field more or less. The descriptions are the document's (Spanish).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator


class _Data(BaseModel):
    # Fields are snake_case here and camelCase on the wire (`id_cfe` is `idCfe`), as in the rest of the service.
    model_config = ConfigDict(extra="forbid", strict=True)


class DgiMotive(_Data):
    """Un motivo de rechazo, con su código y el texto que lo acompañó."""

    codigo: str = Field(description="Código del motivo (p. ej. E24).")
    glosa: str | None = Field(description="Texto del motivo, si lo hubo.")


# --- a receipt of the company's (comprobante.*) --------------------------------------------------------------


class ReceiptData(_Data):
    """Un comprobante emitido: quién es y su estado ante DGI, nada más (el resto se pide a la API con `idCfe`)."""

    id_cfe: str = Field(
        alias="idCfe", description="Identificador del comprobante en el servicio (`GET /api/v1/cfe/{idCfe}`)."
    )
    tipo_cfe: int = Field(alias="tipoCfe", description="Tipo de CFE (101 e-Ticket, 111 e-Factura...).", examples=[111])
    serie: str = Field(description="Serie del comprobante.", examples=["A"])
    nro: int = Field(description="Número del comprobante en su serie.", examples=[1234])
    fch_emis: date = Field(alias="fchEmis", description="Fecha de emisión (AAAA-MM-DD).")
    estado_dgi: str = Field(
        alias="estadoDgi",
        description="Estado ante DGI en el momento del evento: pendiente, en_sobre, recibido, aceptado, rechazado, "
        "observado, sobre_rechazado, pendiente_reporte o en_reporte.",
    )


class ReceiptIssued(ReceiptData):
    """Datos de `comprobante.emitido`: el comprobante recién firmado y numerado, aún sin respuesta de DGI."""


class _Verdict(ReceiptData):
    motivos: list[str] = Field(description="Códigos de los motivos de DGI (vacía si no dio ninguno).")


class ReceiptAccepted(_Verdict):
    """Datos de `comprobante.aceptado`: DGI aceptó el comprobante (AE)."""

    estado_dgi: Literal["aceptado"] = Field(alias="estadoDgi", description="Siempre `aceptado`.")


class ReceiptRejected(_Verdict):
    """Datos de `comprobante.rechazado`: DGI rechazó el comprobante (BE); su número quedó anulado."""

    estado_dgi: Literal["rechazado"] = Field(alias="estadoDgi", description="Siempre `rechazado`.")


class ReceiptObserved(_Verdict):
    """Datos de `comprobante.observado`: DGI observó el comprobante (CE)."""

    estado_dgi: Literal["observado"] = Field(alias="estadoDgi", description="Siempre `observado`.")


# --- what DGI refused whole ----------------------------------------------------------------------------------


class EnvelopeRejected(_Data):
    """Datos de `sobre.rechazado`: DGI rechazó un sobre entero; sus comprobantes no llegaron."""

    id_sobre: int = Field(alias="idSobre", description="Identificador del sobre en el servicio.")
    id_emisor: int = Field(alias="idEmisor", description="Número del sobre para DGI (IdEmisor).")
    estado: str = Field(description="Respuesta de DGI al sobre: BS (rechazado) o BA.", examples=["BS"])
    motivos: list[str] = Field(description="Códigos de los motivos de DGI (S01...).", examples=[["S02"]])
    cantidad_cfe: int = Field(alias="cantidadCfe", description="Cuántos comprobantes llevaba el sobre.")


class ReportRejected(_Data):
    """Datos de `reporte.rechazado`: DGI rechazó el reporte diario de un día."""

    id_reporte: int = Field(alias="idReporte", description="Identificador del reporte en el servicio.")
    fecha: date = Field(description="Día que informa el reporte (AAAA-MM-DD).")
    sec_envio: int = Field(alias="secEnvio", description="Secuencia del envío de ese día (SecEnvio).")
    estado: str = Field(description="Respuesta de DGI al reporte: BR (rechazado) o BA.", examples=["BR"])
    motivos: list[str] = Field(description="Códigos de los motivos de DGI (R01...).")


# --- the compliance watch ------------------------------------------------------------------------------------

_CONCERN_STATE = "Gravedad: `warning` (atender pronto) o `problem` (impide o impedirá emitir)."


class CaeRunningOut(_Data):
    """Datos de `cae.por_agotarse`: un rango de CAE se agota o vence (al cambiar de gravedad o de umbral)."""

    clave: str = Field(description="Clave del aviso: `cae:` y el identificador del rango.", examples=["cae:12"])
    estado: Literal["warning", "problem"] = Field(description=_CONCERN_STATE)
    id_rango: int = Field(alias="idRango", description="Identificador del rango de CAE.")
    tipo_cfe: int = Field(alias="tipoCFE", description="Tipo de CFE que numera el rango (así escrito: `tipoCFE`).")
    serie: str = Field(description="Serie del rango.")
    restantes: int = Field(description="Números sin usar.")
    usados_ultimos30_dias: int = Field(
        alias="usadosUltimos30Dias", description="Números usados en los últimos 30 días."
    )
    dias_de_uso: float | None = Field(
        alias="diasDeUso",
        description="Días que duran los restantes al ritmo de los últimos 30 días (null si no se usó).",
    )
    dias_para_vencer: int = Field(
        alias="diasParaVencer", description="Días hasta el vencimiento del rango (negativo: ya venció)."
    )


class CertificateExpiring(_Data):
    """Datos de `certificado.por_vencer`: el certificado de firma vence pronto, venció o falta."""

    clave: Literal["certificado"] = Field(description="Clave del aviso: siempre `certificado`.")
    estado: Literal["warning", "problem"] = Field(description=_CONCERN_STATE)
    dias_restantes: int | None = Field(
        None,
        alias="diasRestantes",
        description="Días hasta el vencimiento (negativo: ya venció). Ausente si la empresa no tiene certificado.",
    )
    vence: date | None = Field(
        None, description="Día del vencimiento (AAAA-MM-DD). Ausente si la empresa no tiene certificado."
    )

    @model_validator(mode="after")
    def _both_or_neither(self) -> CertificateExpiring:
        # Both come from the certificate: one without the other is a publisher that dropped a field.
        if len({"dias_restantes", "vence"} & self.model_fields_set) == 1:
            raise ValueError("diasRestantes y vence van juntos")
        return self


# --- the exchange with other companies -----------------------------------------------------------------------


class ReceivedNew(_Data):
    """Datos de `recibido.nuevo`: llegó un comprobante de otra empresa; se guardó con la respuesta automática."""

    id_recibido: int = Field(
        alias="idRecibido", description="Identificador del comprobante recibido (`GET /api/v1/recibidos/{id}`)."
    )
    rut_emisor: str | None = Field(alias="rutEmisor", description="RUT de quien lo emitió (null si no se pudo leer).")
    tipo_cfe: int | None = Field(alias="tipoCfe", description="Tipo de CFE (null si no se pudo leer).")
    serie: str | None = Field(description="Serie (null si no se pudo leer).")
    nro: int | None = Field(description="Número (null si no se pudo leer).")
    fch_emis: date | None = Field(
        alias="fchEmis", description="Fecha de emisión, AAAA-MM-DD (null si no se pudo leer)."
    )
    moneda: str | None = Field(description="Moneda (código ISO 4217, p. ej. UYU).")
    mnt_total: str | None = Field(
        alias="mntTotal",
        description="Monto total, como texto decimal con punto (p. ej. `1220.00`).",
        pattern=r"^-?\d+(\.\d+)?$",
    )
    estado: Literal["AE", "BE"] = Field(description="Respuesta automática: AE (aceptado) o BE (rechazado).")
    motivos: list[DgiMotive] = Field(description="Motivos del rechazo (vacía si se aceptó).")


class ExchangeAnswer(ReceiptData):
    """Datos de `intercambio.respuesta`: el receptor electrónico respondió sobre un comprobante enviado."""

    rut_receptor: str = Field(alias="rutReceptor", description="RUT de la empresa que respondió.")
    estado_receptor: Literal["aceptado", "rechazado"] = Field(alias="estadoReceptor", description="Lo que respondió.")
    rechazo_comercial: bool = Field(
        alias="rechazoComercial", description="Si algún motivo es comercial (E20...): corrige una nota, no un CFE."
    )
    motivos: list[DgiMotive] = Field(description="Motivos del rechazo (vacía si aceptó).")


# When the examples' events happened (a delivery's `timestamp`); their data's own moments are this one too.
EXAMPLE_MOMENT = "2026-11-28T13:05:00Z"


class ExchangeAcceptanceConfirmed(ReceiptData):
    """Datos de `intercambio.aceptacion_confirmada`: el receptor electrónico, que acusó el comprobante aceptado (AE) al
    recibirlo, lo aceptó en otra respuesta suya (su decisión, por ejemplo la de su contador). Uno por aceptación: si
    después lo rechaza y lo vuelve a aceptar, su nueva confirmación es otro evento."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "idCfe": "9f2c1d0e4b7a4c0f8e21",
                    "tipoCfe": 111,
                    "serie": "A",
                    "nro": 1234,
                    "fchEmis": "2026-11-27",
                    "estadoDgi": "aceptado",
                    "rutReceptor": "211003420017",
                    "confirmado": EXAMPLE_MOMENT,
                }
            ]
        }
    )

    rut_receptor: str = Field(alias="rutReceptor", description="RUT de la empresa que lo aceptó.")
    confirmado: datetime = Field(
        description="Cuándo se registró su aceptación (ISO 8601, UTC): `intercambio.fechas.confirmado` de "
        "getByIdCfeEmitido."
    )


class WebhookTestData(_Data):
    """Datos de `webhook.prueba`: lo envía solo «enviar prueba», a ese webhook."""

    id_webhook: str = Field(alias="idWebhook", description="Identificador del webhook probado (`we_...`).")
    mensaje: str = Field(description="Texto fijo de la prueba.")


DATA: dict[str, type[_Data]] = {
    "comprobante.emitido": ReceiptIssued,
    "comprobante.aceptado": ReceiptAccepted,
    "comprobante.rechazado": ReceiptRejected,
    "comprobante.observado": ReceiptObserved,
    "sobre.rechazado": EnvelopeRejected,
    "reporte.rechazado": ReportRejected,
    "cae.por_agotarse": CaeRunningOut,
    "certificado.por_vencer": CertificateExpiring,
    "recibido.nuevo": ReceivedNew,
    "intercambio.respuesta": ExchangeAnswer,
    "intercambio.aceptacion_confirmada": ExchangeAcceptanceConfirmed,
    "webhook.prueba": WebhookTestData,
}
"""The model of each event's `data`, by the event's name (the catalogue's, eventos/catalogue.py)."""


class Delivery(BaseModel):
    """El cuerpo JSON de cada entrega (Standard Webhooks): el evento y sus datos."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(
        description="Identificador del evento (`evt_...`), el mismo que el encabezado `webhook-id`: "
        "el mismo en cada reintento, para descartar duplicados."
    )
    type: str = Field(description="Nombre del evento.")
    timestamp: datetime = Field(description="Cuándo ocurrió (ISO 8601 con zona, UTC).")
    data: _Data = Field(description="Los datos del evento.")


def _delivery(name: str, data: type[_Data]) -> type[Delivery]:
    title = "".join(part.capitalize() for part in name.replace("_", ".").split("."))
    event_type: Any = Literal[name]  # a name known at run time
    return create_model(
        f"Evento{title}",
        __base__=Delivery,
        __doc__=f"El cuerpo de una entrega de `{name}`.",
        type=(event_type, Field(description="Nombre del evento.")),
        data=(data, Field(description="Los datos del evento.")),
    )


DELIVERIES: dict[str, type[Delivery]] = {name: _delivery(name, data) for name, data in DATA.items()}
"""The body each event's deliveries carry, by the event's name."""


def delivery_examples(name: str) -> list[dict[str, Any]]:
    """The examples of an event's data (its model's), each as the body a webhook receives: the OpenAPI document's."""
    extra = DATA[name].model_config.get("json_schema_extra")
    examples = extra.get("examples") if isinstance(extra, dict) else None
    return [
        {"id": "evt_5d41402abc4b2a76b9719d911017c592", "type": name, "timestamp": EXAMPLE_MOMENT, "data": data}
        for data in (examples if isinstance(examples, list) else [])
        if isinstance(data, dict)
    ]
