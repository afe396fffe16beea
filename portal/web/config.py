"""The portal's settings, read from the environment in this one place (README, "Configuration").

Every setting has a development default except the secrets: those come from the environment or from the
files `python -m portal.devsecrets` (run by `make run`) generates in the gitignored `var/secrets/`.
Field names are the Flask config keys; aliases are the environment variables.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pydantic import Field, model_validator

from portal import paths
from portal.devsecrets import read_secret
from portal.settings import AppSettings


class PortalSettings(AppSettings):
    """Every setting of the portal."""

    SECRET_KEY: str | None = Field(
        default_factory=lambda: read_secret("portal-secret-key"), alias="PORTAL_SECRET_KEY", repr=False
    )
    CFE_SERVICE_URL: str = Field("http://127.0.0.1:8000", alias="CFE_SERVICE_URL")
    # Where the browser reaches the identity provider: the service's URL unless set.
    OIDC_ISSUER: str | None = Field(None, alias="CFE_ISSUER_URL")
    OIDC_CLIENT_ID: str = Field("cfe-portal", alias="CFE_PORTAL_CLIENT_ID")
    OIDC_CLIENT_SECRET: str | None = Field(
        default_factory=lambda: read_secret("portal-client-secret"), alias="CFE_PORTAL_CLIENT_SECRET", repr=False
    )
    SERVICE_CONNECT_TIMEOUT: float = Field(3.05, gt=0, alias="PORTAL_SERVICE_CONNECT_TIMEOUT")
    SERVICE_READ_TIMEOUT: float = Field(20.0, gt=0, alias="PORTAL_SERVICE_READ_TIMEOUT")
    PORTAL_DATABASE_URL: str = Field(
        default_factory=lambda: f"sqlite:///{paths.var_dir() / 'portal.db'}", alias="PORTAL_DATABASE_URL"
    )
    # Server-side sessions: the cookie carries only a random id; tokens stay here (Redis, else files).
    SESSION_REDIS_URL: str | None = Field(None, alias="PORTAL_SESSION_REDIS_URL")
    SESSION_DIR: str = Field(
        default_factory=lambda: str(paths.var_dir() / "portal-sessions"), alias="PORTAL_SESSION_DIR"
    )
    IDLE_MINUTES: int = Field(30, gt=0, alias="PORTAL_IDLE_MINUTES")
    ABSOLUTE_HOURS: int = Field(12, gt=0, alias="PORTAL_ABSOLUTE_HOURS")
    # Where browsers reach the portal. When it is https, cookies are Secure and HSTS is sent (create_app);
    # PORTAL_SECURE_COOKIES=0/1 forces the cookies either way.
    PUBLIC_URL: str = Field("http://127.0.0.1:5000", alias="PORTAL_PUBLIC_URL")
    SECURE_COOKIES: bool | None = Field(None, alias="PORTAL_SECURE_COOKIES")
    HSTS_SECONDS: int = Field(365 * 24 * 3600, ge=0, alias="PORTAL_HSTS_SECONDS")

    @model_validator(mode="after")
    def _issuer_defaults_to_the_service(self) -> PortalSettings:
        self.OIDC_ISSUER = self.OIDC_ISSUER or self.CFE_SERVICE_URL
        return self

    def flask_config(self) -> dict[str, Any]:
        config = super().flask_config()
        config["IDLE_TIMEOUT"] = timedelta(minutes=config.pop("IDLE_MINUTES"))
        config["ABSOLUTE_TIMEOUT"] = timedelta(hours=config.pop("ABSOLUTE_HOURS"))
        return config


def load_config() -> dict[str, Any]:
    """Settings for `create_app`: the environment's, with development defaults."""
    return PortalSettings.load().flask_config()
