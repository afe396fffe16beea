"""The e-mail a user gets when their password changes, at the provider's page or by an operator's
`usuario-contrasena`: when (Montevideo time), how, and whom to tell if it was not them. Never the password.

It is sent the way the service's other e-mails to its users are (eventos.admin_mail, in the user's language), but
from the background worker: `password_changed` is called once the change is committed and only enqueues, so a
slow or refusing mail server neither holds the page nor undoes the change (a failure is logged)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from babel.dates import format_date

from portal.service.eventos.admin_mail import reading_language, tell_user
from portal.service.platform import db, jobs
from portal.service.platform.i18n import _, number_locale
from portal.service.platform.models import User

MONTEVIDEO = ZoneInfo("America/Montevideo")
# How the password changed: the user at the provider's page, or an operator's command.
BY_USER, BY_OPERATOR = "usuario", "operador"


def password_changed(user_id: int, how: str, at: datetime | None = None) -> None:
    """Enqueue the notice of a change just committed (call it after the commit, never before)."""
    moment = (at or datetime.now(UTC)).isoformat()
    jobs.enqueue_safely(lambda: send_password_notice(user_id, how, moment), f"the password notice of user {user_id}")


def moment_text(at: datetime, language: str) -> str:
    """The moment as the reader writes it, in Montevideo's time: "28 de noviembre de 2026, 11:22"."""
    local = at.astimezone(MONTEVIDEO)
    return f"{format_date(local, 'long', locale=number_locale(language))}, {local:%H:%M}"


@jobs.huey.task(retries=2, retry_delay=60, name="identity.send_password_notice")
@jobs.in_app_context
def send_password_notice(user_id: int, how: str, moment: str) -> bool:
    """Tell the user their password changed; False when the user is gone or the mail server refused it."""
    with db.new_session() as session:
        user = session.get(User, user_id)
        if user is None:
            return False
        cuando = moment_text(datetime.fromisoformat(moment), reading_language(user.locale))
        if how == BY_OPERATOR:
            what = _(
                "La contraseña de tu usuario {email} cambió el {cuando} (hora de Montevideo): un operador del servicio"
                " te dio una nueva.",
                email=user.email,
                cuando=cuando,
            )
        else:
            what = _(
                "La contraseña de tu usuario {email} cambió el {cuando} (hora de Montevideo): la cambiaste vos, en la"
                " página «Cambiar contraseña».",
                email=user.email,
                cuando=cuando,
            )
        return tell_user(
            user,
            _("Tu contraseña cambió"),
            what,
            _("Tus sesiones abiertas se cerraron: iniciá sesión con la contraseña nueva."),
            _(
                "Si no fuiste vos, avisá cuanto antes al administrador de tu empresa o a tu proveedor del servicio de"
                " facturación electrónica."
            ),
        )
