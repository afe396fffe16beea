"""Query and response schemas of the receptores endpoints (lower camel case, as the rest of the API)."""

# ruff: noqa: N815

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field


class ReceptoresQuery(BaseModel):
    """What the person typed and how many receivers to suggest. An unknown parameter is refused."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    q: str = Field(
        min_length=1,
        max_length=150,
        pattern=r"\S",  # a text of only spaces is empty once stripped: the schema says so, as for other texts
        examples=["Dem"],
        description="Comienzo del nombre (sin distinguir mayúsculas ni tildes) o del documento del receptor; "
        "un RUT o una cédula pueden escribirse con puntos y guiones.",
    )
    limite: int = Field(10, ge=1, le=50, description="Cuántos receptores como máximo (10 si no se indica, hasta 50).")


class ReceptorPasado(BaseModel):
    """A receiver as the company's newest receipt to that document named it."""

    tipoDocRecep: int | None = Field(None, description="Tipo de documento (códigos de DGI: 2 RUT, 3 C.I., ...).")
    codPaisRecep: str | None = None
    docRecep: str
    rznSocRecep: str | None = None
    dirRecep: str | None = None
    ciudadRecep: str | None = None
    deptoRecep: str | None = None
    ultimoUso: datetime = Field(description="Cuándo se le emitió el último comprobante.")


class ListaReceptores(BaseModel):
    """The company's receivers that match, one per document, the most recently used first."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "items": [
                        {
                            "tipoDocRecep": 2,
                            "codPaisRecep": "UY",
                            "docRecep": "219999830019",
                            "rznSocRecep": "DGI RUC PRUEBA NO CEDE",
                            "dirRecep": "Fernández Crespo 1534",
                            "ciudadRecep": "Montevideo",
                            "deptoRecep": "Montevideo",
                            "ultimoUso": "2026-11-23T13:05:10.123456+00:00",
                        }
                    ]
                }
            ]
        }
    )

    items: list[ReceptorPasado]


class ReceptorDgiQuery(BaseModel):
    """The receiver's document, as the receipts form has it."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    tipoDoc: int = Field(
        ge=1, le=3, examples=[2], description="Tipo de documento con los códigos de DGI: 1 NIE, 2 RUT o 3 C.I."
    )
    nroDoc: str = Field(
        min_length=1,
        max_length=40,
        pattern=r"\S",  # a text of only spaces is empty once stripped: the schema says so
        examples=["215550010018"],
        description="Número de documento, con o sin puntos y guiones; se valida el dígito verificador.",
    )


class AdvertenciaReceptor(BaseModel):
    codigo: str = Field(
        description="receptor_inactivo, receptor_no_emisor_electronico, cva_vencido o receptor_no_encontrado: "
        "las mismas que la emisión inteligente."
    )
    mensaje: str


class ReceptorDgi(BaseModel):
    """The receiver fields DGI registers for the document, and what to warn about that taxpayer."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "encontrado": True,
                    "tipoDocRecep": 2,
                    "docRecep": "215550010018",
                    "rznSocRecep": "FRIGORIFICO LA BLANQUEADA S.A.",
                    "dirRecep": "AV. GENERAL RIVERA 3320",
                    "ciudadRecep": "MONTEVIDEO",
                    "deptoRecep": "MONTEVIDEO",
                    "receptorElectronico": False,
                    "advertencias": [
                        {
                            "codigo": "receptor_inactivo",
                            "mensaje": "El RUT 215550010018 figura sin actividad en DGI (CLAUSURADO).",
                        }
                    ],
                }
            ]
        }
    )

    encontrado: bool = Field(description="Si DGI tiene registrado el documento.")
    tipoDocRecep: int
    docRecep: str = Field(description="El documento sin puntos ni guiones.")
    rznSocRecep: str | None = None
    dirRecep: str | None = None
    ciudadRecep: str | None = None
    deptoRecep: str | None = None
    receptorElectronico: bool = Field(
        False,
        description="Si el RUT figura en el directorio de emisores electrónicos de DGI (ws_consultas): es receptor "
        "electrónico y cada comprobante que se le emita se le entrega también firmado, por intercambio.",
    )
    advertencias: list[AdvertenciaReceptor] = Field(
        description="Lo que conviene saber antes de emitirle; vacía si nada."
    )
