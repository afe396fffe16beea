"""gunicorn settings of the portal in production (`make serve`; or `gunicorn -c deploy/gunicorn-portal.conf.py
'portal.web:create_app()'`). Every value can be overridden from the environment.

The portal renders pages and waits on the service over HTTP, so threads overlap the waits and one worker per
core uses the CPU. With several workers (or hosts), keep sessions in Redis (PORTAL_SESSION_REDIS_URL) so a
request can land on any of them and sessions survive a restart.
"""

import multiprocessing
import os

bind = os.environ.get("PORTAL_BIND", "127.0.0.1:5000")
worker_class = "gthread"
workers = int(os.environ.get("PORTAL_WORKERS", multiprocessing.cpu_count()))
threads = int(os.environ.get("PORTAL_THREADS", "8"))
# The portal's calls to the service time out well before this (see portal/client/base.py).
timeout = int(os.environ.get("PORTAL_TIMEOUT", "60"))
graceful_timeout = 20
keepalive = 15
max_requests = int(os.environ.get("PORTAL_MAX_REQUESTS", "50000"))
max_requests_jitter = max_requests // 10
accesslog = os.environ.get("PORTAL_ACCESS_LOG")
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# gunicorn 27 opens a control socket for `gunicornc` (change the worker count, stop the server) at one path per
# user ($HOME/.gunicorn/gunicorn.ctl): the service and the portal would take it from each other, and nothing here
# uses it. systemd or the process manager starts and stops the servers.
control_socket_disable = True
