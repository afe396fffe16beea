"""The e-mail a user gets when their password changes (identity/notices.py): one, to them, in their language, after
the change is committed, never with the password; none for a change that was refused."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner
from sqlalchemy import update

from portal.service.empresa import commands
from portal.service.identity import notices
from portal.service.platform import db, jobs
from portal.service.platform.models import User
from tests.integration.test_identity_password_change import NEW, _change, _sign_in

EMAIL = "usuario@demo.uy"


@pytest.fixture
def service_config(service_config, smtp, tmp_path):
    return {**service_config, "SMTP_URL": smtp.url, "MAILBOX_DIR": str(tmp_path / "mailbox")}


@pytest.fixture(autouse=True)
def worker_app(service_app):
    jobs.use_app(service_app)
    yield
    jobs.use_app(None)


def _reads(service_app, locale: str, email: str = EMAIL) -> None:
    with service_app.app_context(), db.write_transaction() as session:
        session.execute(update(User).where(User.email == email).values(locale=locale))


def _notices(smtp, service_app) -> list:
    """What the worker sends once it has run everything queued."""
    jobs.run_pending()
    return smtp.recorder.received


def _body(received) -> str:
    return received.message.get_content()


@pytest.mark.parametrize(
    ("locale", "subject", "how", "when"),
    [
        ("es", "Tu contraseña cambió", "la cambiaste vos", "(hora de Montevideo)"),
        ("en", "Your password was changed", "you changed it yourself", "(Montevideo time)"),
    ],
)
def test_a_change_at_the_provider_s_page_tells_the_user_once_in_their_language(
    api_client, service_app, smtp, locale, subject, how, when
):
    assert _sign_in(api_client).status_code == 302
    _reads(service_app, locale)  # after signing in, which keeps the sign-in page's language (Spanish here)
    assert _change(api_client).status_code == 303
    sent = _notices(smtp, service_app)
    assert len(sent) == 1
    assert sent[0].envelope_to == [EMAIL] and sent[0].message["To"] == EMAIL
    assert sent[0].message["Subject"] == subject
    body = _body(sent[0])
    assert how in body and when in body and EMAIL in body
    assert ("administrador de tu empresa" if locale == "es" else "your company's admin") in body
    assert NEW not in body and "demo-password" not in body


def test_a_refused_change_tells_no_one(api_client, service_app, smtp):
    assert _sign_in(api_client).status_code == 302
    assert _change(api_client, current="no-es-la-clave").status_code == 422
    assert _change(api_client, confirm=NEW + "x").status_code == 422
    assert _notices(smtp, service_app) == []


def test_an_operator_s_new_password_tells_the_user_an_operator_gave_it(service_app, smtp, monkeypatch):
    monkeypatch.setattr(commands, "create_app", lambda: service_app)
    answer = CliRunner().invoke(commands.reset_password, ["--email", EMAIL])
    assert answer.exit_code == 0, answer.output
    password = re.findall(rf"new password for {re.escape(EMAIL)}: (\S+)", answer.output)[0]
    sent = _notices(smtp, service_app)
    assert len(sent) == 1 and sent[0].envelope_to == [EMAIL]
    body = _body(sent[0])
    assert "un operador del servicio te dio una nueva" in body and "la cambiaste vos" not in body
    assert password not in body

    unknown = CliRunner().invoke(commands.reset_password, ["--email", "nadie@demo.uy"])
    assert unknown.exit_code == 1
    assert _notices(smtp, service_app) == sent  # nothing more for a reset that found no one


def test_a_mail_server_that_refuses_the_notice_leaves_the_change_made(api_client, service_app, smtp):
    smtp.recorder.data_replies.extend(["554 5.7.1 Rejected"] * 3)
    assert _sign_in(api_client).status_code == 302
    assert _change(api_client).status_code == 303
    assert _notices(smtp, service_app) == []
    assert _sign_in(service_app.test_client(), password=NEW).status_code == 302


def test_the_moment_is_montevideo_s_time_written_as_the_reader_writes_it():
    at = datetime(2026, 11, 28, 14, 22, tzinfo=UTC)
    assert notices.moment_text(at, "es") == "28 de noviembre de 2026, 11:22"
    assert notices.moment_text(at, "en") == "November 28, 2026, 11:22"
