"""The receipt's state at its electronic receiver, as getByIdCfeEmitido carries it under `intercambio`."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from portal.service.envios.schemas import Motivo


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


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
    intentos: int = 0
    ultimo_error: str | None = Field(None, alias="ultimoError")
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
                    "motivos": [{"codigo": "E24", "glosa": "Diferencia de precios y/o descuentos"}],
                    "rechazoComercial": True,
                    "sobre": {
                        "idSobre": 3,
                        "idEmisor": 3,
                        "archivo": "Sob_219999830019_20261127_3.xml",
                        "estado": "entregado",
                        "canal": "correo",
                        "acuse": "AS",
                        "intentos": 0,
                        "ordinal": 1,
                    },
                    "borradorNota": "https://cfe.example/api/v1/comprobante/borradorNota?idCfeEmitido=9f2c&tipo=credito",
                    "fechas": {
                        "registrado": "2026-11-27T14:00:00+00:00",
                        "enviado": "2026-11-27T14:00:03+00:00",
                        "sobreRespondido": "2026-11-27T14:00:05+00:00",
                        "respondido": "2026-11-27T15:10:00+00:00",
                    },
                }
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
        default_factory=dict, description="registrado, enSobre, enviado, sobreRespondido, respondido."
    )
