"""make test's scheduler: xdist's `load` distribution (tests handed out a few at a time, in collection order), except
that all of a module listed in ONE_WORKER goes to one worker together.

Each of those modules starts something costly in a module fixture (server processes, a catalogue extraction), which
every worker that drew one of its tests started again: with tests handed out two at a time, a four-test module was
usually split across two workers. xdist's own `loadgroup` would group them, but it keys tests by node id, and
schemathesis' generated cases share one node id, so all but one of them would not run.
"""

from __future__ import annotations

from xdist.scheduler import LoadScheduling
from xdist.workermanage import WorkerController

ONE_WORKER = (
    "tests/postgres/test_several_processes.py",  # four gunicorns and a Redis (about 11 s of CPU)
    "tests/integration/test_gunicorn_errors.py",  # a gunicorn
    "tests/integration/test_hostile_xml.py",  # a gunicorn
    "tests/unit/test_service_messages.py",  # the service's catalogue extracted with Babel
)


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class ModulesOnOneWorker(LoadScheduling):
    ordered = False

    def _send_tests(self, node: WorkerController, num: int) -> None:
        """Sends the next `num` pending tests, and with them the rest of any ONE_WORKER module among them.

        Those modules are handed out first: one drawn last would keep its worker busy after the others ended."""
        if not self.ordered:
            self.ordered = True
            self.pending.sort(key=lambda index: module_of(self.collection[index]) not in ONE_WORKER)
        chosen = self.pending[:num]
        modules = {module_of(self.collection[index]) for index in chosen} & set(ONE_WORKER)
        if modules:
            chosen += [index for index in self.pending[num:] if module_of(self.collection[index]) in modules]
        if chosen:
            taken = set(chosen)
            self.pending[:] = [index for index in self.pending if index not in taken]
            self.node2pending[node].extend(chosen)
            node.send_runtest_some(chosen)
