"""Numbers people and files write as text, read one way: ASCII digits 0-9 and nothing else.

str.isdigit() also accepts superscripts ("²") and other scripts' digits ("٣"), which int() then rejects (a 500
where a 422 or a page belonged) or reads as a number nobody typed; a check with isdigit() before int() is
therefore no check. Read such a text with `ascii_number`."""

from __future__ import annotations


def ascii_number(text: str | None) -> int | None:
    """The whole number `text` writes in ASCII digits (no sign, no spaces), or None."""
    if not text or not (text.isascii() and text.isdigit()):
        return None
    return int(text)
