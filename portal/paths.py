"""Where the project's files live, for a checkout and for an installed copy alike.

Every path the code needs is derived here, and each can be overridden from the environment, so that tests,
CI and production point the same code at different folders.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _first_existing(*candidates: Path) -> Path:
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return candidates[0]


def templates_dir() -> Path:
    """The portal's Jinja templates: the checkout's `templates/`, or the installed data files."""
    return _first_existing(PROJECT_ROOT / "templates", Path(sys.prefix) / "share/cfe-portal/templates")


def static_dir() -> Path:
    """The portal's static files (own CSS/JS plus `vendor/`, filled at setup from the npm registry)."""
    return _first_existing(PROJECT_ROOT / "static", Path(sys.prefix) / "share/cfe-portal/static")


def var_dir() -> Path:
    """Runtime state (databases, generated development secrets). Gitignored."""
    return Path(os.environ.get("CFE_VAR_DIR", PROJECT_ROOT / "var"))


def shared_domain_dir() -> Path:
    """DGI's published material, kept outside the repository (../shared/domain from the project root)."""
    return Path(os.environ.get("CFE_DOMAIN_DIR", PROJECT_ROOT.parent / "shared" / "domain"))


def xsd_dir() -> Path:
    """DGI's official XSD set 1.44.2 (`CFE_XSD_DIR` overrides). The folder must stay flat."""
    return Path(os.environ.get("CFE_XSD_DIR", shared_domain_dir() / "dgi-xsd"))


def dgi_samples_dir() -> Path:
    """DGI's sample documents and WSDLs (`CFE_DGI_SAMPLES_DIR` overrides)."""
    return Path(os.environ.get("CFE_DGI_SAMPLES_DIR", shared_domain_dir() / "dgi-samples"))
