"""The service's settings, read from the environment in this one place (README, "Configuration").

Every setting has a development default except the secrets: those come from the environment or from the
files `python -m portal.devsecrets` (run by `make run`) generates in the gitignored `var/secrets/`.
Field names are the Flask config keys; aliases are the environment variables.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import NoDecode

from portal import paths
from portal.devsecrets import read_secret
from portal.service.cfe.fonts import DEFAULT_FONT_DIR
from portal.settings import AppSettings


def _in_var(name: str):
    return lambda: f"sqlite:///{paths.var_dir() / name}"


def _secret(variable: str, file_name: str):
    """A secret: the environment's, else the generated development file's, else None (create_app refuses)."""
    return Field(default_factory=lambda: read_secret(file_name), alias=variable, repr=False)


class ServiceSettings(AppSettings):
    """Every setting of the service."""

    DATABASE_URL: str = Field(default_factory=_in_var("service.db"), alias="CFE_DATABASE_URL")
    ISSUER: str = Field("http://127.0.0.1:8000", alias="CFE_ISSUER_URL")
    # Audience of the access tokens the service accepts: the service's own API.
    API_AUDIENCE: str = Field("cfe-api", alias="CFE_API_AUDIENCE")
    ACCESS_TOKEN_SECONDS: int = Field(600, gt=0, alias="CFE_ACCESS_TOKEN_SECONDS")
    REFRESH_TOKEN_SECONDS: int = Field(12 * 3600, gt=0, alias="CFE_REFRESH_TOKEN_SECONDS")
    JWT_PRIVATE_KEY_PEM: str | None = _secret("CFE_JWT_PRIVATE_KEY", "jwt-signing-key.pem")
    SECRET_KEY: str | None = _secret("CFE_SERVICE_SECRET_KEY", "service-secret-key")
    API_KEY_PEPPER: str | None = _secret("CFE_API_KEY_PEPPER", "api-key-pepper")
    FIELD_ENCRYPTION_KEY: str | None = _secret("CFE_FIELD_ENCRYPTION_KEY", "field-encryption-key")
    # The portal is a registered OIDC client; seed creates it from these.
    PORTAL_CLIENT_ID: str = Field("cfe-portal", alias="CFE_PORTAL_CLIENT_ID")
    PORTAL_CLIENT_SECRET: str | None = _secret("CFE_PORTAL_CLIENT_SECRET", "portal-client-secret")
    PORTAL_REDIRECT_URIS: Annotated[list[str], NoDecode] = Field(
        ["http://127.0.0.1:5000/auth/callback"], alias="CFE_PORTAL_REDIRECT_URIS"
    )
    PORTAL_POST_LOGOUT_URIS: Annotated[list[str], NoDecode] = Field(
        ["http://127.0.0.1:5000/"], alias="CFE_PORTAL_POST_LOGOUT_URIS"
    )
    # limits storage: memory:// for one process, redis://host:port/db when several serve the API.
    RATELIMIT_STORAGE_URL: str = Field("memory://", alias="CFE_RATELIMIT_STORAGE_URL")
    # Background work (portal/service/platform/jobs.py): huey on SQLite for one machine, redis://... for several.
    JOBS_URL: str = Field(default_factory=_in_var("jobs.db"), alias="CFE_JOBS_URL")
    # Unidad Indexada in UYU for an issue year missing from the ui_value table (indices area), which
    # holds the value of 31 December of each previous year (Tabla E threshold = 5,000 UI).
    UI_VALUE_UYU: Decimal = Field(Decimal("6.1642"), gt=0, alias="CFE_UI_VALUE_UYU")
    # How long a process keeps the issuer, a year's UI and the signing certificate before reading them again
    # (portal/service/platform/readcache.py): the bound on a change made through another process; 0 turns it off.
    READ_CACHE_SECONDS: float = Field(2.0, ge=0, le=60, alias="CFE_READ_CACHE_SECONDS")
    # Long downloads (lists' CSV and ZIP, IVA books) one process serves at once, and of one company
    # (portal/service/platform/downloads.py): the rest of the process's threads stay for everything else.
    DOWNLOADS_PER_PROCESS: int = Field(4, ge=1, alias="CFE_DOWNLOADS_PER_PROCESS")
    DOWNLOADS_PER_COMPANY: int = Field(2, ge=1, alias="CFE_DOWNLOADS_PER_COMPANY")
    # The receipt list's totals add up at most this many receipts; beyond, "more than" (comprobante/search.py).
    LIST_TOTALS_LIMIT: int = Field(10_000, ge=1, alias="CFE_LIST_TOTALS_LIMIT")
    # How long a write waits for the database's write lock before answering 503 with Retry-After.
    WRITE_LOCK_TIMEOUT_SECONDS: float = Field(2.0, gt=0, alias="CFE_WRITE_LOCK_TIMEOUT_SECONDS")
    MAX_BODY_BYTES: int = Field(2 * 1024 * 1024, gt=0, alias="CFE_MAX_BODY_BYTES")
    # Under gunicorn, how long a request body may pause before 408 (portal/service/platform/slowbody.py).
    BODY_IDLE_SECONDS: float = Field(10.0, gt=0, alias="CFE_BODY_IDLE_SECONDS")
    # Unset: on exactly when the issuer's public URL is https (see create_app); "0"/"1" forces either way.
    SECURE_COOKIES: bool | None = Field(None, alias="CFE_SECURE_COOKIES")
    HSTS_SECONDS: int = Field(365 * 24 * 3600, ge=0, alias="CFE_HSTS_SECONDS")
    # The provider's sign-in session (server-side; the cookie holds only its random id).
    IDP_SESSION_HOURS: int = Field(12, gt=0, alias="CFE_IDP_SESSION_HOURS")
    # DGI lookups (portal/service/dgi): the sandbox registry or DGI's SOAP service.
    DGI_BACKEND: Literal["sandbox", "soap"] = Field("sandbox", alias="CFE_DGI_BACKEND")
    DGI_CACHE_SECONDS: int = Field(300, ge=0, alias="CFE_DGI_CACHE_SECONDS")  # 0 turns the cache off
    DGI_TIMEOUT_SECONDS: float = Field(10.0, gt=0, alias="CFE_DGI_TIMEOUT_SECONDS")  # capped at 30 by the registry
    DGI_SOAP_URL: str | None = Field(None, alias="CFE_DGI_SOAP_URL")  # default: the WSDL's (DGI's test host)
    DGI_WSDL_PATH: str | None = Field(None, alias="CFE_DGI_WSDL_PATH")
    DGI_SIGNATURE_DIGEST: str | None = Field(None, alias="CFE_DGI_SIGNATURE_DIGEST")  # sha256 unless set
    # Sending receipts to DGI (portal/service/envios): which reception, DGI's RUT, and timings.
    DGI_RECEPTION: Literal["simulator", "soap"] = Field("simulator", alias="CFE_DGI_RECEPTION")
    DGI_RUT: str = Field("214844360018", alias="CFE_DGI_RUT")
    # DGI's certificate (PEM file) its acknowledgements must verify against (envios/ack_trust.py); empty with the
    # simulator: the simulator's own certificate.
    DGI_TRUSTED_CERT_PATH: str | None = Field(None, alias="CFE_DGI_TRUSTED_CERT")
    # The CAs accredited in Uruguay (PEM bundle) that must have issued the certificates of what other companies
    # send: envelopes and their CFEs, answers, DGI-rejection notices (platform/accredited_cas.py); empty: not checked.
    ACCREDITED_CAS_PATH: str | None = Field(None, alias="CFE_ACCREDITED_CAS")
    # ws_efactura (CFE_DGI_RECEPTION=soap): endpoint (default: the WSDL's, DGI's test host) and timeout.
    DGI_RECEPTION_URL: str = Field("", alias="CFE_DGI_RECEPTION_URL")
    DGI_RECEPTION_TIMEOUT_SECONDS: float = Field(30.0, gt=0, alias="CFE_DGI_RECEPTION_TIMEOUT_SECONDS")
    ENVIOS_DEBOUNCE_SECONDS: float = Field(1.0, ge=0, alias="CFE_ENVIOS_DEBOUNCE_SECONDS")
    ENVIOS_OVERDUE_MINUTES: int = Field(10, gt=0, alias="CFE_ENVIOS_OVERDUE_MINUTES")
    # A smart-issuance request still `confirmed` this long after its confirmation was cut off mid-issue (a process
    # killed): the minute sweep settles it (inteligente/recovery.py). Far above the slowest issue (seconds).
    INTELIGENTE_CONFIRMED_MINUTES: int = Field(5, gt=0, alias="CFE_INTELIGENTE_CONFIRMED_MINUTES")
    # A sender's claim on an envelope or report; longer than the slowest DGI call (SOAP timeout).
    ENVIOS_SEND_LEASE_SECONDS: float = Field(60.0, gt=0, alias="CFE_ENVIOS_SEND_LEASE_SECONDS")
    DGI_SIMULATOR_ANSWER_SECONDS: float = Field(2.0, ge=0, alias="CFE_DGI_SIMULATOR_ANSWER_SECONDS")
    # Development only, off by default: receivers named "<marker>E07" get that DGI rejection (README).
    DGI_SIMULATOR_REJECT_MARKER: str = Field("", alias="CFE_DGI_SIMULATOR_REJECT_MARKER")
    # The simulator's outage mode at start (an operator switches it with `envios-simulador-modo`):
    # normal | caido (unreachable) | lento (slow) | falla_soap (SOAP faults) | sin_respuestas (no per-CFE results).
    DGI_SIMULATOR_MODE: Literal["normal", "caido", "lento", "falla_soap", "sin_respuestas"] = Field(
        "normal", alias="CFE_DGI_SIMULATOR_MODE"
    )
    DGI_SIMULATOR_SLOW_SECONDS: float = Field(45.0, ge=0, alias="CFE_DGI_SIMULATOR_SLOW_SECONDS")
    # While DGI does not answer, one probe calls it at most this often (backoff from 2 s up to this).
    DGI_OUTAGE_PROBE_MAX_SECONDS: float = Field(30.0, gt=0, alias="CFE_DGI_OUTAGE_PROBE_MAX_SECONDS")
    # Exchange rates (portal/service/cotizaciones): the BCU's web service, or its stand-in's figures in process.
    RATES_SOURCE: Literal["standin", "bcu"] = Field("standin", alias="CFE_RATES_SOURCE")
    BCU_URL: str = Field(
        "https://cotizaciones.bcu.gub.uy/wscotizaciones/servlet/awsbcucotizaciones", alias="CFE_BCU_URL"
    )
    BCU_TIMEOUT_SECONDS: float = Field(20.0, gt=0, le=60, alias="CFE_BCU_TIMEOUT_SECONDS")
    # Receipts by e-mail (portal/service/correo): unset SMTP_URL, they land in the development mailbox.
    SMTP_URL: str | None = Field(None, alias="CFE_SMTP_URL")
    MAIL_FROM: str = Field("comprobantes@localhost", alias="CFE_MAIL_FROM")
    MAILBOX_DIR: str = Field(default_factory=lambda: str(paths.var_dir() / "mailbox"), alias="CFE_MAILBOX_DIR")
    MAIL_RETRY_BASE_SECONDS: int = Field(60, gt=0, alias="CFE_MAIL_RETRY_BASE_SECONDS")
    # Webhooks (portal/service/webhooks): private and loopback addresses only where a developer's receiver runs.
    WEBHOOKS_ALLOW_PRIVATE: bool = Field(False, alias="CFE_WEBHOOKS_ALLOW_PRIVATE")
    WEBHOOKS_TIMEOUT_SECONDS: float = Field(10.0, gt=0, le=30, alias="CFE_WEBHOOKS_TIMEOUT_SECONDS")
    WEBHOOKS_RETRY_BASE_SECONDS: float = Field(10.0, gt=0, alias="CFE_WEBHOOKS_RETRY_BASE_SECONDS")
    WEBHOOKS_RETRY_HOURS: float = Field(24.0, gt=0, alias="CFE_WEBHOOKS_RETRY_HOURS")
    WEBHOOKS_DEBOUNCE_SECONDS: float = Field(0.5, ge=0, alias="CFE_WEBHOOKS_DEBOUNCE_SECONDS")
    # Events, deliveries and attempts are kept this long (the attempts page, support), then purged daily.
    WEBHOOKS_KEEP_DAYS: int = Field(30, ge=2, alias="CFE_WEBHOOKS_KEEP_DAYS")
    # Received CFEs (portal/service/recibidos): the claim on an answer being delivered; longer than the slowest send.
    RECIBIDOS_ANSWER_LEASE_SECONDS: float = Field(300.0, gt=0, alias="CFE_RECIBIDOS_ANSWER_LEASE_SECONDS")
    # The development exchange mailbox (imap[s]://user:password@host:port/FOLDER) and the company it belongs to.
    RECIBIDOS_IMAP_URL: str | None = Field(None, alias="CFE_RECIBIDOS_IMAP_URL")
    RECIBIDOS_IMAP_EMPRESA: int = Field(1, gt=0, alias="CFE_RECIBIDOS_IMAP_EMPRESA")
    # The printed receipt's font (portal/service/cfe/fonts.py): PDF core Helvetica, or DejaVu embedded.
    PDF_FONT: Literal["core", "dejavu"] = Field("core", alias="CFE_PDF_FONT")
    FONT_DIR: Path = Field(DEFAULT_FONT_DIR, alias="CFE_FONT_DIR")
    # Company-to-company exchange, issuer's side (portal/service/intercambio): where the directory of electronic
    # issuers comes from (the embedded simulator's list, or DGI's ws_consultas), and the delivery timings.
    INTERCAMBIO_DIRECTORY: Literal["simulator", "soap"] = Field("simulator", alias="CFE_INTERCAMBIO_DIRECTORY")
    INTERCAMBIO_CONSULTAS_URL: str = Field("", alias="CFE_INTERCAMBIO_CONSULTAS_URL")  # default: DGI's test host
    INTERCAMBIO_CONSULTAS_TIMEOUT_SECONDS: float = Field(60.0, gt=0, alias="CFE_INTERCAMBIO_CONSULTAS_TIMEOUT_SECONDS")
    # The demo companies' exchange web service in the simulator's directory (empty: they get the mailbox).
    INTERCAMBIO_LOCAL_WS_URL: str = Field("", alias="CFE_INTERCAMBIO_LOCAL_WS_URL")
    INTERCAMBIO_DELAY_SECONDS: float = Field(2.0, ge=0, alias="CFE_INTERCAMBIO_DELAY_SECONDS")
    INTERCAMBIO_SEND_LEASE_SECONDS: float = Field(120.0, gt=0, alias="CFE_INTERCAMBIO_SEND_LEASE_SECONDS")
    INTERCAMBIO_MAX_ATTEMPTS: int = Field(12, gt=0, alias="CFE_INTERCAMBIO_MAX_ATTEMPTS")

    @field_validator("PORTAL_REDIRECT_URIS", "PORTAL_POST_LOGOUT_URIS", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        return value.split() if isinstance(value, str) else value

    @field_validator("DGI_BACKEND", "DGI_RECEPTION", "PDF_FONT", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("ISSUER")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")


def load_config() -> dict[str, Any]:
    """Settings for `create_app`: the environment's, with development defaults; paths from portal.paths."""
    return {**ServiceSettings.load().flask_config(), "STATIC_DIR": str(paths.static_dir())}
