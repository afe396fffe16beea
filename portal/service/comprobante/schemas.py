"""Request and response bodies of the Comprobante endpoints (the OpenAPI document is built from these)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from portal.service.envios.schemas import EstadoDgi


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
    estado_dgi: str = Field(alias="estadoDGI", description="Estado ante DGI (el detalle, en `dgi`): pendiente, "
                                                         "en_sobre, recibido, aceptado, rechazado, observado, "
                                                         "sobre_rechazado, pendiente_reporte, en_reporte.")
    dgi: EstadoDgi | None = Field(None, description="El camino a DGI: estado, motivos, sobre, reporte, fechas.")
    referencia_cobro: str | None = Field(None, alias="referenciaCobro")
    creado_por: str = Field(alias="creadoPor")
    creado_en: datetime = Field(alias="creadoEn")
    advertencias: list[Advertencia] = Field(default_factory=list)
    historial_referencias: list[CambioReferencia] = Field(
        default_factory=list, alias="historialReferencias",
        description="Cada aplicación de una referencia de cobro, la más reciente primero.")
    enlaces: dict = Field(description="xml y pdf: la misma URL con Accept application/xml o application/pdf.")


class PreviewLink(_Out):
    """A short-lived link to a preview PDF."""

    token: str
    url: str
    expires_at: datetime = Field(alias="expiresAt")


_FORMATO = ("Papel del PDF: a4, o rollo térmico de 80mm o 57mm (solo e-Ticket y sus notas, 101 a 103). Por "
            "defecto, el formato configurado por la empresa (A4 si es un rollo y el tipo no lo admite).")


class GetByIdQuery(BaseModel):
    id_cfe_emitido: str = Field(alias="idCfeEmitido", min_length=1, max_length=40,
                                description="El idCfeEmitido que devolvió emitir.")
    formato: Literal["a4", "80mm", "57mm"] | None = Field(None, description=_FORMATO)


class PreviewQuery(BaseModel):
    formato: Literal["a4", "80mm", "57mm"] | None = Field(None, description=_FORMATO)


class ReaplicarReferencia(BaseModel):
    """Link an issued receipt to a collection (payment) reference, again."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=True,
                              json_schema_extra={"examples": [
                                  {"idCfeEmitido": "3f2a9c0e5b9d4e0fa1c2d3e4f5a6b7c8",
                                   "referenciaCobro": "COB-2026-000123", "observacion": "Pago por transferencia"}]})

    id_cfe_emitido: str = Field(alias="idCfeEmitido", min_length=1, max_length=40)
    referencia_cobro: str = Field(alias="referenciaCobro", min_length=1, max_length=100,
                                  description="Identificador del cobro en el sistema de cobranza.")
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


CfeEmitido.model_rebuild()
