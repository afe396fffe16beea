"""CFE_SMTP_URL read into connection settings: scheme, TLS, port defaults, credentials, timeout."""

from __future__ import annotations

import pytest

from portal.service.correo.transport import SmtpSettings


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("smtp://mail.example.com", ("mail.example.com", 25, "none", None, None, 30.0)),
        ("smtp://u:p@mail.example.com:587?starttls=1", ("mail.example.com", 587, "starttls", "u", "p", 30.0)),
        ("smtp://u:p@mail.example.com?starttls=true&timeout=5", ("mail.example.com", 587, "starttls", "u", "p", 5.0)),
        (
            "smtps://envios%40demo.uy:cl%2Fave@smtp.example.com",
            ("smtp.example.com", 465, "ssl", "envios@demo.uy", "cl/ave", 30.0),
        ),
    ],
)
def test_urls(url, expected):
    s = SmtpSettings.from_url(url)
    assert (s.host, s.port, s.tls, s.username, s.password, s.timeout) == expected


@pytest.mark.parametrize("url", ["http://mail.example.com", "smtp://", "mail.example.com:25"])
def test_bad_urls_are_refused(url):
    with pytest.raises(ValueError):
        SmtpSettings.from_url(url)
