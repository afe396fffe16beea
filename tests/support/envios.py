"""Helpers for tests that follow receipts to DGI: run the queued work of a service app, whatever its time."""

from __future__ import annotations

from portal.service.platform import jobs

# The simulator answers at once and rejects receivers named "<marker><motive>" (a development setting).
REJECT_MARKER = "RECHAZAR-"
ENVIOS_CONFIG = {
    "ENVIOS_DEBOUNCE_SECONDS": 0,
    "DGI_SIMULATOR_ANSWER_SECONDS": 0,
    "DGI_SIMULATOR_REJECT_MARKER": REJECT_MARKER,
}


def drain(app, rounds: int = 20) -> None:
    """Run every queued task and every scheduled one (retries, answer fetches) in `app`, as the worker would."""
    jobs.use_app(app)
    for _ in range(rounds):
        ran = jobs.run_pending()
        due = jobs.huey.read_schedule(jobs.huey._get_timestamp().replace(year=9999))
        for task in due:
            task.eta = None  # run it now: huey would put a task whose time has not come back in the schedule
            jobs.huey.execute(task)
        if not ran and not due:
            return


def dgi_back(app) -> None:
    """After an outage test: the simulator answers again and the probe's time has come (its backoff is not
    waited out); the probe runs, and so does everything its answer wakes."""
    from sqlalchemy import update

    from portal.service.envios import outage, tasks
    from portal.service.envios.models import DgiStatus
    from portal.service.platform import db

    with app.app_context():
        outage.set_simulator_mode("normal")
        with db.write_transaction() as session:
            session.execute(update(DgiStatus).values(next_probe_at=None))
        jobs.use_app(app)
        tasks.probe_dgi()
    drain(app)
