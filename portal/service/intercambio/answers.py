"""What an electronic receiver answered to the envelopes this company delivered (ACKSobre, then ACKCFE, maybe
in several messages), recorded per receipt.

Contract: the inbound channels (the exchange web service's RESPUESTASOBRE/RESPUESTACFES, the exchange mailbox)
hand every answer document to `record_answer`; it verifies, matches it to our envelope and records it."""

from __future__ import annotations

from typing import Literal

from sqlalchemy.orm import Session


def record_answer(session: Session, company_id: int, document: bytes, channel: Literal["ws", "correo"]) -> None:
    """Records an ACKSobre or ACKCFE that `company_id` received for one of its own envelopes."""
    raise NotImplementedError("exchange answers: see the intercambio work")
