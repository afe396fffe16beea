"""Log lines that input cannot forge: control characters in a record are escaped, one record is one line.

A request path with an encoded newline (`/x%0A2026-01-01 INFO forged`) is decoded to a real newline before
any view sees it; written as is, it would start a line of its own that looks like ours. The formatter here
escapes every control character (CR, LF, ESC, NUL, the Unicode line separators, ...) and the backslash, so
`\\n` in a log line always means an escaped newline and never a typed backslash-n. Tracebacks stay readable
on several lines, each continuation line indented, so none can pass for the start of a record.

Both the service and the portal log through `install(logger_name)`.
"""

from __future__ import annotations

import logging
import re

FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\\\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def _escape_char(match: re.Match) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def escape(text: str) -> str:
    """`text` with every control character (and the backslash) written as an escape sequence."""
    return _UNSAFE.sub(_escape_char, text)


class SafeFormatter(logging.Formatter):
    """A formatter whose records are one line each, whatever the message and its arguments hold."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        return escape(super().formatMessage(record))

    def formatException(self, ei) -> str:  # noqa: N802 - logging's name
        return _continuation(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:  # noqa: N802 - logging's name
        return _continuation(super().formatStack(stack_info))


def _continuation(text: str) -> str:
    return "\n".join("    | " + escape(line) for line in text.splitlines())


class RequestIdFilter(logging.Filter):
    """Adds `request_id` (the app's `g.request_id`) to every record made while a request is handled."""

    def filter(self, record: logging.LogRecord) -> bool:
        from flask import g, has_request_context

        record.request_id = g.get("request_id", "-") if has_request_context() else "-"
        return True


def install(logger_name: str = "portal", level: int = logging.INFO) -> logging.Handler:
    """Give `logger_name` a stderr handler with the safe formatter (once per process) and return it."""
    logger = logging.getLogger(logger_name)
    for handler in logger.handlers:
        if isinstance(handler.formatter, SafeFormatter):
            return handler
    handler = logging.StreamHandler()
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(SafeFormatter(FORMAT))
    logger.addHandler(handler)
    logger.setLevel(level)
    return handler
