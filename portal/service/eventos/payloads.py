"""What each event's `data` carries, and the body a webhook receives around it (webhooks/delivery.py's `body_of`).

One model per event of the catalogue, with the field names the publishers write (integrators depend on them:
`idCfe`, `tipoCfe`, `estadoDgi`, the CAE concern's `tipoCFE`). Published in the OpenAPI document's `webhooks`
section; tests/integration/test_eventos_payloads.py validates what every publisher sends against them, with no
field more or less. The descriptions are the document's (Spanish).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, Literal
from uuid import NAMESPACE_URL, uuid5

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from portal.domain.commercial_motives import MOTIVES
from portal.service.platform import responses


class _Data(BaseModel):
    # Fields are snake_case here and camelCase on the wire (`id_cfe` is `idCfe`), as in the rest of the service.
    model_config = ConfigDict(extra="forbid", strict=True)


def _shown(*examples: dict[str, Any]) -> ConfigDict:
    """An event's examples of its data, as its publisher writes them (the OpenAPI document shows each in a delivery,
    `delivery_examples`). Demo S.A. (RUT 219999830019) is the company they happen to; Comercial del Norte S.R.L.
    (RUT 211003420017) its customer and supplier."""
    return ConfigDict(json_schema_extra={"examples": list(examples)})


# One receipt of Demo S.A.'s through its events: an e-Factura to Comercial del Norte. Ids as the service makes them:
# a receipt's is 32 hexadecimals (issuing.py), a webhook's `we_` and 24 (webhooks/management.py).
_EFACTURA = {"idCfe": "3f6c2a9e8b1d4f07a5c3e2d190b8f4a6", "tipoCfe": 111, "serie": "A", "nro": 1234}
_ISSUED = {**_EFACTURA, "fchEmis": "2026-11-28"}


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

    # An e-Factura waits for its envelope (pendiente); an e-Ticket under the 5.000 UI goes in the daily report.
    model_config = _shown(
        {**_ISSUED, "estadoDgi": "pendiente"},
        {
            "idCfe": "b71e04c95a2d4e3f8c6a90d1e5f2a7c8",
            "tipoCfe": 101,
            "serie": "A",
            "nro": 5821,
            "fchEmis": "2026-11-28",
            "estadoDgi": "pendiente_reporte",
        },
    )


class _Verdict(ReceiptData):
    motivos: list[str] = Field(description="Códigos de los motivos de DGI (vacía si no dio ninguno).")


class ReceiptAccepted(_Verdict):
    """Datos de `comprobante.aceptado`: DGI aceptó el comprobante (AE)."""

    model_config = _shown({**_ISSUED, "estadoDgi": "aceptado", "motivos": []})

    estado_dgi: Literal["aceptado"] = Field(alias="estadoDgi", description="Siempre `aceptado`.")


class ReceiptRejected(_Verdict):
    """Datos de `comprobante.rechazado`: DGI rechazó el comprobante (BE); su número quedó anulado."""

    model_config = _shown(
        {
            "idCfe": "5d0b8e3a1c7f4a29b6e2d4c8f0a1b3e5",
            "tipoCfe": 111,
            "serie": "A",
            "nro": 1235,
            "fchEmis": "2026-11-28",
            "estadoDgi": "rechazado",
            "motivos": ["E14"],
        }
    )

    estado_dgi: Literal["rechazado"] = Field(alias="estadoDgi", description="Siempre `rechazado`.")


class ReceiptObserved(_Verdict):
    """Datos de `comprobante.observado`: DGI observó el comprobante (CE)."""

    # DGI observes contingency receipts (CFC): here an e-Factura written on paper while the service was unreachable.
    model_config = _shown(
        {
            "idCfe": "a9c4e2f07b3d4e1a8f6c5b2d0e9a7c31",
            "tipoCfe": 211,
            "serie": "A",
            "nro": 87,
            "fchEmis": "2026-11-26",
            "estadoDgi": "observado",
            "motivos": ["C05"],
        }
    )

    estado_dgi: Literal["observado"] = Field(alias="estadoDgi", description="Siempre `observado`.")


# --- what DGI refused whole ----------------------------------------------------------------------------------


class EnvelopeRejected(_Data):
    """Datos de `sobre.rechazado`: DGI rechazó un sobre entero; sus comprobantes no llegaron."""

    model_config = _shown({"idSobre": 418, "idEmisor": 57, "estado": "BS", "motivos": ["S02"], "cantidadCfe": 3})

    id_sobre: int = Field(alias="idSobre", description="Identificador del sobre en el servicio.")
    id_emisor: int = Field(alias="idEmisor", description="Número del sobre para DGI (IdEmisor).")
    estado: str = Field(description="Respuesta de DGI al sobre: BS (rechazado) o BA.", examples=["BS"])
    motivos: list[str] = Field(description="Códigos de los motivos de DGI (S01...).", examples=[["S02"]])
    cantidad_cfe: int = Field(alias="cantidadCfe", description="Cuántos comprobantes llevaba el sobre.")


class ReportRejected(_Data):
    """Datos de `reporte.rechazado`: DGI rechazó el reporte diario de un día."""

    model_config = _shown({"idReporte": 96, "fecha": "2026-11-27", "secEnvio": 2, "estado": "BR", "motivos": ["R05"]})

    id_reporte: int = Field(alias="idReporte", description="Identificador del reporte en el servicio.")
    fecha: date = Field(description="Día que informa el reporte (AAAA-MM-DD).")
    sec_envio: int = Field(alias="secEnvio", description="Secuencia del envío de ese día (SecEnvio).")
    estado: str = Field(description="Respuesta de DGI al reporte: BR (rechazado) o BA.", examples=["BR"])
    motivos: list[str] = Field(description="Códigos de los motivos de DGI (R01...).")


# --- the compliance watch ------------------------------------------------------------------------------------

_CONCERN_STATE = "Gravedad: `warning` (atender pronto) o `problem` (impide o impedirá emitir)."


class CaeRunningOut(_Data):
    """Datos de `cae.por_agotarse`: un rango de CAE se agota o vence (al cambiar de gravedad o de umbral)."""

    # 1.840 e-Tickets left at 92 a day: 20 days of use, under the watch's 30 (salud/concerns.py).
    model_config = _shown(
        {
            "clave": "cae:12",
            "estado": "warning",
            "idRango": 12,
            "tipoCFE": 101,
            "serie": "A",
            "restantes": 1840,
            "usadosUltimos30Dias": 2760,
            "diasDeUso": 20.0,
            "diasParaVencer": 212,
        }
    )

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

    # Fifteen days left is the watch's second warning; a company without a certificate has neither fact.
    model_config = _shown(
        {"clave": "certificado", "estado": "warning", "diasRestantes": 15, "vence": "2026-12-13"},
        {"clave": "certificado", "estado": "problem"},
    )

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

    model_config = _shown(
        {
            "idRecibido": 731,
            "rutEmisor": "211003420017",
            "tipoCfe": 111,
            "serie": "A",
            "nro": 3107,
            "fchEmis": "2026-11-27",
            "moneda": "UYU",
            "mntTotal": "18300.00",
            "estado": "AE",
            "motivos": [],
        },
        {
            "idRecibido": 732,
            "rutEmisor": "211003420017",
            "tipoCfe": 111,
            "serie": "A",
            "nro": 3108,
            "fchEmis": "2026-11-27",
            "moneda": "UYU",
            "mntTotal": "4880.00",
            "estado": "BE",
            "motivos": [{"codigo": "E04", "glosa": "Firma electrónica no es válida"}],
        },
    )

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

    model_config = _shown(
        {
            **_ISSUED,
            "estadoDgi": "aceptado",
            "rutReceptor": "211003420017",
            "estadoReceptor": "aceptado",
            "rechazoComercial": False,
            "motivos": [],
        },
        {
            **_EFACTURA,
            "nro": 1236,
            "idCfe": "c2e8f4a6b0d14c3e9a7f5b1d3e6c8a02",
            "fchEmis": "2026-11-28",
            "estadoDgi": "aceptado",
            "rutReceptor": "211003420017",
            "estadoReceptor": "rechazado",
            "rechazoComercial": True,
            # The glosa the receiver signed: DGI's text for the code (what a receiver's ACKCFE carries).
            "motivos": [{"codigo": "E24", "glosa": MOTIVES["E24"].glosa}],
        },
    )

    rut_receptor: str = Field(alias="rutReceptor", description="RUT de la empresa que respondió.")
    estado_receptor: Literal["aceptado", "rechazado"] = Field(alias="estadoReceptor", description="Lo que respondió.")
    rechazo_comercial: bool = Field(
        alias="rechazoComercial", description="Si algún motivo es comercial (E20...): corrige una nota, no un CFE."
    )
    motivos: list[DgiMotive] = Field(description="Motivos del rechazo (vacía si aceptó).")


# When the examples' events happened (10:05 in Montevideo), written as a delivery's `timestamp` is (delivery.py's
# `body_of`: as the API writes moments, UTC with `Z`).
EXAMPLE_MOMENT = datetime(2026, 11, 28, 13, 5, 0, 482913, tzinfo=UTC)


class ExchangeAcceptanceConfirmed(ReceiptData):
    """Datos de `intercambio.aceptacion_confirmada`: el receptor electrónico, que acusó el comprobante aceptado (AE) al
    recibirlo, lo aceptó en otra respuesta suya (su decisión, por ejemplo la de su contador). Uno por aceptación: si
    después lo rechaza y lo vuelve a aceptar, su nueva confirmación es otro evento."""

    # `confirmado` is written as the API writes moments (platform/responses.py: `Z`), just before the event's.
    model_config = _shown(
        {**_ISSUED, "estadoDgi": "aceptado", "rutReceptor": "211003420017", "confirmado": "2026-11-28T13:05:00.481377Z"}
    )

    rut_receptor: str = Field(alias="rutReceptor", description="RUT de la empresa que lo aceptó.")
    confirmado: datetime = Field(
        description="Cuándo se registró su aceptación (ISO 8601, UTC): `intercambio.fechas.confirmado` de "
        "getByIdCfeEmitido."
    )


class WebhookTestData(_Data):
    """Datos de `webhook.prueba`: lo envía solo «enviar prueba», a ese webhook."""

    model_config = _shown({"idWebhook": "we_4c1f9a7e2b8d40e6a3f5c9d1", "mensaje": "Evento de prueba."})

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
    shown = [data for data in (examples if isinstance(examples, list) else []) if isinstance(data, dict)]
    moment = responses.moment(EXAMPLE_MOMENT)
    # Each delivery its own event id, `evt_` and 32 hexadecimals as publishing.py makes them (fixed ones here, so
    # the document is the same from one start to the next).
    return [
        {"id": f"evt_{uuid5(NAMESPACE_URL, f'{name}#{i}').hex}", "type": name, "timestamp": moment, "data": data}
        for i, data in enumerate(shown)
    ]
