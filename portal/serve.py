"""`make serve`: the production way to run the service and the portal (see README, "Running in production").

Applies pending migrations to both databases (never seeds), then runs the service and the portal under
gunicorn with the settings in deploy/gunicorn.conf.py and deploy/gunicorn-portal.conf.py, behind a reverse
proxy such as deploy/nginx.conf. Secrets, URLs and databases come from the environment (README,
"Configuration"); workers, threads and timeouts from the variables those two files read. SIGTERM or Ctrl-C
stops both gracefully.
"""

from __future__ import annotations

import subprocess
import sys

from portal import paths
from portal.devserver import run_together

DEPLOY = paths.PROJECT_ROOT / "deploy"


def main() -> int:
    migrate_portal = (
        "from portal.web.activity import upgrade; from portal.web.config import load_config; "
        "upgrade(load_config()['PORTAL_DATABASE_URL'])"
    )
    for command in (["-m", "portal.service", "migrate"], ["-c", migrate_portal]):
        subprocess.run([sys.executable, *command], check=True)  # noqa: S603 - our own modules
    gunicorn = [sys.executable, "-m", "gunicorn"]
    run_together(
        [
            [*gunicorn, "-c", str(DEPLOY / "gunicorn.conf.py"), "portal.service:create_app()"],
            [*gunicorn, "-c", str(DEPLOY / "gunicorn-portal.conf.py"), "portal.web:create_app()"],
            # The background worker (DGI submission, e-mail): the queue is CFE_JOBS_URL (Redis for several machines).
            [sys.executable, "-m", "portal.service", "worker"],
        ],
        None,
        "CFE service, portal and background worker started (deploy/gunicorn*.conf.py); SIGTERM or Ctrl-C stops them.",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
