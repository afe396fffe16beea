"""What the DGI lookups answer: frozen dataclasses with a `to_json()` in lower camelCase.

The four lookups and what each fills:

- `consulta_rut(rut)` -> `Entity` with the identity only: RUT, denominación, nombre de fantasía, entity type,
  activity state, start date and the electronic-issuer flag. `domicilio_fiscal` and `actividades` are None
  (not part of this answer) and their keys are left out of the JSON. It is the light answer a receptor form
  needs to fill a name.
- `consulta_datos_entidad(rut)` -> `Entity` with everything: the identity plus the fiscal address with its
  contacts and the list of registered activities (CIIU rev.4 codes, "giros").
- `consulta_nombre_entidad(tipo_doc, nro_doc)` -> `EntityName`: just the name registered for a document.
- `consulta_cva(rut)` -> `CvaStatus`: the annual tax-compliance certificate (Certificado de Vigencia Anual,
  "Certificado Único"). DGI publishes no machine-readable form of it, so its shape is this project's.

Source of the field set: DGI's WS_PersonaActEmpresarial answer (../shared/domain/CFE-URUGUAY.md section 9).
Meanings of codes DGI does not describe are assumptions, listed where each code table lives.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

# "AA" is the only activity state seen in a real DGI answer (DGI's own test RUT). Reading it as "active" is an
# inference; every other code is treated as not active. The other codes below are the sandbox's assumption.
ACTIVE_STATE = "AA"
ACTIVITY_STATES = {
    "AA": "ACTIVO",
    "CL": "CLAUSURADO",
    "SU": "SUSPENDIDO",
}


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value else None


@dataclass(frozen=True)
class Contact:
    """One contact of an address, as DGI lists it (e.g. "CORREO ELECTRONICO", "TELEFONO FIJO")."""

    tipo: str
    valor: str

    def to_json(self) -> dict:
        return {"tipo": self.tipo, "valor": self.valor}


@dataclass(frozen=True)
class Address:
    """The fiscal address of the main establishment (DGI's WS_DomFiscalLocPrincipal)."""

    calle: str
    numero: str | None
    apartamento: str | None
    localidad: str
    departamento_id: int | None
    departamento_nombre: str
    codigo_postal: str | None
    contactos: tuple[Contact, ...] = ()

    def to_json(self) -> dict:
        return {
            "calle": self.calle,
            "numero": self.numero,
            "apartamento": self.apartamento,
            "localidad": self.localidad,
            "departamentoId": self.departamento_id,
            "departamentoNombre": self.departamento_nombre,
            "codigoPostal": self.codigo_postal,
            "contactos": [c.to_json() for c in self.contactos],
        }


@dataclass(frozen=True)
class Activity:
    """A registered activity ("giro"): CIIU rev.4 code at 5 digits, its name and start date."""

    giro_cod: str
    giro_nom: str
    fecha_inicio: date | None

    def to_json(self) -> dict:
        return {"giroCod": self.giro_cod, "giroNom": self.giro_nom, "fechaInicio": _iso(self.fecha_inicio)}


@dataclass(frozen=True)
class Entity:
    """A taxpayer as DGI's RUT registry knows it.

    `emisor_electronico` is None when the backend cannot tell: DGI's WS_PersonaGetActEmpresarial does not
    carry it (DGI answers that in a different service, ws_consultas EFACCONSULTARRUCEMISORES).
    `domicilio_fiscal` and `actividades` are None in a `consulta_rut` answer (see the module docstring).
    """

    rut: str
    denominacion: str
    nombre_fantasia: str | None
    tipo_entidad: str
    tipo_entidad_descripcion: str
    estado_actividad: str
    estado_actividad_descripcion: str
    fecha_inicio_actividad: date | None
    emisor_electronico: bool | None = None
    emisor_electronico_desde: date | None = None
    domicilio_fiscal: Address | None = None
    actividades: tuple[Activity, ...] | None = None

    @property
    def activo(self) -> bool:
        return self.estado_actividad == ACTIVE_STATE

    def identity(self) -> Entity:
        """The same entity without address and activities: what `consulta_rut` answers."""
        return Entity(
            self.rut,
            self.denominacion,
            self.nombre_fantasia,
            self.tipo_entidad,
            self.tipo_entidad_descripcion,
            self.estado_actividad,
            self.estado_actividad_descripcion,
            self.fecha_inicio_actividad,
            self.emisor_electronico,
            self.emisor_electronico_desde,
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "rut": self.rut,
            "denominacion": self.denominacion,
            "nombreFantasia": self.nombre_fantasia,
            "tipoEntidad": self.tipo_entidad,
            "tipoEntidadDescripcion": self.tipo_entidad_descripcion,
            "estadoActividad": self.estado_actividad,
            "estadoActividadDescripcion": self.estado_actividad_descripcion,
            "activo": self.activo,
            "fechaInicioActividad": _iso(self.fecha_inicio_actividad),
            "emisorElectronico": self.emisor_electronico,
            "emisorElectronicoDesde": _iso(self.emisor_electronico_desde),
        }
        if self.domicilio_fiscal is not None:
            data["domicilioFiscal"] = self.domicilio_fiscal.to_json()
        if self.actividades is not None:
            data["actividades"] = [a.to_json() for a in self.actividades]
        return data


@dataclass(frozen=True)
class EntityName:
    """The name registered for a document: a company's denominación or a person's full name."""

    tipo_doc: int
    nro_doc: str
    nombre: str

    def to_json(self) -> dict:
        return {"tipoDoc": self.tipo_doc, "nroDoc": self.nro_doc, "nombre": self.nombre}


@dataclass(frozen=True)
class CvaStatus:
    """The annual tax-compliance certificate of a RUT (shape assumed: DGI publishes none).

    Three states, as DGI's web consultation shows them: a current certificate (`vigente`), an expired one
    (numero and dates of the last certificate), or none ever issued (numero and dates None).
    """

    rut: str
    denominacion: str
    vigente: bool
    numero: str | None
    fecha_emision: date | None
    fecha_vencimiento: date | None

    @property
    def estado(self) -> str:
        if self.vigente:
            return "VIGENTE"
        return "VENCIDO" if self.fecha_vencimiento else "SIN_CERTIFICADO"

    def to_json(self) -> dict:
        return {
            "rut": self.rut,
            "denominacion": self.denominacion,
            "vigente": self.vigente,
            "estado": self.estado,
            "numero": self.numero,
            "fechaEmision": _iso(self.fecha_emision),
            "fechaVencimiento": _iso(self.fecha_vencimiento),
        }
