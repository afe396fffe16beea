"""make test's scheduler hands all of a costly module to one worker, sends each test once, and starts with them."""

from __future__ import annotations

from types import SimpleNamespace

from tests.support.scheduling import ONE_WORKER, ModulesOnOneWorker


class FakeWorker:
    def __init__(self, name: str) -> None:
        self.gateway, self.sent, self.shutting_down = SimpleNamespace(id=name), [], False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent += indices

    def shutdown(self) -> None:
        self.shutting_down = True


def _scheduler(collection: list[str], workers: list[FakeWorker]) -> ModulesOnOneWorker:
    options = {"tx": [f"{len(workers)}*popen"], "maxschedchunk": 2}
    config = SimpleNamespace(getvalue=options.get, getoption=options.get)
    scheduler = ModulesOnOneWorker(config, log=None)  # type: ignore[arg-type]
    for worker in workers:
        scheduler.add_node(worker)  # type: ignore[arg-type]
        scheduler.add_node_collection(worker, collection)  # type: ignore[arg-type]
    return scheduler


def test_a_costly_module_goes_to_one_worker_first_and_every_test_is_sent_once():
    costly = ONE_WORKER[0]
    collection = [f"tests/unit/test_a.py::test_{n}" for n in range(12)] + [f"{costly}::test_{n}" for n in range(4)]
    workers = [FakeWorker(name) for name in "abc"]
    scheduler = _scheduler(collection, workers)
    scheduler.schedule()
    while scheduler.pending:  # each worker finishes its tests one by one and asks for more
        for worker in workers:
            if scheduler.node2pending[worker]:  # type: ignore[index]
                scheduler.mark_test_complete(worker, scheduler.node2pending[worker][0])  # type: ignore[arg-type, index]
    sent = [index for worker in workers for index in worker.sent]
    assert sorted(sent) == list(range(len(collection)))
    holders = [worker for worker in workers if any(collection[i].startswith(costly) for i in worker.sent)]
    assert len(holders) == 1
    assert all(collection[i].startswith(costly) for i in holders[0].sent[:4])  # handed out before the rest
