"""HTTP endpoints of the cotizaciones group: the rate that applies to a day, and the BCU stand-in's SOAP
endpoint (development and tests only), which answers awsbcucotizaciones' Execute from bcu.standin_rates."""

from __future__ import annotations

from datetime import date

from flask import Blueprint, Flask, Response, abort, current_app, request
from lxml import etree

from portal.domain.money import cfe_rate
from portal.domain.roles import ALL
from portal.domain.uruguay_time import today_montevideo
from portal.service.cotizaciones import bcu, rates
from portal.service.cotizaciones.rates import rate_on
from portal.service.cotizaciones.schemas import (
    Cotizacion,
    Cotizaciones,
    CotizacionesQuery,
    CotizacionQuery,
    DiaCotizacion,
)
from portal.service.platform import db
from portal.service.platform.api import operation
from portal.service.platform.auth import API_KEY, JWT, Principal
from portal.service.platform.errors import NotFound
from portal.service.platform.i18n import _

bp = Blueprint("cotizaciones", __name__, url_prefix="/api/v1/cotizaciones")
standin = Blueprint("bcu_standin", __name__, url_prefix="/simuladores/bcu")
TAG = "Cotizaciones"
_SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
_COTIZA = "Cotiza"
# The stand-in's parser: no DTD, no entities, no network. Not cfe.xmlsafe's: the BCU's namespace ("Cotiza") is a
# relative URI, which that intake refuses for CFEs.
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False)
_MAX_REQUEST_BYTES = 16_384


@operation(
    bp,
    "GET",
    "",
    tag=TAG,
    summary="La cotización de una moneda para un día",
    auth=(JWT, API_KEY),
    roles=ALL,
    query=CotizacionQuery,
    responses={200: Cotizacion, 404: "No hay una cotización de esa moneda en los 10 días anteriores (sin_cotizacion)."},
)
def cotizacion(principal: Principal, query: CotizacionQuery):
    """La cotización (interbancaria, billete) que corresponde a un comprobante del día `fecha`: la última
    publicada ese día o antes; la venta es la que se propone como tipo de cambio del CFE. `fuente` dice de quién
    es: del BCU, del simulador del BCU (no oficial) o de un operador."""
    day = query.fecha or today_montevideo()
    row = rate_on(db.session(), query.moneda, day)
    if row is None:
        raise NotFound(
            _(
                "No hay cotización de {moneda} publicada en los 10 días anteriores al {fecha}.",
                moneda=query.moneda,
                fecha=f"{day:%d/%m/%Y}",
            ),
            code="sin_cotizacion",
        )
    return Cotizacion(moneda=query.moneda, fecha=row.day, compra=row.buy, venta=row.sell, fuente=row.source)


@operation(
    bp,
    "GET",
    "/dias",
    tag=TAG,
    summary="Las cotizaciones de una moneda día por día en un período",
    auth=(JWT, API_KEY),
    roles=ALL,
    query=CotizacionesQuery,
    responses={
        200: Cotizaciones,
        422: "Moneda o fechas no válidas, desde posterior a hasta (rango_invalido) o un período de más de 366 días "
        "(periodo_demasiado_largo).",
    },
)
def cotizaciones_por_dia(principal: Principal, query: CotizacionesQuery):
    """Cada día del período, del más reciente al más antiguo: la compra y la venta publicadas ese día (null en
    fines de semana y feriados: el BCU no publica) y su fuente, y el tipo de cambio que toma un comprobante de ese
    día (la venta de la última cotización publicada ese día o antes, a lo sumo 10 días antes, con 3 decimales),
    con el día del que sale."""
    items = [
        DiaCotizacion(
            fecha=found.day,
            compra=found.published.buy if found.published else None,
            venta=found.published.sell if found.published else None,
            fuente=found.published.source if found.published else None,
            tipo_cambio=cfe_rate(found.applied.sell) if found.applied else None,
            fecha_tipo_cambio=found.applied.day if found.applied else None,
        )
        for found in rates.days(db.session(), query.moneda, query.desde, query.hasta)
    ]
    return Cotizaciones(
        moneda=query.moneda,
        desde=query.desde,
        hasta=query.hasta,
        publicadas="bcu" if current_app.config["RATES_SOURCE"] == "bcu" else "simulador",
        dias_atras=rates.MAX_AGE_DAYS,
        items=items,
    )


def _q(name: str) -> str:
    return f"{{{_COTIZA}}}{name}"


def _asked(data: bytes) -> tuple[tuple[str, ...], date, date]:
    """The currencies (of bcu.MONEDAS) and the days an Execute asks for; ValueError when it is not one."""
    entrada = etree.fromstring(data, _PARSER).find(f".//{_q('Entrada')}")
    if entrada is None:
        raise ValueError("no Entrada")
    codes = {code: currency for currency, code in bcu.MONEDAS.items()}
    numbers = [int(item.text or "") for item in entrada.iterfind(f"{_q('Moneda')}/{_q('item')}")]
    start = date.fromisoformat(entrada.findtext(_q("FechaDesde"), ""))
    end = date.fromisoformat(entrada.findtext(_q("FechaHasta"), ""))
    return tuple(codes[number] for number in numbers if number in codes), start, end


@standin.post("/awsbcucotizaciones")
def execute() -> Response:
    """awsbcucotizaciones' Execute, answered from the stand-in's figures (bcu.standin_rates)."""
    data = request.get_data()
    if len(data) > _MAX_REQUEST_BYTES or b"<!DOCTYPE" in data:
        abort(400)
    try:
        wanted, start, end = _asked(data)
    except (etree.XMLSyntaxError, ValueError):
        abort(400)
    published = bcu.standin_rates(wanted, start, end) if (end - start).days <= 366 else []
    envelope = etree.Element(f"{{{_SOAP}}}Envelope", nsmap={"SOAP-ENV": _SOAP})
    answer = etree.SubElement(
        etree.SubElement(envelope, f"{{{_SOAP}}}Body"),
        _q("wsbcucotizaciones.ExecuteResponse"),
        nsmap={None: _COTIZA},  # type: ignore[dict-item]  # None is lxml's default namespace; the stubs say str
    )
    salida = etree.SubElement(answer, _q("Salida"))
    status = etree.SubElement(salida, _q("respuestastatus"))
    for name, value in (
        ("status", "1" if published else "0"),
        ("codigoerror", "0" if published else "100"),
        ("mensaje", ""),
    ):
        etree.SubElement(status, _q(name)).text = value
    datos = etree.SubElement(salida, _q("datoscotizaciones"))
    for rate in published:
        dato = etree.SubElement(datos, _q("datoscotizaciones.dato"))
        fields = {
            "Fecha": rate.day.isoformat(),
            "Moneda": str(bcu.MONEDAS[rate.currency]),
            "Nombre": rate.currency,
            "CodigoISO": rate.currency,
            "Emisor": bcu.STANDIN_ISSUER,  # not the BCU's name: what it publishes is invented
            "TCC": f"{rate.buy}",
            "TCV": f"{rate.sell}",
            "ArbAct": "0",
            "FormaArbitrar": "0",
        }
        for name, value in fields.items():
            etree.SubElement(dato, _q(name)).text = value
    return Response(etree.tostring(envelope, xml_declaration=True, encoding="utf-8"), mimetype="text/xml")


def init_app(app: Flask) -> None:
    """The stand-in is served only where the rates do not come from the real BCU's address."""
    if app.config["RATES_SOURCE"] == "standin" or app.config["BCU_URL"] != bcu.BCU_URL:
        app.register_blueprint(standin)
