"""Error pages (403, 404, 429, 500, 503) as full pages, or as a banner fragment for htmx requests.

htmx requests get the error in the page's alert region (HX-Retarget #alerts), so what the user typed
in a form stays where it is. Service failures always say what to do next.
"""

from __future__ import annotations

import logging
from contextlib import suppress

from flask import Flask, g, request
from flask_babel import gettext as _
from flask_htmx import make_response as htmx_response
from werkzeug.exceptions import HTTPException

from portal.client import errors as client_errors
from portal.web.auth.session import STALE_MEMBERSHIP, end_session, safe_next, update_companies
from portal.web.backend import SessionExpired, api
from portal.web.extensions import htmx, login_manager
from portal.web.rendering import render

log = logging.getLogger("portal.web")


def _error(status: int, title: str, message: str, *, retry_after: float | None = None, look_back: str | None = None):
    context = {
        "error_status": status,
        "title": title,
        "message": message,
        "request_id": g.get("request_id"),
        "retry_after": retry_after,
        "look_back": look_back,
    }
    if htmx and not htmx.boosted:
        body = render("errors/error.html", "alert", status=status, **context)
        return htmx_response(body, retarget="#alerts", reswap="innerHTML")
    return render("errors/error.html", status=status, **context)


def _service_down_advice(exc: client_errors.ServiceUnavailable) -> str:
    """What to do when the service does not answer, by what is still on the user's screen: an htmx form gets
    the banner above it and keeps what was typed; a full-page form post has replaced the form; a page view only
    needs another try. A full-page post that timed out may have been done all the same (the service got it and
    was slow): sending it again could act twice or be refused, so the person looks first."""
    if request.method == "GET":
        return _("Esperá unos segundos y volvé a intentar; si sigue igual, avisá a soporte con el código de abajo.")
    if htmx and not htmx.boosted:
        return _(
            "No perdiste nada: tus datos siguen en el formulario. Esperá unos segundos y volvé a enviarlo; "
            "si sigue igual, avisá a soporte con el código de abajo."
        )
    if exc.code == "timeout":
        return _(
            "El servicio no respondió a tiempo, así que no sabemos si se hizo. Mirá cómo quedó antes de enviarlo "
            "de nuevo; si sigue igual, avisá a soporte con el código de abajo."
        )
    return _(
        "Volvé a la página anterior y enviá el formulario de nuevo en unos segundos; si sigue igual, avisá a "
        "soporte con el código de abajo."
    )


def init_app(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        titles = {
            403: _("No tenés permiso para ver esto"),
            404: _("No encontramos esa página"),
            405: _("Acción no permitida"),
            413: _("El archivo es demasiado grande"),
            400: _("La solicitud no es válida"),
        }
        messages = {
            403: _(
                "Tu rol en esta empresa no permite esta acción. Si creés que es un error, "
                "pedile acceso a un administrador."
            ),
            404: _("Revisá la dirección o volvé al inicio."),
            405: _("Esta dirección no acepta esa acción. Volvé a la página anterior y usá sus botones."),
            400: _("Revisá lo que enviaste y volvé a intentar."),
            413: _("Probá con un archivo más chico (máximo 2 MB)."),
        }
        if exc.code == 400 and "CSRF" in (exc.description or ""):
            return _error(400, _("La página venció"), _("Recargá la página y volvé a intentar."))
        # Never werkzeug's own name or description: they are English and technical.
        code = exc.code or 500
        return _error(
            code,
            titles.get(code, _("No pudimos completar la solicitud")),
            messages.get(code, _("Volvé a la página anterior o al inicio y probá de nuevo.")),
        )

    @app.errorhandler(SessionExpired)
    @app.errorhandler(client_errors.Unauthorized)
    def _expired(_exc):

        end_session()
        return login_manager.unauthorized()

    @app.errorhandler(client_errors.ServiceUnavailable)
    def _service_down(exc: client_errors.ServiceUnavailable):
        log.warning("service unavailable: %s (code=%s request_id=%s)", exc.message, exc.code, exc.request_id)
        unknown = exc.code == "timeout" and request.method != "GET" and not (htmx and not htmx.boosted)
        look_back = safe_next(request.referrer) if unknown else None
        return _error(503, _("El servicio CFE no está respondiendo"), _service_down_advice(exc), look_back=look_back)

    @app.errorhandler(client_errors.RateLimited)
    def _rate_limited(exc: client_errors.RateLimited):
        # A download refused while the company's others run says so in the service's words (in the user's
        # language); any other limit is the service asking to wait.
        advice = exc.message if exc.code == "descargas_en_curso" else None
        return _error(
            429,
            _("Demasiadas solicitudes"),
            advice or _("El servicio pidió esperar antes de seguir. Volvé a intentar en unos segundos."),
            retry_after=exc.retry_after,
        )

    @app.errorhandler(client_errors.Forbidden)
    def _forbidden(exc: client_errors.Forbidden):
        if exc.code in STALE_MEMBERSHIP:
            _read_companies_again()
        return _error(403, _("No tenés permiso para ver esto"), exc.message)

    def _read_companies_again() -> None:
        """The service refused for a role or a company this session still believed in: read the user's companies
        again, so this page and the next show the navigation of the role they have now."""
        with suppress(client_errors.CfeError, SessionExpired):
            update_companies(api().userinfo())

    @app.errorhandler(client_errors.NotFound)
    def _not_found(exc: client_errors.NotFound):
        return _error(404, _("No encontrado"), exc.message)

    @app.errorhandler(client_errors.CfeError)
    def _other_service_error(exc: client_errors.CfeError):
        return _error(502, _("El servicio CFE respondió con un error"), exc.message)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("unhandled error on %s request_id=%s", request.path, g.get("request_id"))
        return _error(
            500,
            _("Algo salió mal"),
            _("Fue un error nuestro. Volvé a intentar; si se repite, avisá a soporte con el código de abajo."),
        )
