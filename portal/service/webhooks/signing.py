"""Secrets and signatures as the Standard Webhooks specification has them (the `standardwebhooks` package):
`whsec_` + base64 of 32 random bytes; `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`,
one entry per secret that signs (two during a rotation's overlap)."""

from __future__ import annotations

import base64
import secrets
from datetime import datetime

from standardwebhooks.webhooks import Webhook

from portal.service.platform.keystore import field_cipher


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def seal(secret: str) -> bytes:
    return field_cipher().encrypt(secret.encode())


def unseal(sealed: bytes) -> str:
    return field_cipher().decrypt(sealed).decode()


def headers(message_id: str, moment: datetime, body: str, secrets_: list[str]) -> dict[str, str]:
    """The three Standard Webhooks headers for `body`, signed with each secret."""
    signatures = " ".join(Webhook(secret).sign(message_id, moment, body) for secret in secrets_)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "webhook-signature": signatures,
        "content-type": "application/json",
    }
