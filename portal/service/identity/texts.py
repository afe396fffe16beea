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
        "bad_parameter": "El parámetro {name} de la solicitud tiene caracteres que OAuth no admite.",
        "for_client": "para continuar a",
        "switch": "English",
        "switch_lang": "en",
        "password_title": "Cambiar contraseña",
        "password_heading": "Cambiá tu contraseña",
        "password_signed_in_as": "Cuenta",
        "password_signin_first": "Para cambiar la contraseña, primero ingresá a tu cuenta.",
        "password_current": "Contraseña actual",
        "password_new": "Contraseña nueva",
        "password_new_hint": (
            "Al menos 12 caracteres, difícil de adivinar: mejor una frase de varias palabras. No puede ser tu correo "
            "electrónico ni la contraseña actual."
        ),
        "password_confirm": "Repetí la contraseña nueva",
        "password_submit": "Cambiar contraseña",
        "password_errors": "Revisá lo siguiente:",
        "password_current_missing": "Escribí tu contraseña actual.",
        "password_current_wrong": "La contraseña actual no es correcta.",
        "password_new_short": "La contraseña nueva tiene que tener al menos 12 caracteres.",
        "password_new_long": "La contraseña nueva puede tener hasta 200 caracteres.",
        "password_new_email": "La contraseña nueva no puede ser tu correo electrónico.",
        "password_new_same": "La contraseña nueva tiene que ser distinta de la actual.",
        "password_new_guessable": (
            "Esa contraseña es fácil de adivinar: es de las más usadas o se arma con palabras, nombres, fechas o "
            "teclas seguidas. Probá con una frase de varias palabras que no tengan que ver con vos ni con la empresa."
        ),
        "password_mismatch": "Las dos contraseñas nuevas no coinciden.",
        "password_expired_form": "La página estuvo abierta demasiado tiempo. Volvé a escribir las contraseñas.",
        "password_changed": "Cambiaste tu contraseña.",
        "password_changed_detail": (
            "Se cerraron tus sesiones en otros navegadores y dispositivos. Si el portal te pide ingresar, "
            "usá la contraseña nueva."
        ),
        "password_back": "Volver a",
        "password_back_generic": "Volver al portal",
        "error_prefix": "Error",
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
        "bad_parameter": "The request's {name} parameter has characters OAuth does not allow.",
        "for_client": "to continue to",
        "switch": "Español",
        "switch_lang": "es",
        "password_title": "Change password",
        "password_heading": "Change your password",
        "password_signed_in_as": "Account",
        "password_signin_first": "To change your password, sign in to your account first.",
        "password_current": "Current password",
        "password_new": "New password",
        "password_new_hint": (
            "At least 12 characters, hard to guess: a phrase of several words is best. It cannot be your e-mail or "
            "your current password."
        ),
        "password_confirm": "Repeat the new password",
        "password_submit": "Change password",
        "password_errors": "Please check the following:",
        "password_current_missing": "Enter your current password.",
        "password_current_wrong": "The current password is not correct.",
        "password_new_short": "The new password must have at least 12 characters.",
        "password_new_long": "The new password can have up to 200 characters.",
        "password_new_email": "The new password cannot be your e-mail.",
        "password_new_same": "The new password must be different from the current one.",
        "password_new_guessable": (
            "That password is easy to guess: it is among the most used, or made of words, names, dates or keys in a "
            "row. Try a phrase of several words that have nothing to do with you or your company."
        ),
        "password_mismatch": "The two new passwords do not match.",
        "password_expired_form": "The page was open for too long. Enter the passwords again.",
        "password_changed": "You changed your password.",
        "password_changed_detail": (
            "Your sessions in other browsers and devices have ended. If the portal asks you to sign in, use the "
            "new password."
        ),
        "password_back": "Back to",
        "password_back_generic": "Back to the portal",
        "error_prefix": "Error",
    },
}


def texts_for(locale: str) -> dict[str, str]:
    return TEXTS["en" if locale == "en" else "es"]


def requested_locale() -> str:
    """The page's language: OIDC `ui_locales` (or `lang`), Spanish unless English comes first."""
    wanted = (request.values.get("ui_locales") or request.values.get("lang") or "").split()
    return "en" if wanted and wanted[0].lower().startswith("en") else "es"
