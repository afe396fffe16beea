"""Profile: where the receipt page's CPU goes, in the portal and in the service, in process.

    .venv/bin/python bench/profile_receipt_page.py [--pages 300] [--top 40] [--side portal|service|both]
    .venv/bin/python bench/profile_receipt_page.py --path /envios/ --user admin@demo.uy   (any other page)

The service runs in a thread on a real port (werkzeug), the portal as a Flask test client signed in with a
token the service minted; one e-Ticket is issued, then cProfile records `--pages` receipt pages in the portal's
thread (the service's work happens in its own thread and is not in that profile) and, apart, as many
getByIdCfeEmitido calls through the service's own test client. Demo data on a throwaway SQLite database.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_emitir import portal_environment, prepare  # noqa: E402
from bench.bench_portal import ticket  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--side", choices=("portal", "service", "both"), default="both")
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--cold", action="store_true", help="another receipt for every page (none seen before)")
    parser.add_argument("--callees", default="", help="also print what functions matching this call")
    parser.add_argument("--path", default="", help="profile this portal page instead (e.g. /envios/)")
    parser.add_argument("--user", default="usuario@demo.uy", help="who is signed in (admin@demo.uy sees every page)")
    parser.add_argument("--callers", default="", help="also print what calls functions matching this")
    parser.add_argument("--save", default="", help="also write the profile to SAVE.portal / SAVE.service")
    parser.add_argument(
        "--conditional",
        action="store_true",
        help="the service side asks with If-None-Match (the answer's ETag), as the portal's client does: a 304",
    )
    args = parser.parse_args()

    from tests.support.servers import LiveServer

    workdir = Path(tempfile.mkdtemp(prefix="cfe-profile-"))
    service_server, portal_server = LiveServer(), LiveServer()
    env = portal_environment(workdir, service_server.url, portal_server.url)
    token = prepare(env)
    os.environ.update(env)
    import subprocess

    subprocess.run(  # noqa: S603
        [
            sys.executable,
            "-c",
            "from portal.web.activity import upgrade; from portal.web.config import "
            "load_config; upgrade(load_config()['PORTAL_DATABASE_URL'])",
        ],
        env=env,
        check=True,
    )
    from portal.service import create_app as create_service
    from portal.web import create_app as create_portal
    from tests.conftest import mint_token
    from tests.support.oidc import start_portal_session

    service = create_service()
    service_server.start(service)
    try:
        api = service.test_client()
        headers = {"Authorization": f"Bearer {token}"}
        receipt = api.post("/api/v1/comprobante/emitir", headers=headers, json=ticket()).get_json()
        receipt_id = receipt["idCfeEmitido"]
        fresh = []
        if args.cold:
            for _ in range(2 * args.pages + 20):
                answer = api.post("/api/v1/comprobante/emitir", headers=headers, json=ticket("99"))
                fresh.append(answer.get_json()["idCfeEmitido"])
        unseen = iter(fresh)
        portal = create_portal({"SERVER_NAME": portal_server.url.split("//")[1]})
        client = portal.test_client()
        portal_token = mint_token(service, args.user, client_id=portal.config["OIDC_CLIENT_ID"])
        start_portal_session(client, portal, portal_token, 3600)
        page = f"/comprobantes/{receipt_id}"
        query = f"/api/v1/comprobante/getByIdCfeEmitido?idCfeEmitido={receipt_id}"
        for _ in range(20):
            answer = client.get(page)
            assert answer.status_code == 200, (answer.status_code, answer.headers)
            assert api.get(query, headers=headers).status_code == 200
        if args.conditional:
            headers["If-None-Match"] = api.get(query, headers=headers).headers["ETag"]
            assert api.get(query, headers=headers).status_code == 304
        sides = {
            "portal": (lambda: client.get(f"/comprobantes/{next(unseen)}")) if args.cold else lambda: client.get(page),
            "service": lambda: api.get(query, headers=headers),
        }
        if args.path:
            assert client.get(args.path).status_code == 200, args.path
            sides = {"portal": lambda: client.get(args.path)}
        for side, call in sides.items():
            if args.side not in (side, "both"):
                continue
            started = time.thread_time()
            for _ in range(args.pages):
                call()
            plain = (time.thread_time() - started) / args.pages
            profile = cProfile.Profile(time.thread_time)
            profile.enable()
            for _ in range(args.pages):
                call()
            profile.disable()
            print(f"\n=== {side}: {plain * 1000:.2f} ms CPU per page without the profiler (this thread only)")
            stats = pstats.Stats(profile).sort_stats(args.sort)
            stats.print_stats(args.top)
            if args.callees:
                stats.print_callees(args.callees)
            if args.callers:
                stats.print_callers(args.callers)
            if args.save:
                stats.dump_stats(f"{args.save}.{side}")
    finally:
        service_server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
