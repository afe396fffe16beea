"""The one check that a text can travel in a CFE: XML 1.0's Char production, minus the control characters.

lxml refuses, when the CFE is built, any character outside XML 1.0's Char (#x9 | #xA | #xD | [#x20-#xD7FF] |
[#xE000-#xFFFD] | [#x10000-#x10FFFF]): U+FFFE, U+FFFF, a lone surrogate, NUL... A text stored with one of
them would turn every later issue into a 500, so every text that ends up in a CFE goes through here on the
way in. DEL and the C1 controls (U+007F-U+009F) are legal XML but never meant in a receipt: refused too.
Tab and line breaks are allowed where a text may span lines (`line_breaks=True`).
"""

from __future__ import annotations

import re

from portal.service.i18n import _
from portal.service.pydantic_errors import refuse

_ALLOWED = "\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff"
_FORBIDDEN_ONE_LINE = re.compile(f"[^{_ALLOWED}]")
_FORBIDDEN_LINES = re.compile(f"[^\t\n\r{_ALLOWED}]")


def xml_text(value: object, *, line_breaks: bool = True) -> object:
    """`value` unchanged if it is not a text or XML can carry it; a pydantic error naming the character otherwise."""
    if not isinstance(value, str):
        return value
    found = (_FORBIDDEN_LINES if line_breaks else _FORBIDDEN_ONE_LINE).search(value)
    if found:
        raise refuse(
            "control_chars",
            _(
                "Contiene un carácter que no se puede usar ({char}): borralo y volvé a intentar.",
                char=f"U+{ord(found.group()):04X}",
            ),
        )
    return value


def xml_one_line(value: object) -> object:
    """`xml_text` for a one-line text: no tab or line break either."""
    return xml_text(value, line_breaks=False)
