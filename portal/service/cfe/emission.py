"""Who issues a CFE and under which number: the data the service supplies, never the API caller."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from portal.domain.identifiers import is_valid_rut

_SERIE = re.compile(r"^([A-Z]{1,2}|[1-9][A-Z])$")

# XSD maxLength of each Emisor element, checked once when the issuer is configured.
# The issuer's tax regime: "general" (IVA general), IVA mínimo (literal E), Monotributo, Monotributo
# social MIDES, or exonerated of IVA.
REGIMENES = ("general", "iva_minimo", "monotributo", "monotributo_mides", "exonerado")

_ISSUER_LIMITS = {
    "razon_social": 150,
    "nombre_comercial": 30,
    "giro": 100,
    "telefono": 20,
    "correo": 80,
    "sucursal": 20,
    "domicilio_fiscal": 70,
    "ciudad": 30,
    "departamento": 30,
}


@dataclass(frozen=True, kw_only=True)
class Issuer:
    """The issuing company and branch (zona A, área Emisor: A-C40 a A-C50).

    `resolucion` is the printed legend of the issuer's authorisation ("Res. DGI 1234/2020" or
    "Fecha emisor: 2020-01-01"); it goes only to the PDF.

    Every field is JSON-serialisable because issuing snapshots `asdict(issuer)` with each receipt; the
    fields after `resolucion` have defaults so that older snapshots, which lack them, still load.
    `regimen` decides which IndFact values and CAE especial the issuer may use; `iva_al_dia` False writes
    IVAalDia (A-C17); `norma_exoneracion`, `fecha_emisor` (ISO date of entry into the CFE regime) and
    `url_verificacion` (the company's own e-Ticket verification page) are printed.
    """

    rut: str
    razon_social: str
    cdg_dgi_sucursal: int
    domicilio_fiscal: str
    ciudad: str
    departamento: str
    nombre_comercial: str | None = None
    giro: str | None = None
    telefono: str | None = None
    correo: str | None = None
    sucursal: str | None = None
    resolucion: str | None = None
    regimen: str = "general"  # one of REGIMENES
    norma_exoneracion: str | None = None
    fecha_emisor: str | None = None
    iva_al_dia: bool = True
    url_verificacion: str | None = None

    def problems(self) -> list[str]:
        """What is wrong with this configuration for DGI's XSD (empty when it is fine)."""
        found = []
        if not is_valid_rut(self.rut):
            found.append(f"RUT emisor inválido: {self.rut!r}")
        if not 0 <= self.cdg_dgi_sucursal <= 9999:
            found.append("cdg_dgi_sucursal debe tener hasta 4 dígitos")
        for name in ("razon_social", "domicilio_fiscal", "ciudad", "departamento"):
            if not getattr(self, name):
                found.append(f"{name} es obligatorio")
        if self.regimen not in REGIMENES:
            found.append(f"régimen desconocido: {self.regimen!r}")
        for name, limit in _ISSUER_LIMITS.items():
            value = getattr(self, name)
            if value and len(value) > limit:
                found.append(f"{name} supera {limit} caracteres")
        return found


class AuthorisedRange(Protocol):
    """What a CAE range tells a number it authorises: a parsed CAE file (cae.CaeRange), its stored record or
    the row numbering reads of it."""

    @property
    def serie(self) -> str: ...
    @property
    def cae_id(self) -> int: ...
    @property
    def dnro(self) -> int: ...
    @property
    def hnro(self) -> int: ...
    @property
    def vencimiento(self) -> date: ...
    @property
    def cae_especial(self) -> int | None: ...
    @property
    def causal_cae_esp(self) -> int | None: ...


@dataclass(frozen=True, kw_only=True)
class Numbering:
    """The serie and number allocated to a receipt and the CAE range that authorises it (zona G)."""

    serie: str
    nro: int
    cae_id: int
    dnro: int
    hnro: int
    fec_venc: date
    cae_especial: int | None = None
    causal_cae_esp: int | None = None

    @classmethod
    def in_range(cls, cae: AuthorisedRange, nro: int) -> Numbering:
        """Number `nro` of a CAE range, as the CFE signs it (zona G)."""
        return cls(
            serie=cae.serie,
            nro=nro,
            cae_id=cae.cae_id,
            dnro=cae.dnro,
            hnro=cae.hnro,
            fec_venc=cae.vencimiento,
            cae_especial=cae.cae_especial,
            causal_cae_esp=cae.causal_cae_esp,
        )

    def problems(self, fch_emis: date) -> list[tuple[str, str, str]]:
        """(field, code, Spanish message) for each inconsistency; empty when the number can be used."""
        found = []
        if not _SERIE.match(self.serie):
            found.append(("serie", "format", "Serie inválida."))
        if not 1 <= self.dnro <= self.nro <= self.hnro <= 9_999_999:
            found.append(
                ("nro", "out_of_range", f"El número {self.nro} no está en el rango del CAE {self.dnro}-{self.hnro}.")
            )
        if not 0 < self.cae_id <= 99_999_999_999:
            found.append(("caeId", "format", "El número de CAE debe tener hasta 11 dígitos."))
        if self.fec_venc < fch_emis:
            found.append(("fecVenc", "cae_expired", f"El CAE venció el {self.fec_venc:%d/%m/%Y}."))
        if self.cae_especial is not None and self.cae_especial not in (1, 2, 3, 4):
            found.append(("caeEspecial", "not_allowed", "CAE especial: 1, 2, 3 o 4."))
        if self.causal_cae_esp is not None and self.cae_especial != 1:
            found.append(("causalCAEEsp", "not_allowed", "La causal solo corresponde a CAE especial 1."))
        if self.cae_especial == 1 and self.causal_cae_esp is None:
            found.append(("causalCAEEsp", "required", "Un CAE especial de exonerado (1) debe indicar su causal."))
        return found
