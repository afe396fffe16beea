"""Loaded by a worker process the kill tests start (PYTHONPATH): the exchange's transport seam replaced by one
that appends each delivery to CFE_TEST_DELIVERIES (operation, file name, SHA-256 of the document) and, while the
file CFE_TEST_HOLD exists, waits before answering (the moment the test kills the worker)."""

from __future__ import annotations

import hashlib
import os
import time

from portal.service.intercambio import transport


def _deliver(company_id, receiver, operation, document, filename):
    with open(os.environ["CFE_TEST_DELIVERIES"], "a", encoding="utf-8") as log:
        log.write(f"{operation} {filename} {hashlib.sha256(document).hexdigest()}\n")
    while os.path.exists(os.environ["CFE_TEST_HOLD"]):
        time.sleep(0.05)
    return transport.DeliveryResult(channel="ws", delivered=True, temporary=False, detail="0 Recibido")


transport.deliver = _deliver
