"""A real SMTP server for tests: aiosmtpd's Controller on 127.0.0.1 and a free port, keeping every message
it accepts. `fail_next_data` makes it answer the next DATA commands with the given replies (a 451 for a
temporary failure); an address with "rechazo" in it is refused with 550 at RCPT."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult


@dataclass
class Received:
    envelope_from: str
    envelope_to: list[str]
    message: EmailMessage


@dataclass
class RecordingHandler:
    received: list[Received] = field(default_factory=list)
    data_replies: list[str] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802 (aiosmtpd names)
        if "rechazo" in address:
            return "550 5.1.1 Mailbox does not exist"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd names)
        if self.data_replies:
            return self.data_replies.pop(0)
        message = BytesParser(policy=policy.default).parsebytes(envelope.content)
        self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), message))
        self.arrived.set()
        return "250 Message accepted for delivery"


class LocalSmtp(Controller):
    """Listens on port 0 and learns the port the system chose before announcing itself ready."""

    def __init__(self, handler: RecordingHandler, **server_options):
        super().__init__(handler, hostname="127.0.0.1", port=0, **server_options)
        self.recorder = handler

    def _trigger_server(self):
        self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}?timeout=5"


def password_check(username: str, password: str):
    """An aiosmtpd authenticator that accepts one user, for tests of the credentials in CFE_SMTP_URL."""

    def authenticate(server, session, envelope, mechanism, auth_data):
        return AuthResult(success=auth_data.login == username.encode() and auth_data.password == password.encode())

    return authenticate


def mail_config(service_config: dict, smtp: LocalSmtp, tmp_path) -> dict:
    """A test service's settings that send its mail to `smtp` and keep its development mailbox in tmp_path."""
    return {**service_config, "SMTP_URL": smtp.url, "MAILBOX_DIR": str(tmp_path / "mailbox")}
