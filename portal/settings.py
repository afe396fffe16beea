"""What the service's and the portal's settings classes share (portal/service/platform/config.py, portal/web/config.py).

Each app reads its environment in one typed place: a pydantic-settings class whose field names are the Flask
config keys and whose aliases are the environment variables (README, "Configuration"). An empty variable
counts as unset. A bad value stops the start with an error that names the variable, never its value (it may
be a secret).
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict


class SettingsError(ValueError):
    """One or more environment variables hold a value the app cannot use."""


class AppSettings(BaseSettings):
    """Base of each app's settings: only the aliased variables are read, empty means unset."""

    model_config = SettingsConfigDict(env_ignore_empty=True, extra="ignore", populate_by_name=False)

    @classmethod
    def load(cls) -> Self:
        """The settings from the environment (with the development defaults), or a SettingsError."""
        try:
            return cls()
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise SettingsError(f"Invalid setting: {problems}") from None

    def flask_config(self) -> dict[str, Any]:
        """The settings as Flask config keys (the field names)."""
        return self.model_dump()
