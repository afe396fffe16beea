"""HTTP endpoints of the compliance watch (`GET /api/v1/empresa/salud`) and of the notification centre
(`/api/v1/empresa/avisos`), under the Empresa prefix."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Blueprint, Response

from portal.domain.roles import ALL
from portal.service.platform import db
from portal.service.platform.api import operation
from portal.service.platform.auth import API_KEY, JWT, Principal
from portal.service.platform.i18n import say
from portal.service.salud import checks, notices
from portal.service.salud.concerns import SEVERITY, State
from portal.service.salud.schemas import ConcernOut, HealthOut, NoticePage, NoticeQuery

bp = Blueprint("salud", __name__, url_prefix="/api/v1/empresa")
TAG = "Empresa"


@operation(
    bp,
    "GET",
    "/salud",
    tag=TAG,
    summary="El control de cumplimiento de la empresa",
    auth=(JWT, API_KEY),
    roles=ALL,
    responses={200: HealthOut},
)
def get_health(principal: Principal):
    """Una entrada por preocupación, cada una ok, warning o problem, con una frase, qué hacer y dónde:
    días del certificado (avisa a 30, 15, 7 y 1), cada rango de CAE (números que quedan contra el uso de
    los últimos 30 días: avisa con 20% o menos, o menos de 30 días de uso; días para vencer, y anular lo que
    quede al vencer), el reporte diario de ayer enviado y aceptado, comprobantes que esperan a DGI más del
    tiempo configurado, y sobres rechazados. Se calcula en el momento; el control programado avisa cuando
    algo empeora."""
    now = datetime.now(UTC)
    found = checks.evaluate(checks.Context(db.session(), principal.company_id, now))
    worst: State = max((c.state for c in found), key=SEVERITY.__getitem__, default="ok")
    items = [
        ConcernOut(
            clave=c.key,
            tipo=c.kind,
            estado=c.state,
            mensaje=say(c.message),
            accion=say(c.action),
            enlace=c.link,
            datos=c.facts,
        )
        for c in found
    ]
    return HealthOut(estado=worst, comprobado=now, items=items)


@operation(
    bp,
    "GET",
    "/avisos",
    tag=TAG,
    summary="Los avisos de la empresa",
    auth=(JWT,),
    roles=ALL,
    query=NoticeQuery,
    responses={200: NoticePage},
)
def list_notices(principal: Principal, query: NoticeQuery):
    """Los avisos del control de cumplimiento, el más nuevo primero, con `leido` para quien pregunta y
    `noLeidos`, la cuenta de la campana."""
    return notices.page(principal, query)


@operation(
    bp,
    "POST",
    "/avisos/<int:aviso_id>/leido",
    tag=TAG,
    summary="Marcar un aviso como leído",
    auth=(JWT,),
    roles=ALL,
    responses={204: None, 404: "No existe ese aviso en la empresa."},
    path_params={"aviso_id": "El id del aviso, como lo da la lista."},
)
def read_notice(principal: Principal, aviso_id: int):
    """Para quien lo pide; los demás lo siguen viendo sin leer."""
    notices.mark_read(principal, aviso_id)
    return Response(status=204)


@operation(
    bp,
    "POST",
    "/avisos/leidos",
    tag=TAG,
    summary="Marcar todos los avisos como leídos",
    auth=(JWT,),
    roles=ALL,
    responses={204: None},
)
def read_all_notices(principal: Principal):
    """Todos los avisos de la empresa, para quien lo pide."""
    notices.mark_read(principal, None)
    return Response(status=204)
