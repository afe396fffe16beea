"""The CFE REST service: the 18 endpoints under /api/v1 and the OpenID Connect provider behind them."""

from __future__ import annotations

from datetime import timedelta
from types import ModuleType
from typing import Any

from flask import Flask, jsonify, render_template
from sqlalchemy import text

from portal import logsafe, static_files
from portal.service import identity
from portal.service.platform import accredited_cas, api, db, errors, jobs, ratelimit, readcache, requestid
from portal.service.platform.areas import area_modules
from portal.service.platform.config import load_config
from portal.service.platform.openapi import document_json
from portal.service.platform.slowbody import BodyReadDeadline

# Pages the service itself renders (sign-in, API reference) load only our own files.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; form-action 'self' {form_targets}; frame-ancestors 'none'; base-uri 'none'; "
    "object-src 'none'"
)


def area_routes() -> tuple[ModuleType, ...]:
    """Each area's routes module (importing one registers its operations); an area with tables and commands
    but no endpoints (indices) has none."""
    return area_modules("routes")


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the service. `test_config` overrides settings (tests point it at their own database)."""
    app = Flask(__name__, static_folder=None)
    app.url_map.converters["int"] = api.PathInteger
    app.config.update(load_config())
    if test_config:
        app.config.update(test_config)
    https = app.config["ISSUER"].startswith("https://")
    if app.config.get("SECURE_COOKIES") is None:
        app.config["SECURE_COOKIES"] = https
    app.config["HSTS"] = https and app.config.get("HSTS_SECONDS", 0) > 0
    app.config.update(
        MAX_CONTENT_LENGTH=app.config["MAX_BODY_BYTES"],
        # Over https the cookie that holds the provider's session and its CSRF secret is `__Host-`: the browser
        # then takes it only from this host, Secure, for the whole path, so a sibling subdomain cannot plant one.
        SESSION_COOKIE_NAME=("__Host-" if app.config["SECURE_COOKIES"] else "") + "cfe_idp_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=app.config["SECURE_COOKIES"],
        PERMANENT_SESSION_LIFETIME=timedelta(hours=app.config["IDP_SESSION_HOURS"]),
    )
    if not app.config.get("SECRET_KEY"):
        raise RuntimeError("No service secret key: run `make run` or set CFE_SERVICE_SECRET_KEY.")
    app.json.sort_keys = False  # type: ignore[attr-defined]  # DefaultJSONProvider's settings
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    logsafe.install("portal")

    requestid.init_app(app)
    errors.init_app(app)
    db.init_app(app)
    readcache.init_app(app)
    ratelimit.init_app(app)
    accredited_cas.init_app(app)

    identity.init_app(app)
    for routes in area_routes():
        app.register_blueprint(routes.bp)
        if hasattr(routes, "init_app"):
            routes.init_app(app)
    for wiring in area_modules("wiring"):  # what an area registers with those below it (comprobante.hooks)
        wiring.init_app(app)
    _register_platform_routes(app)
    jobs.init_app(app, factory=create_app)
    app.wsgi_app = BodyReadDeadline(  # type: ignore[method-assign]  # WSGI middleware, as Flask documents
        app.wsgi_app,
        idle_seconds=app.config["BODY_IDLE_SECONDS"],
        limit=app.config["MAX_CONTENT_LENGTH"],
        limits_by_path=app.extensions.get("body_limits_by_path"),
    )
    return app


def _register_platform_routes(app: Flask) -> None:

    @app.get("/healthz")
    def healthz():
        """Liveness and database reachability."""
        with db.new_session() as session:
            session.execute(text("SELECT 1"))
        return jsonify({"status": "ok"})

    @app.get("/api/v1/openapi.json")
    def openapi_document():
        """The OpenAPI 3.1 description of every operation."""
        return app.response_class(document_json(app.config["ISSUER"]), mimetype="application/json")

    @app.get("/api/v1/docs")
    def api_reference():
        """A human-readable API reference (Swagger UI, installed from the npm registry at setup)."""
        return render_template("api_docs.html")

    static_files.init_app(app, app.config["STATIC_DIR"], endpoint="static_files")

    @app.after_request
    def _security_headers(response):
        targets = " ".join(sorted({uri.split("/auth/")[0] for uri in app.config["PORTAL_REDIRECT_URIS"]}))
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY.format(form_targets=targets))
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Frame-Options", "DENY")
        if app.config["HSTS"]:
            response.headers.setdefault(
                "Strict-Transport-Security", f"max-age={app.config['HSTS_SECONDS']}; includeSubDomains"
            )
        if response.mimetype == "application/json" or response.mimetype == "text/html":
            response.headers.setdefault("Cache-Control", "no-store")
        return response
