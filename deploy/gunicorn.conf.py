"""gunicorn settings of the CFE service in production (`make serve`; or `gunicorn -c deploy/gunicorn.conf.py
'portal.service:create_app()'`). Every value can be overridden from the environment.

Workers: issuing is CPU work (XML, XMLDSig, XSD) under Python's GIL, so one process uses one core: run one
worker per core. On SQLite the processes' writers take turns for the database's single lock in the kernel's
queue (portal/service/platform/db.py, WriterTurns), and within a process concurrent issues share one transaction and one
fsync (portal/service/platform/groupcommit.py). Rate limits are counted where CFE_RATELIMIT_STORAGE_URL says: in memory
each process would count its own, so without Redis the service keeps to one process.
"""

import multiprocessing
import os

_limits_shared = not os.environ.get("CFE_RATELIMIT_STORAGE_URL", "memory://").startswith("memory://")

bind = os.environ.get("CFE_SERVICE_BIND", "127.0.0.1:8000")
worker_class = "gthread"
workers = int(os.environ.get("CFE_SERVICE_WORKERS", multiprocessing.cpu_count() if _limits_shared else 1))
# Threads wait on the database and on each other's group commit; enough of them keep the CPU busy and leave
# some free for /healthz and reads while writers wait (a write waits at most CFE_WRITE_LOCK_TIMEOUT_SECONDS).
threads = int(os.environ.get("CFE_SERVICE_THREADS", "16"))
# A request that takes longer than this is a stuck worker: gunicorn restarts it (signing a 2 MB XML takes
# well under a second; DGI lookups time out after at most 30 s).
timeout = int(os.environ.get("CFE_SERVICE_TIMEOUT", "40"))
graceful_timeout = 20
keepalive = 15  # behind a reverse proxy that keeps connections to us open (deploy/nginx.conf)
# Recycle workers now and then so a slow leak cannot grow without bound; jitter keeps them from all
# restarting at once.
max_requests = int(os.environ.get("CFE_SERVICE_MAX_REQUESTS", "100000"))
max_requests_jitter = max_requests // 10
accesslog = os.environ.get("CFE_SERVICE_ACCESS_LOG")  # the app logs every request itself; off by default
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# gunicorn 27 opens a control socket for `gunicornc` (change the worker count, stop the server) at one path per
# user ($HOME/.gunicorn/gunicorn.ctl): the service and the portal would take it from each other, and nothing here
# uses it. systemd or the process manager starts and stops the servers.
control_socket_disable = True


def on_starting(server):
    if workers > 1 and not _limits_shared:
        server.log.warning(
            "%d service processes count rate limits in memory, each its own: set CFE_RATELIMIT_STORAGE_URL to Redis",
            workers,
        )


def post_worker_init(worker):
    # What gunicorn refuses itself (bad request line, header, method; URI too long) answers the API's JSON
    # error shape, not gunicorn's HTML page (portal/gunicorn_errors.py).
    from portal.gunicorn_errors import install

    install()
