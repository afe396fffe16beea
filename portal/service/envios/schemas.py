"""Request and response bodies of the Envíos a DGI endpoints (published as OpenAPI by `operation`)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.model_parts import Day
from portal.service.cfe.xmlchars import PrintedText
from portal.service.comprobante.tracking_schemas import Motivo
from portal.service.envios.models import AckSignature
from portal.service.platform.jsontypes import WHOLE_NUMBER
from portal.service.platform.paging import Page, PageQuery


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class Lista(PageQuery):
    """Una página de una lista de envíos: `cursor` y `limite` (la más reciente primero)."""


FirmaDgi = AckSignature
EnvelopeDocument = Literal["sobre", "acuse", "respuesta"]
ReportDocument = Literal["reporte", "acuse"]
_FIRMA = (
    "Firma del acuse de DGI contra el certificado de DGI de confianza (CFE_DGI_TRUSTED_CERT): verificada, "
    "invalida (no la firmó ese certificado: revisar) o sin_certificado (no hay certificado configurado); "
    "ausente si no hay acuse o es anterior a la verificación"
)


class Sobre(_Out):
    id_sobre: int = Field(alias="idSobre")
    id_emisor: int = Field(alias="idEmisor", description="Número del sobre asignado por la empresa (Idemisor).")
    archivo: str = Field(description="Sob_<RUC>_<AAAAMMDD>_<Idemisor>.xml")
    cantidad_cfe: int = Field(alias="cantidadCfe")
    estado: Literal["armado", "recibido", "respondido", "rechazado", "error"] = Field(
        description="armado (guardado, enviándose), recibido (AS; o BS S08: DGI ya tenía un sobre con ese número, "
        "y se le consulta el estado de cada CFE), respondido (DGI contestó por cada CFE; tras un S08, los que DGI "
        "no recibió van en un sobre nuevo), rechazado (BS/BA), error (requiere soporte)."
    )
    acuse: str | None = Field(None, description="Estado del ACKSobre de DGI: AS, BS o BA.")
    motivos: list[Motivo] = Field(default_factory=list)
    firma_acuse: FirmaDgi | None = Field(None, alias="firmaAcuse", description=_FIRMA + " (ACKSobre).")
    firma_respuesta: FirmaDgi | None = Field(None, alias="firmaRespuesta", description=_FIRMA + " (ACKCFE).")
    documentos: list[EnvelopeDocument] = Field(
        default_factory=list,
        description="Lo que se puede descargar en /sobres/{idSobre}/{documento}: el sobre (EnvioCFE), el acuse "
        "(ACKSobre) y la respuesta por comprobante (ACKCFE), cuando DGI los dio.",
    )
    id_receptor: str | None = Field(None, alias="idReceptor", description="Número que DGI dio al sobre.")
    token: str | None = Field(None, description="Token de DGI para consultar la respuesta por comprobante.")
    consultar_desde: datetime | None = Field(None, alias="consultarDesde")
    intentos: int = Field(description="Intentos fallidos seguidos; vuelve a 0 cuando DGI responde.")
    ultimo_error: str | None = Field(None, alias="ultimoError")
    proximo_intento: datetime | None = Field(None, alias="proximoIntento")
    aceptados: int = Field(0, description="Los comprobantes del sobre que DGI no rechazó, cuando respondió.")
    rechazados: int = 0
    demorado: bool = Field(description="true si lleva más de lo esperado sin respuesta final.")
    creado_en: datetime = Field(alias="creadoEn")
    enviado_en: datetime | None = Field(None, alias="enviadoEn")
    recibido_en: datetime | None = Field(None, alias="recibidoEn")
    respondido_en: datetime | None = Field(None, alias="respondidoEn")


class SobreLista(Page[Sobre]):
    total: int = Field(description="Cuántos sobres hay en total (todas las páginas).")


class Pendiente(_Out):
    """Un comprobante que todavía no tiene respuesta final de DGI, y por qué."""

    id_cfe_emitido: str = Field(alias="idCfeEmitido")
    tipo_cfe: int = Field(alias="tipoCFE")
    serie: str
    nro: int
    estado: str
    descripcion: str
    motivo_espera: str | None = Field(
        None, alias="motivoEspera", description="Último error o motivo de la espera (reintentos)."
    )
    motivos: list[Motivo] = Field(default_factory=list)
    id_sobre: int | None = Field(None, alias="idSobre")
    intentos: int = Field(0, description="Intentos fallidos seguidos de su sobre; vuelve a 0 cuando DGI responde.")
    proximo_intento: datetime | None = Field(
        None,
        alias="proximoIntento",
        description="Cuándo se vuelve a intentar su sobre; mientras DGI no responde, cuándo se vuelve a probar DGI "
        "(todo lo pendiente sale cuando responde).",
    )
    demorado: bool
    registrado_en: datetime = Field(alias="registradoEn")


class PendienteLista(Page[Pendiente]):
    total: int = Field(description="Cuántos esperan en total (todas las páginas).")
    demorados: int = Field(description="De ellos, cuántos llevan más de lo esperado.")


class Reporte(_Out):
    id_reporte: int = Field(alias="idReporte")
    fecha: date = Field(description="Día que resume (FechaResumen).")
    sec_envio: int = Field(alias="secEnvio", description="Secuencia del envío de ese día (SecEnvio).")
    archivo: str
    cantidad_comprobantes: int = Field(alias="cantidadComprobantes")
    estado: Literal["armado", "aceptado", "rechazado", "error"]
    acuse: str | None = Field(None, description="Estado del ACKRepDiario: AR, BR o BA.")
    motivos: list[Motivo] = Field(default_factory=list)
    firma_acuse: FirmaDgi | None = Field(None, alias="firmaAcuse", description=_FIRMA + " (ACKRepDiario).")
    documentos: list[ReportDocument] = Field(
        default_factory=list,
        description="Lo que se puede descargar en /reportes/{idReporte}/{documento}: el reporte "
        "(ReporteDiarioCFE) y el acuse de DGI (ACKRepDiario), cuando DGI lo dio.",
    )
    intentos: int = Field(description="Intentos fallidos seguidos; vuelve a 0 cuando DGI responde.")
    ultimo_error: str | None = Field(None, alias="ultimoError")
    creado_por: str = Field(alias="creadoPor")
    creado_en: datetime = Field(alias="creadoEn")
    respondido_en: datetime | None = Field(None, alias="respondidoEn")


class ReporteLista(Page[Reporte]):
    total: int = Field(description="Cuántos reportes hay en total (todas las páginas).")


def _yesterday() -> str:
    return (today_montevideo() - timedelta(days=1)).isoformat()


class ReporteSolicitud(BaseModel):
    """Armar y enviar el reporte diario de un día ya cerrado (o de hoy, a pedido)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"fecha": _yesterday()}]})

    fecha: Day = Field(description="Día a reportar (AAAA-MM-DD), hasta hoy.")


class Anulacion(_Out):
    id_anulacion: int = Field(alias="idAnulacion")
    tipo_cfe: int = Field(alias="tipoCFE")
    serie: str
    nro_desde: int = Field(alias="nroDesde")
    nro_hasta: int = Field(alias="nroHasta")
    fecha: date = Field(
        description="Día en cuyo reporte diario se informa; para los de una libreta de contingencia (tipoCFE 2xx), "
        "el día en que se anularon: el reporte diario no informa CFC anulados."
    )
    origen: Literal["operador", "rechazo_dgi"] = Field(
        description="operador (anulación pedida) o rechazo_dgi (comprobante rechazado por DGI, Motivo_Cod RD)."
    )
    motivo: str
    id_cfe_emitido: str | None = Field(None, alias="idCfeEmitido")
    creado_por: str = Field(alias="creadoPor")
    creado_en: datetime = Field(alias="creadoEn")


class AnulacionLista(Page[Anulacion]):
    total: int = Field(description="Cuántos rangos anulados hay en total (todas las páginas).")


class AnulacionSolicitud(PrintedText):
    """Anular los próximos números sin usar de un CAE: `cantidad` de ellos, o todos los que quedan si se omite."""

    text_one_line = True  # the reason is kept with the range and shown to support: one line, no spoofing

    model_config = ConfigDict(
        extra="forbid",
        str_strip_whitespace=True,
        json_schema_extra={
            "examples": [
                {"tipoCFE": 181, "cantidad": 1, "motivo": "Formulario dañado al imprimir"},
                {"tipoCFE": 182, "serie": "A", "cantidad": 2, "motivo": "Números que no se usarán"},
            ]
        },
    )

    tipoCFE: Literal[  # noqa: N815 - the API's names
        101, 102, 103, 111, 112, 113, 121, 122, 123, 124, 131, 132, 133, 141, 142, 143, 151, 152, 153, 181, 182
    ]
    serie: StrictStr | None = Field(None, min_length=1, max_length=2, pattern="^[A-Z]{1,2}$")
    cantidad: Annotated[StrictInt, Field(ge=1, le=1_000_000), WHOLE_NUMBER] | None = Field(
        None, description="Cuántos números anular; sin él, todos los que quedan."
    )
    motivo: StrictStr = Field(min_length=3, max_length=200)


class AvisoDgi(_Out):
    """Lo que todo miembro de la empresa puede saber de DGI: si responde y, si no, desde cuándo. Mientras no
    responde se sigue emitiendo; los comprobantes salen solos cuando vuelve, lo más antiguo primero, y no se
    pierde ninguno. El detalle técnico (último error, próximo intento, lo que espera) queda en `GET /dgi`."""

    model_config = ConfigDict(
        populate_by_name=True,
        json_schema_extra={"examples": [{"responde": False, "sinRespuestaDesde": "2026-11-27T13:05:00Z"}]},
    )

    responde: bool = Field(description="False mientras DGI no responde (sin conexión, demora, fallas SOAP).")
    sin_respuesta_desde: datetime | None = Field(
        None, alias="sinRespuestaDesde", description="Desde cuándo DGI no responde (null mientras responde)."
    )


class DisponibilidadDgi(_Out):
    """Si DGI responde, desde cuándo no (si no), y qué espera por DGI en la empresa. Emitir nunca espera por DGI:
    los comprobantes se firman y se entregan igual; los sobres y reportes salen solos cuando DGI vuelve."""

    model_config = ConfigDict(
        populate_by_name=True,
        json_schema_extra={
            "examples": [
                {
                    "responde": False,
                    "sinRespuestaDesde": "2026-11-27T13:05:00Z",
                    "ultimaRespuesta": "2026-11-27T13:04:10Z",
                    "ultimoError": "No se pudo conectar con el servicio de DGI.",
                    "proximoIntento": "2026-11-27T13:20:30Z",
                    "comprobantesEsperando": 412,
                    "sobresEsperando": 3,
                    "reportesEsperando": 1,
                    "esperandoDesde": "2026-11-27T13:04:55Z",
                }
            ]
        },
    )

    responde: bool = Field(description="False mientras DGI no responde (sin conexión, demora, fallas SOAP).")
    sin_respuesta_desde: datetime | None = Field(None, alias="sinRespuestaDesde")
    ultima_respuesta: datetime | None = Field(None, alias="ultimaRespuesta")
    ultimo_error: str | None = Field(None, alias="ultimoError")
    proximo_intento: datetime | None = Field(
        None, alias="proximoIntento", description="Cuándo se vuelve a probar DGI (mientras no responde)."
    )
    comprobantes_esperando: int = Field(alias="comprobantesEsperando", description="Sin respuesta final de DGI.")
    sobres_esperando: int = Field(alias="sobresEsperando")
    reportes_esperando: int = Field(alias="reportesEsperando")
    esperando_desde: datetime | None = Field(
        None, alias="esperandoDesde", description="Cuándo se emitió el comprobante más antiguo que espera."
    )
