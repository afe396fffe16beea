"""Errors of the DGI lookups. Each carries the HTTP status and the stable code the API should answer.

This module stays free of Flask: the endpoint maps `exc.status`, `exc.code` and `exc.message` (and, for
`DgiInvalidInput`, `exc.field` / `exc.reason`) onto the service's one JSON error shape.
"""

from __future__ import annotations


class DgiError(Exception):
    """Base of every DGI lookup error."""

    status = 502
    code = "dgi_error"

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code


class TaxpayerNotFound(DgiError):  # noqa: N818 - names fixed by the interface
    """DGI has no taxpayer (or person) for that document."""

    status, code = 404, "taxpayer_not_found"


class DgiUnavailable(DgiError):  # noqa: N818 - names fixed by the interface
    """DGI could not answer: SOAP fault, HTTP error, connection refused or an answer we cannot read.

    `code` tells which: dgi_unavailable (connection), dgi_fault, dgi_http_error, dgi_bad_answer, dgi_error_<n>
    (DGI's own <Respuesta><Codigo>).
    """

    status, code = 502, "dgi_unavailable"


class DgiNotOffered(DgiUnavailable):  # noqa: N818
    """The backend cannot do this lookup at all (DGI offers no web service for it). Not a transient error."""

    status, code = 501, "dgi_not_offered"


class DgiTimeout(DgiError):  # noqa: N818 - names fixed by the interface
    """DGI did not answer within the configured timeout."""

    status, code = 504, "dgi_timeout"


class DgiInvalidInput(DgiError):  # noqa: N818 - names fixed by the interface
    """The input is wrong before any lookup: `field` names the parameter, `reason` says why.

    Reasons: required, format, check_digit (from portal.domain.identifiers.document_error), invalid (an
    unknown tipoDoc) and unsupported (a foreign document type DGI keeps no registry of).
    """

    status, code = 422, "validation_error"

    def __init__(self, field: str, reason: str, message: str):
        super().__init__(message)
        self.field = field
        self.reason = reason
