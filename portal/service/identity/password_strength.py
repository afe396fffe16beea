"""Whether a new password is easy to guess, as NIST SP 800-63B (5.1.1.2) asks of a verifier: compare it with
commonly used and expected values, and with words of the context (the service, the person, their companies).

zxcvbn (Dropbox's estimator, its Python port) does the work: it knows the most common passwords of the breach
corpora, English words, names and surnames, and finds dates, years, keyboard runs, repeats and sequences. It needs
no network (a lookup in a breach service would send every new password's hash prefix out of the provider). Its
dictionaries are English: the words of this product and country, and the person's own, are given to it."""

from __future__ import annotations

import re
from collections.abc import Iterable

# zxcvbn's score: 3 ("safely unguessable", 10^8 guesses or more) is its own advice for a password that an attacker
# holding the (slow, argon2) hashes could try offline. 0-2 are refused.
ENOUGH = 3
# zxcvbn refuses a longer password (its cost grows with the length): what follows only makes it harder to guess.
_CHECKED_LENGTH = 72
# Words an attacker of this provider tries first, which zxcvbn's English dictionaries do not know.
_CONTEXT = (
    "contraseña",
    "contrasena",
    "clave",
    "uruguay",
    "montevideo",
    "factura",
    "facturas",
    "comprobante",
    "comprobantes",
    "portal",
    "cfe",
    "dgi",
    "efactura",
    "empresa",
    "usuario",
    "admin",
    "soporte",
)
_WORD = re.compile(r"\w{3,}")


def easy_to_guess(password: str, about_the_person: Iterable[str]) -> bool:
    """Whether `password` scores below ENOUGH, given what is known about its owner (e-mail, name, companies)."""
    words = [*_CONTEXT]
    for text in about_the_person:
        lower = text.strip().lower()
        words += [lower, *_WORD.findall(lower)]
    from zxcvbn import zxcvbn  # its dictionaries, 13 MB, load in the process that first checks a password

    return zxcvbn(password[:_CHECKED_LENGTH], user_inputs=words)["score"] < ENOUGH
