"""The provider's pages' few texts (sign-in, sign-out, password change) in Spanish (default) and English, chosen
by OIDC `ui_locales`."""

from flask import request

TEXTS = {
    "es": {
        "title": "Ingresar",
        "heading": "Ingresá a tu cuenta",
        "email": "Correo electrónico",
        "password": "Contraseña",
        "submit": "Ingresar",
        "bad_credentials": "Correo o contraseña incorrectos.",
        "missing_credentials": "Escribí tu correo electrónico y tu contraseña.",
        "bad_email": "Revisá el correo electrónico: tiene que ser como nombre@empresa.com.uy.",
        "expired_form": "La página estuvo abierta demasiado tiempo. Volvé a escribir tu contraseña.",
        "locked": "Demasiados intentos fallidos. Esperá unos minutos y volvé a intentar.",
        "signed_out": "Cerraste la sesión.",
        "logout_title": "Cerrar la sesión",
        "logout_from": "Pedido por",
        "logout_question": "¿Querés cerrar tu sesión de ingreso en este navegador?",
        "logout_submit": "Cerrar la sesión",
        "expired_form_logout": "La página estuvo abierta demasiado tiempo. Volvé a confirmar.",
        "error_title": "No se puede iniciar sesión",
        "for_client": "para continuar a",
        "switch": "English",
        "switch_lang": "en",
    },
    "en": {
        "title": "Sign in",
        "heading": "Sign in to your account",
        "email": "E-mail",
        "password": "Password",
        "submit": "Sign in",
        "bad_credentials": "Wrong e-mail or password.",
        "missing_credentials": "Enter your e-mail and your password.",
        "bad_email": "Check the e-mail address: it should look like name@company.com.uy.",
        "expired_form": "The page was open for too long. Enter your password again.",
        "locked": "Too many failed attempts. Wait a few minutes and try again.",
        "signed_out": "You have signed out.",
        "logout_title": "Sign out",
        "logout_from": "Asked by",
        "logout_question": "Do you want to end your sign-in session in this browser?",
        "logout_submit": "Sign out",
        "expired_form_logout": "The page was open for too long. Confirm again.",
        "error_title": "Cannot sign in",
        "for_client": "to continue to",
        "switch": "Español",
        "switch_lang": "es",
    },
}


def texts_for(locale: str) -> dict[str, str]:
    return TEXTS["en" if locale == "en" else "es"]


def requested_locale() -> str:
    """The page's language: OIDC `ui_locales` (or `lang`), Spanish unless English comes first."""
    wanted = (request.values.get("ui_locales") or request.values.get("lang") or "").split()
    return "en" if wanted and wanted[0].lower().startswith("en") else "es"
