"""The backend client: the only way the portal reaches the CFE service.

    client = CfeClient("http://127.0.0.1:8000")          # one per process
    api = client.as_user(access_token, company_id=1)      # cheap, per request
    me = api.userinfo()

Results are typed (frozen dataclasses); errors are `CfeError` subclasses that carry the service's code,
message, field errors and request id.
"""

from portal.client.api import UserApi
from portal.client.base import CfeClient
from portal.client.errors import (
    CfeError,
    Conflict,
    FieldError,
    Forbidden,
    NotFound,
    RateLimited,
    ServiceUnavailable,
    SignInRefused,
    Unauthorized,
    ValidationError,
)

__all__ = [
    "CfeClient",
    "CfeError",
    "Conflict",
    "FieldError",
    "Forbidden",
    "NotFound",
    "RateLimited",
    "ServiceUnavailable",
    "SignInRefused",
    "Unauthorized",
    "UserApi",
    "ValidationError",
]
