"""Request and answer models of the exchange area's endpoints (routes.py)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SobreReintentado(BaseModel):
    """Un sobre de intercambio que vuelve a entregarse a su receptor electrónico."""

    model_config = ConfigDict(
        populate_by_name=True,
        json_schema_extra={
            "examples": [
                {
                    "idSobre": 3,
                    "idEmisor": 3,
                    "archivo": "Sob_219999830019_20261127_3.xml",
                    "rutReceptor": "211003420017",
                    "estado": "armado",
                    "cantCfe": 1,
                    "comprobantes": ["9f2c1d0e4b7a4c0f8e21"],
                    "errorAnterior": "El receptor rechazó la solicitud (soap:Client): Firma WS-Security inválida",
                }
            ]
        },
    )

    id_sobre: int = Field(alias="idSobre")
    id_emisor: int = Field(alias="idEmisor", description="Número del sobre en la secuencia de intercambio.")
    archivo: str
    rut_receptor: str = Field(alias="rutReceptor")
    estado: str = Field(description="armado: se está entregando otra vez (los mismos bytes).")
    cant_cfe: int = Field(alias="cantCfe")
    comprobantes: list[str] = Field(description="idCfeEmitido de cada comprobante del sobre.")
    error_anterior: str | None = Field(
        None, alias="errorAnterior", description="Por qué no se había podido entregar, en el idioma pedido."
    )
