"""The client's error hierarchy, mapped from the service's status codes and JSON error shape."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class FieldError:
    field: str
    code: str
    message: str


class CfeError(Exception):
    """Any failure talking to the service. `request_id` is the X-Request-ID to quote to support."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str = "error",
        fields: tuple[FieldError, ...] = (),
        request_id: str | None = None,
        retry_after: float | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.fields = fields
        self.request_id = request_id
        self.retry_after = retry_after

    def field_messages(self) -> dict[str, str]:
        """field path -> first message, for showing errors next to form fields."""
        result: dict[str, str] = {}
        for f in self.fields:
            result.setdefault(f.field, f.message)
        return result


class BadRequest(CfeError):
    """400 and other 4xx without a more specific class."""


class Unauthorized(CfeError):
    """401: the token is missing, expired or revoked."""


class Forbidden(CfeError):
    """403: the role or company does not allow it."""


class NotFound(CfeError):
    """404 (also: another company's record)."""


class Conflict(CfeError):
    """409: e.g. the same Idempotency-Key still in progress."""


class ValidationError(CfeError):
    """422: `fields` says what is wrong with which input."""


@contextmanager
def fields_named(rename: dict[str, str] | Callable[[str], str]) -> Iterator[None]:
    """A ValidationError raised inside comes out with its field paths renamed (the service's name -> the
    request's field), so a caller maps errors onto the typed request it sent, never onto the JSON's names."""

    def to_name(path: str) -> str:
        return rename(path) if callable(rename) else rename.get(path, path)

    try:
        yield
    except ValidationError as exc:
        exc.fields = tuple(FieldError(to_name(f.field), f.code, f.message) for f in exc.fields)
        raise


class SignInRefused(CfeError):
    """The identity provider refused a sign-in step (an OAuth error such as `invalid_grant` in `code`: a used or
    expired code, a revoked refresh token), or answered with a token that does not check out."""


class RateLimited(CfeError):
    """429: `retry_after` says when to try again."""


class ServiceUnavailable(CfeError):
    """The service did not answer (down, timed out) or failed (5xx)."""


STATUS_ERRORS: dict[int, type[CfeError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: ValidationError,
    429: RateLimited,
}


def error_for_status(status: int) -> type[CfeError]:
    if status >= 500:
        return ServiceUnavailable
    return STATUS_ERRORS.get(status, BadRequest)
