"""The smart-issuance flow's state, kept in the (server-side) session per company: what the user typed in
step 1, and the previews this session made. The request ids and preview tokens live here, so the preview
pages and the PDF only serve requests this session created, whatever the URL says."""

from __future__ import annotations

import time

from flask import session
from flask_login import current_user

MAX_PREVIEWS = 10


def _key() -> str:
    return f"inteligente_flow:{current_user.company.id}"


def _state() -> dict:
    state = session.get(_key()) or {}
    return {"typed": state.get("typed"), "previews": dict(state.get("previews") or {})}


def _save(state: dict) -> None:
    session[_key()] = state  # reassigned, so the session notices the change


def keep_typed(typed: dict) -> None:
    """Remember step 1 as typed (the form's `data`), to fill it again when the user comes back."""
    state = _state()
    state["typed"] = typed
    _save(state)


def typed(request_id: str | None = None) -> dict | None:
    """What was typed for that preview, or the latest step-1 input."""
    kept = preview(request_id) if request_id else None
    return kept["typed"] if kept else _state()["typed"]


def remember_preview(request_id: str, token: str | None, draft_hash: str, typed_input: dict) -> None:
    """Keep a new preview; it replaces this flow's earlier ones not yet issued, which can no longer be
    confirmed (two previews of one sale open in two tabs must not become two receipts)."""
    state = _state()
    for kept in state["previews"].values():
        if not kept.get("issued"):
            kept["replaced_by"] = request_id
    state["previews"][request_id] = {"token": token, "hash": draft_hash, "typed": typed_input, "at": time.time()}
    newest = sorted(state["previews"].items(), key=lambda item: item[1]["at"], reverse=True)[:MAX_PREVIEWS]
    state["previews"] = dict(newest)
    _save(state)


def preview(request_id: str) -> dict | None:
    """This session's preview `request_id` ({token, hash, typed}), or None if it is not this session's."""
    return _state()["previews"].get(request_id)


def finish(request_id: str) -> None:
    """The preview was issued: the next emission starts blank. The preview stays known, so confirming it
    again (a double click, a second tab) still reaches the service, which answers with the same receipt."""
    state = _state()
    if request_id in state["previews"]:
        state["previews"][request_id]["issued"] = True
        if state["typed"] == state["previews"][request_id]["typed"]:
            state["typed"] = None
    _save(state)
