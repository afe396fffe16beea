"""The portal: Flask + Jinja + htmx, rendered on the server, talking to the CFE service via portal.client."""

from __future__ import annotations

import importlib
import time
import uuid
from typing import Any

from cachelib import FileSystemCache, SimpleCache
from flask import Flask, g, request

from portal import logsafe, paths, static_files
from portal.client.oidc import OidcClient
from portal.web import activity, errors, i18n, security, shell, upload_limits
from portal.web.auth.session import session_expired
from portal.web.compiled_i18n import PerCatalogBytecodeCache, PortalEnvironment
from portal.web.config import load_config
from portal.web.extensions import csrf, htmx, login_manager, server_session
from portal.web.navigation import role_label, visible_nav

AREAS = (
    "comprobantes",
    "apikeys",
    "dgi",
    "inteligente",
    "envios",
    "empresa",
    "correo",
    "informes",
    "cotizaciones",
    "clientes",
    "productos",
    "webhooks",
    "avisos",
    "recibidos",
)
_ACTIVITY_RESOLUTION_SECONDS = 60
# Compiled templates shared by every portal app of the process (all configure Jinja alike), so a template is
# compiled once per process, not once per app: tests build hundreds of apps, and compiling the templates a
# page uses cost more CPU than the request. Entries are checked against the template's source, so an edited
# template is compiled again.
# cachelib's SimpleCache has the get/set (key, value, timeout) Jinja's memcached protocol asks for. Per catalog:
# templates are compiled with their language's text (portal/web/compiled_i18n.py).
_COMPILED_TEMPLATES = PerCatalogBytecodeCache(SimpleCache(threshold=2000, default_timeout=0))  # type: ignore[arg-type]


def _session_settings(app: Flask) -> dict[str, Any]:
    common = {
        "SESSION_PERMANENT": True,
        "PERMANENT_SESSION_LIFETIME": app.config["ABSOLUTE_TIMEOUT"],
        # Over https the cookie that names the session (which holds the CSRF secret too) is `__Host-`: only from
        # this host, Secure, Path=/, never a Domain, so a sibling subdomain cannot plant or overwrite it.
        "SESSION_COOKIE_NAME": ("__Host-" if app.config["SECURE_COOKIES"] else "") + "cfe_portal_session",
        "SESSION_COOKIE_PATH": "/",
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": app.config["SECURE_COOKIES"],
        # Write the stored session only when a request changed it: a concurrent request that merely
        # read it (a poll, an asset) must not save its stale copy over the OAuth state or fresh tokens.
        "SESSION_REFRESH_EACH_REQUEST": False,
    }
    if app.config.get("SESSION_REDIS_URL"):
        import redis

        return {
            **common,
            "SESSION_TYPE": "redis",
            "SESSION_REDIS": redis.Redis.from_url(app.config["SESSION_REDIS_URL"]),
        }
    return {
        **common,
        "SESSION_TYPE": "cachelib",
        "SESSION_CACHELIB": FileSystemCache(app.config["SESSION_DIR"], threshold=5000, mode=0o600),
    }


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the portal. `test_config` overrides settings (tests point it at a live service)."""
    # static_folder=None: portal/static_files.py serves static/ under content addresses, as the "static" endpoint.
    app = Flask(__name__, template_folder=str(paths.templates_dir()), static_folder=None)
    app.jinja_environment = PortalEnvironment  # before anything asks for app.jinja_env
    app.config.update(load_config())
    if test_config:
        app.config.update(test_config)
    if not app.config.get("SECRET_KEY"):
        raise RuntimeError("No portal secret key: run `make run` or set PORTAL_SECRET_KEY.")
    https = app.config["PUBLIC_URL"].startswith("https://")
    if app.config.get("SECURE_COOKIES") is None:
        app.config["SECURE_COOKIES"] = https
    app.config["HSTS"] = https and app.config["HSTS_SECONDS"] > 0
    app.config.update(_session_settings(app))
    app.jinja_env.bytecode_cache = _COMPILED_TEMPLATES
    app.config.setdefault("MAX_CONTENT_LENGTH", 2 * 1024 * 1024 + 64 * 1024)
    app.config.setdefault("WTF_CSRF_TIME_LIMIT", None)  # the session's own timeouts bound the token's life
    # wtforms' messages are translated by PortalForm's Meta (catalog cached per language), not by flask-wtf,
    # which loads the catalog again on every request that builds a form.
    app.config["WTF_I18N_ENABLED"] = False
    logsafe.install("portal")

    server_session.init_app(app)
    upload_limits.init_app(app)
    csrf.init_app(app)
    htmx.init_app(app)
    login_manager.init_app(app)
    login_manager.login_view = "auth.login"
    i18n.init_app(app)
    security.init_app(app)
    static_files.init_app(app, str(paths.static_dir()), endpoint="static")
    errors.init_app(app)
    activity.init_app(app)
    _register_oidc_client(app)

    # Each area's routes module adds its views to the area's `bp` (defined in the package, as flaskr does).
    for area in ("auth", "main", *AREAS):
        app.register_blueprint(importlib.import_module(f"portal.web.{area}.routes").bp)

    _register_request_hooks(app)
    return app


def _register_oidc_client(app: Flask) -> None:
    app.extensions["oidc_client"] = OidcClient(
        app.config["OIDC_ISSUER"], app.config["OIDC_CLIENT_ID"], app.config["OIDC_CLIENT_SECRET"], timeout=10
    )


def _register_request_hooks(app: Flask) -> None:
    from flask import session

    @app.before_request
    def _before():
        g.request_id = uuid.uuid4().hex
        if session_expired():
            session.clear()
        elif (
            "login_at" in session
            and request.endpoint != "static"
            and time.time() - session.get("last_seen", 0) > _ACTIVITY_RESOLUTION_SECONDS
        ):
            # Recording activity at most once a minute keeps the idle timeout exact to the minute while
            # most requests leave the stored session untouched.
            session["last_seen"] = time.time()

    @app.after_request
    def _request_id_header(response):
        response.headers.setdefault("X-Request-ID", g.get("request_id", ""))
        return response

    # The areas the role may see are asked for by the header only (visible_nav), and the header is drawn once per
    # user, area and language (portal/web/shell.py), not on every page.
    app.jinja_env.globals.update(site_part=shell.site_part, visible_nav=visible_nav, role_label=role_label)
