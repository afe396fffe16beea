"""`make run`: prepare the development databases and demo data, then run the service, the portal and the
background worker.

The two web apps run under gunicorn (the same server as production); all three stop together on Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

from portal.devsecrets import ensure_secrets


def _environment(service_port: int, portal_port: int) -> dict[str, str]:
    env = dict(os.environ)
    service_url = f"http://127.0.0.1:{service_port}"
    portal_url = f"http://127.0.0.1:{portal_port}"
    env.setdefault("CFE_ISSUER_URL", service_url)
    env.setdefault("CFE_SERVICE_URL", service_url)
    env.setdefault("CFE_PORTAL_REDIRECT_URIS", f"{portal_url}/auth/callback")
    env.setdefault("CFE_PORTAL_POST_LOGOUT_URIS", f"{portal_url}/")
    env.setdefault("CFE_WEBHOOKS_ALLOW_PRIVATE", "1")  # a developer's local webhook receiver
    # The demo companies exchange CFE with each other through this service's own exchange web service
    # (the directory's simulated entries for them carry this address; portal/service/intercambio/simulated.py).
    env.setdefault("CFE_INTERCAMBIO_LOCAL_WS_URL", f"{service_url}/ws/aws_efactura_intercambio")
    return env


def _run(args: list[str], env: dict[str, str]) -> None:
    subprocess.run([sys.executable, *args], env=env, check=True)  # noqa: S603 - our own modules


def run_together(commands: list[list[str]], env: dict[str, str] | None, banner: str) -> None:
    """Start every command, print the banner, and stop them all (SIGTERM, then kill) when one ends or on
    Ctrl-C."""
    processes = [subprocess.Popen(command, env=env) for command in commands]  # noqa: S603 - our own servers
    print(banner, flush=True)
    # A service manager stops us with SIGTERM: stop the servers as Ctrl-C does, or they would outlive us.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        while all(p.poll() is None for p in processes):
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        for p in processes:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in processes:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


# The service's threads: a client whose request body stops arriving holds one for CFE_BODY_IDLE_SECONDS at most
# (portal/service/platform/slowbody.py), so a dozen such clients leave most of them to everyone else
# (tests/integration/test_slow_bodies.py; production puts nginx in front, which buffers bodies).
SERVICE_THREADS = 32


def service_command(port: int) -> list[str]:
    """How `make run` runs the service: gunicorn, one process (rate limits in memory), threaded."""
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--graceful-timeout",
        "5",
        "--no-control-socket",
        "-b",
        f"127.0.0.1:{port}",
        "--workers",
        "1",
        "--threads",
        str(SERVICE_THREADS),
        "portal.service:create_app()",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--service-port", type=int, default=int(os.environ.get("SERVICE_PORT", 8000)))
    parser.add_argument("--portal-port", type=int, default=int(os.environ.get("PORTAL_PORT", 5000)))
    args = parser.parse_args()
    created = ensure_secrets()
    if created:
        print("generated development secrets:", ", ".join(created))
    env = _environment(args.service_port, args.portal_port)
    _run(["-m", "portal.service", "migrate"], env)
    _run(
        [
            "-c",
            "from portal.web.activity import upgrade; from portal.web.config import load_config; "
            "upgrade(load_config()['PORTAL_DATABASE_URL'])",
        ],
        env,
    )
    _run(["-m", "portal.service", "seed"], env)

    # No control socket: both servers would take the same per-user path from each other, and nothing uses it
    # (deploy/'s settings turn it off too).
    gunicorn = [sys.executable, "-m", "gunicorn", "--graceful-timeout", "5", "--no-control-socket"]
    banner = f"""
  CFE service  http://127.0.0.1:{args.service_port}   (API reference: /api/v1/docs)
  Portal       http://127.0.0.1:{args.portal_port}

  Demo sign-ins (development only), password: demo-password
    admin@demo.uy     admin    (Demo S.A. and Comercial del Norte S.R.L.)
    soporte@demo.uy   soporte  (Demo S.A.)
    usuario@demo.uy   usuario  (Demo S.A.)

  Background worker  running (DGI submission, e-mail)

  Ctrl-C stops everything.
"""
    run_together(
        [
            service_command(args.service_port),
            [
                *gunicorn,
                # The service logs every request itself (portal.service.access); the portal has gunicorn's log.
                "--access-logfile",
                "-",
                "-b",
                f"127.0.0.1:{args.portal_port}",
                "--workers",
                "2",
                "--threads",
                "4",
                "portal.web:create_app()",
            ],
            # Background work (DGI submission, e-mail) on huey over SQLite: no extra server on one machine.
            [sys.executable, "-m", "portal.service", "worker"],
        ],
        env,
        banner,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
