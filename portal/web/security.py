"""Security headers on every response: a strict Content-Security-Policy and its companions.

No 'unsafe-inline' and no 'unsafe-eval': the pages load only our own scripts and styles, htmx is configured
not to inject styles or eval, and there are no inline handlers (`hx-on*`, `onclick`) anywhere.
"""

from __future__ import annotations

from flask import Flask, current_app, request

_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; frame-src 'self'; form-action 'self' {idp}; frame-ancestors {frames}; "
    "base-uri 'none'; object-src 'none'"
)

_PDF_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors {frames}; base-uri 'none'; form-action 'none'"
)


def init_app(app: Flask) -> None:
    @app.after_request
    def _security_headers(response):
        idp = current_app.config["OIDC_ISSUER"].rstrip("/")
        # The portal frames its own PDF previews; nobody else may frame the portal.
        frames = "'self'" if request.path.endswith(".pdf") or "/pdf" in request.path else "'none'"
        if response.mimetype == "application/pdf":
            # Chromium shows a PDF inside a wrapper page of its own with inline styles; the page policy would
            # block them (a CSP violation in the console). A PDF runs none of our scripts or styles.
            response.headers.setdefault("Content-Security-Policy", _PDF_CSP.format(frames=frames))
        response.headers.setdefault("Content-Security-Policy", _CSP.format(idp=idp, frames=frames))
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        response.headers.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
        if current_app.config["HSTS"]:
            response.headers.setdefault(
                "Strict-Transport-Security", f"max-age={current_app.config['HSTS_SECONDS']}; includeSubDomains"
            )
        if frames == "'none'":
            response.headers.setdefault("X-Frame-Options", "DENY")
        if response.mimetype == "text/html" or request.endpoint != "static":
            # Pages show fiscal data and are per user: never cached by the browser or a proxy.
            response.headers.setdefault("Cache-Control", "no-store")
        return response
