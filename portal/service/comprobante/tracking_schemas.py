"""How a receipt's answer (getByIdCfeEmitido) shows its road to DGI (`dgi`, written by envios), to its
electronic receiver (`intercambio`, written by the exchange) and its e-mail sends (`correo`, by correo). The
schemas live here, beside the answer that carries them, so that comprobante never imports the areas that fill
them in (they register through comprobante.hooks)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from portal.domain.commercial_motives import MOTIVES


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class Motivo(_Out):
    """Un motivo de DGI o del receptor: su código (S01-S08, E01-E15, R01-R06; del receptor también S20 y E20-E60),
    su texto y, si lo hay, el detalle."""

    codigo: str = Field(examples=["E07"])
    glosa: str = Field(
        examples=["Fecha Firma de CFE no se corresponde con fecha CAE"],
        description="El texto del código como lo escribió DGI (o el receptor), en español: el de los XML firmados.",
    )
    texto: str | None = Field(
        None,
        examples=["CFE signature date does not match the CAE's date"],
        description="El motivo en el idioma de Accept-Language, según su código; la glosa cuando no hay otro.",
    )
    detalle: str | None = None


class SobreDelCfe(_Out):
    id_sobre: int = Field(alias="idSobre")
    id_emisor: int = Field(alias="idEmisor")
    archivo: str
    estado: str
    acuse: str | None = Field(None, description="AS, BS o BA.")
    id_receptor: str | None = Field(None, alias="idReceptor")
    token: str | None = Field(None, description="Token que dio DGI para consultar la respuesta.")
    ordinal: int | None = Field(None, description="Nro_ordinal del comprobante en el sobre.")


class ReporteDelCfe(_Out):
    id_reporte: int | None = Field(None, alias="idReporte")
    fecha: date
    sec_envio: int | None = Field(None, alias="secEnvio")
    archivo: str | None = None
    estado: str = Field(description="por_enviar (el día aún no cerró), armado, aceptado, rechazado, error.")
    acuse: str | None = Field(None, description="AR, BR o BA.")


class AnulacionDelCfe(_Out):
    id_anulacion: int = Field(alias="idAnulacion")
    motivo: str


class EstadoDgi(_Out):
    """El camino del comprobante a DGI."""

    model_config = ConfigDict(
        populate_by_name=True,
        json_schema_extra={
            "examples": [
                {
                    "estado": "rechazado",
                    "descripcion": "DGI rechazó el comprobante (BE): no tiene validez fiscal y su "
                    "número quedó anulado.",
                    "final": True,
                    "via": "sobre",
                    "motivos": [{"codigo": "E07", "glosa": "Fecha Firma de CFE no se corresponde con fecha CAE"}],
                    "sobre": {
                        "idSobre": 12,
                        "idEmisor": 12,
                        "archivo": "Sob_219999830019_20261123_12.xml",
                        "estado": "respondido",
                        "acuse": "AS",
                        "idReceptor": "40",
                        "token": "q83v...",
                        "ordinal": 1,
                    },
                    "anulacion": {"idAnulacion": 3, "motivo": "Comprobante anulado por rechazo de DGI (E07)"},
                    "demorado": False,
                    "fechas": {
                        "registrado": "2026-11-23T14:00:00+00:00",
                        "enSobre": "2026-11-23T14:00:01+00:00",
                        "recibido": "2026-11-23T14:00:01+00:00",
                        "respondido": "2026-11-23T14:00:04+00:00",
                    },
                }
            ]
        },
    )

    estado: str = Field(
        description="pendiente, en_sobre, recibido (AS), aceptado (AE), rechazado (BE), observado "
        "(CE), sobre_rechazado (BS/BA), pendiente_reporte, en_reporte."
    )
    descripcion: str
    final: bool = Field(description="true cuando el estado ya no cambia.")
    via: Literal["sobre", "reporte"] | None = Field(
        None, description="sobre (uno por uno) o reporte (e-Ticket bajo el tope, en el reporte diario)."
    )
    motivos: list[Motivo] = Field(default_factory=list, description="Motivos de DGI, con su texto.")
    sobre: SobreDelCfe | None = None
    reporte: ReporteDelCfe | None = None
    anulacion: AnulacionDelCfe | None = None
    corrige: str | None = Field(None, description="idCfeEmitido del comprobante rechazado que este corrige.")
    corregido_por: str | None = Field(
        None, alias="corregidoPor", description="idCfeEmitido del comprobante que corrigió a este (rechazado)."
    )
    demorado: bool = False
    dgi_sin_respuesta_desde: datetime | None = Field(
        None,
        alias="dgiSinRespuestaDesde",
        description="Solo en getByIdCfeEmitido, y solo mientras el comprobante espera por DGI (pendiente, en_sobre, "
        "recibido) y DGI no responde: desde cuándo no responde (lo mismo que `GET /api/v1/envios/dgi/aviso`). El "
        "comprobante vale igual y sale solo cuando DGI vuelva a responder. Ausente si DGI responde.",
    )
    observaciones: int = Field(
        0, description="Cuántas veces DGI observó este comprobante de contingencia (CE); 0 para los demás."
    )
    fechas: dict[str, datetime] = Field(
        default_factory=dict, description="registrado, enSobre, recibido, respondido, enReporte."
    )


class ReceptorElectronico(_Out):
    rut: str
    nombre: str
    canal: str | None = Field(None, description="ws (su servicio web de intercambio) o correo, según el directorio.")


class SobreIntercambio(_Out):
    id_sobre: int = Field(alias="idSobre")
    id_emisor: int = Field(
        alias="idEmisor", description="Número del sobre en la secuencia de intercambio de la empresa."
    )
    archivo: str
    estado: str = Field(description="armado (entregándose), entregado o error.")
    canal: str | None = Field(None, description="ws o correo, por donde se entregó.")
    acuse: str | None = Field(None, description="AS (sobre recibido) o BS (sobre rechazado) del receptor.")
    motivos_sobre: list[Motivo] = Field(default_factory=list, alias="motivosSobre")
    intentos: int = Field(
        0, description="Intentos de entrega fallidos; vuelve a 0 cuando quien emite pide reintentar la entrega."
    )
    ultimo_error: str | None = Field(None, alias="ultimoError", description="Por qué falló el último intento.")
    ultimo_intento: datetime | None = Field(
        None,
        alias="ultimoIntento",
        description="Cuándo respondió el canal al último intento de entrega, lo haya tomado o no. Ausente si todavía "
        "no se intentó, o si el intento fue antes de que el servicio guardara su hora (no se sabe cuándo).",
    )
    proximo_intento: datetime | None = Field(
        None,
        alias="proximoIntento",
        description="Solo mientras el sobre se sigue entregando después de un intento fallido (estado armado): "
        "cuándo se vuelve a intentar solo. Ausente si no hay otro intento previsto (entregado, o error: se "
        "reintenta a pedido con `POST /api/v1/intercambio/sobres/{idSobre}/reintentar`).",
    )
    ordinal: int | None = None


class AvisoAnulacion(_Out):
    id_aviso: int = Field(alias="idAviso")
    archivo: str
    estado: str = Field(description="armado (entregándose), entregado o error.")
    canal: str | None = None


class EstadoIntercambio(_Out):
    """El comprobante ante su receptor electrónico (intercambio entre empresas)."""

    model_config = ConfigDict(
        populate_by_name=True,
        json_schema_extra={
            "examples": [
                {
                    "receptor": {"rut": "211003420017", "nombre": "Comercial del Norte S.R.L.", "canal": "correo"},
                    "estado": "rechazado",
                    "descripcion": "El receptor rechazó el comprobante (BE).",
                    "final": True,
                    "motivos": [{"codigo": "E24", "glosa": MOTIVES["E24"].glosa, "texto": MOTIVES["E24"].words.es}],
                    "rechazoComercial": True,
                    "sobre": {
                        "idSobre": 3,
                        "idEmisor": 3,
                        "archivo": "Sob_219999830019_20261127_3.xml",
                        "estado": "entregado",
                        "canal": "correo",
                        "acuse": "AS",
                        "intentos": 0,
                        "ultimoIntento": "2026-11-27T14:00:03Z",
                        "ordinal": 1,
                    },
                    "borradorNota": "https://cfe.example/api/v1/comprobante/borradorNota?idCfeEmitido=9f2c&tipo=credito",
                    "fechas": {
                        "registrado": "2026-11-27T14:00:00+00:00",
                        "enviado": "2026-11-27T14:00:03+00:00",
                        "sobreRespondido": "2026-11-27T14:00:05+00:00",
                        "respondido": "2026-11-27T15:10:00+00:00",
                    },
                },
                {
                    "receptor": {"rut": "211003420017", "nombre": "Comercial del Norte S.R.L.", "canal": "ws"},
                    "estado": "error",
                    "descripcion": "No se pudo entregar al receptor electrónico; quien emite puede reintentar la "
                    "entrega desde la página del comprobante o por la API.",
                    "final": True,
                    "sobre": {
                        "idSobre": 4,
                        "idEmisor": 4,
                        "archivo": "Sob_219999830019_20261127_4.xml",
                        "estado": "error",
                        "intentos": 1,
                        "ultimoError": "El receptor rechazó la solicitud (soap:Client): Firma WS-Security inválida",
                        "ultimoIntento": "2026-11-27T14:00:04Z",
                        "ordinal": 1,
                    },
                    "fechas": {
                        "registrado": "2026-11-27T14:00:00+00:00",
                        "enSobre": "2026-11-27T14:00:01+00:00",
                    },
                },
            ]
        },
    )

    receptor: ReceptorElectronico
    estado: str = Field(
        description="pendiente, en_sobre, enviado, sobre_recibido (AS), sobre_rechazado (BS), aceptado (AE), "
        "rechazado (BE), anulado (DGI lo rechazó antes de entregarlo), error."
    )
    descripcion: str
    final: bool
    motivos: list[Motivo] = Field(
        default_factory=list, description="Motivos del receptor (S del sobre, E del comprobante; E20-E60 comerciales)."
    )
    rechazo_comercial: bool = Field(False, alias="rechazoComercial")
    sobre: SobreIntercambio | None = None
    nota_correctiva: str | None = Field(
        None, alias="notaCorrectiva", description="idCfeEmitido de la nota de crédito que corrige el rechazo comercial."
    )
    borrador_nota: str | None = Field(
        None,
        alias="borradorNota",
        description="Ante un rechazo comercial sin nota aún: el borrador de la nota de crédito, con el motivo del "
        "receptor como razón (GET).",
    )
    aviso_anulacion: AvisoAnulacion | None = Field(
        None,
        alias="avisoAnulacion",
        description="CFEs_Anulados_x_RechazoDGI enviado al receptor cuando DGI rechazó el comprobante ya entregado.",
    )
    fechas: dict[str, datetime] = Field(
        default_factory=dict,
        description="registrado, enSobre, enviado, sobreRespondido, respondido; confirmado: cuando el receptor, "
        "que acusó el comprobante aceptado al recibirlo (AE), lo aceptó en otra respuesta suya (su decisión).",
    )


class EnvioCorreo(_Out):
    """One send of a receipt and what became of it."""

    id: str
    id_cfe_emitido: str = Field(alias="idCfeEmitido")
    destinatarios: list[str]
    estado: str = Field(description="en_cola, enviando, enviado o fallido.")
    intentos: int
    error: str | None = Field(None, description="Por qué falló el último intento (respuesta del servidor).")
    proximo_intento: datetime | None = Field(
        None, alias="proximoIntento", description="Cuándo se vuelve a intentar, si está en cola."
    )
    creado_por: str = Field(alias="creadoPor")
    creado_en: datetime = Field(alias="creadoEn")
    enviado_en: datetime | None = Field(None, alias="enviadoEn")


class ResumenCorreo(_Out):
    """A receipt's e-mail sends as getByIdCfeEmitido carries them (`correo`): how many, and the latest."""

    envios: int = Field(description="Cuántos envíos por correo tiene el comprobante.")
    ultimo: EnvioCorreo = Field(description="El envío más reciente (el detalle de todos, en GET …/envios).")
