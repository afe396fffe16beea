"""huey's own consumer, in threads of the test process, running the tasks a live service enqueues into its
memory:// queue (as `python -m portal.service worker` does for `make run`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from portal.service.platform import jobs


@contextlib.contextmanager
def running_worker(app) -> Iterator[None]:
    jobs.use_app(app)
    consumer = jobs.huey.create_consumer(
        workers=1, worker_type="thread", periodic=False, initial_delay=0.05, max_delay=0.2, check_worker_health=False
    )
    consumer.start()
    try:
        yield
    finally:
        consumer.stop(graceful=True)
        jobs.use_app(None)
