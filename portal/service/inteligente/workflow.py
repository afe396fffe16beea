"""The life of a smart-issuance request: preview -> confirmed -> issued (or failed / expired), each
transition recorded in its timeline. Issuing reuses the Comprobante area's single-transaction issue."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import UTC, datetime, timedelta

from flask import Response, g
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.service.cfe import CfeInput, compute_totals
from portal.service.comprobante import issuing
from portal.service.comprobante.issuing import totals_json
from portal.service.comprobante.models import IssuedCfe, PreviewToken
from portal.service.comprobante.presenters import cfe_emitido
from portal.service.dgi.company import registry_for
from portal.service.inteligente.inference import Draft, infer_draft
from portal.service.inteligente.models import FINAL_STATES, SmartRequest, SmartRequestEvent
from portal.service.inteligente.schemas import Confirmacion, SolicitudInteligente
from portal.service.platform import db, idempotency, responses
from portal.service.platform.auth import Principal
from portal.service.platform.errors import ApiError, Conflict, NotFound
from portal.service.platform.i18n import _, said, said_or, say, stored
from portal.service.platform.idempotency import RequestedKey, request_fingerprint
from portal.service.platform.models import Company
from portal.service.platform.publicurl import public_url

PREVIEW_LIFETIME = timedelta(minutes=15)
_UNEXPECTED = _("No se pudo emitir por un error inesperado; no se emitió nada. Previsualizá de nuevo.")
_DIRECT = _("Emisión directa")  # the detail of a direct request's confirmation
# A confirmation whose issue finished after the sweep had settled the request (inteligente/recovery.py).
_SETTLED = _("La solicitud ya se dio por terminada mientras se emitía; no se emitió nada. Consultala.")
# Why a request in each of these states cannot be confirmed (`confirmed`: another confirmation is issuing it).
_NOT_CONFIRMABLE = {
    "confirmed": _("La solicitud ya se está emitiendo; consultala en unos segundos."),
    "failed": _("La solicitud falló y no se puede confirmar."),
}


def _now() -> datetime:
    return datetime.now(UTC)


def draft_hash(draft_json: dict) -> str:
    return request_fingerprint(draft_json)


def _event(session, request: SmartRequest, state: str, actor: str, detail: str | None = None) -> None:
    request.state = state
    request.updated_at = _now()
    session.add(
        SmartRequestEvent(
            request_id=request.id,
            state=state,
            at=request.updated_at,
            actor=actor,
            detail=detail,
            detail_texts=None if detail is None else stored(detail),
            request_id_http=g.get("request_id"),
        )
    )


def _new_request(principal: Principal, body: SolicitudInteligente, draft: Draft, mode: str) -> SmartRequest:
    draft_json = draft.cfe.model_dump(mode="json", by_alias=True, exclude_none=True)

    return SmartRequest(
        id="ei_" + uuid.uuid4().hex,
        company_id=principal.company_id,
        mode=mode,
        state="preview",
        input_json=body.model_dump(mode="json", by_alias=True, exclude_none=True),
        draft_json=draft_json,
        draft_hash=draft_hash(draft_json),
        totals_json=totals_json(compute_totals(draft.cfe)),
        inferences_json=draft.findings.inferences,
        warnings_json=draft.findings.warnings,
        created_by=principal.actor,
        created_at=_now(),
        updated_at=_now(),
    )


def _infer(principal: Principal, body: SolicitudInteligente) -> Draft:
    with registry_for(principal.company_id) as registry:
        return infer_draft(db.session(), principal.company_id, body, registry)


def preview(principal: Principal, body: SolicitudInteligente) -> SmartRequest:
    """Infer the draft, check it against DGI's rules, render its PDF preview and keep it 15 minutes."""
    draft = _infer(principal, body)
    company = db.session().get_one(Company, principal.company_id)
    issuing.check_rules(draft.cfe, company)
    pdf = issuing.preview_pdf(company, draft.cfe)
    token = secrets.token_urlsafe(32)
    with db.write_transaction() as session:
        request = _new_request(principal, body, draft, "preview")
        request.expires_at = _now() + PREVIEW_LIFETIME
        request.preview_token = token
        session.add(request)
        session.add(
            PreviewToken(
                token_hash=hashlib.sha256(token.encode()).hexdigest(),
                company_id=company.id,
                pdf=pdf,
                expires_at=request.expires_at,
            )
        )
        _event(session, request, "preview", principal.actor, _warnings_detail(len(draft.findings.warnings)))
    return request


def _load(session, principal: Principal, request_id: str, lock: bool = False) -> SmartRequest:
    query = select(SmartRequest).where(SmartRequest.id == request_id, SmartRequest.company_id == principal.company_id)
    found = session.scalar(query.with_for_update() if lock else query)
    if found is None:
        raise NotFound(_("No existe esa solicitud de emisión en tu empresa."), code="solicitud_no_encontrada")
    return found


def expire_if_due(session, request: SmartRequest) -> None:
    if request.state == "preview" and request.expires_at and request.expires_at < _now():
        _event(session, request, "expired", "sistema", _("La previsualización venció sin confirmarse."))


def confirm(principal: Principal, body: Confirmacion) -> SmartRequest:
    """Issue exactly what was previewed, once. Confirming an issued request returns it unchanged."""
    with db.write_transaction() as session:
        request = _load(session, principal, body.request_id, lock=True)
        expire_if_due(session, request)
        if request.state == "issued":
            return request
        if request.state == "expired":
            raise ApiError(_("La previsualización venció; generá una nueva."), code="solicitud_vencida", status=409)
        if request.state != "preview":
            raise Conflict(_NOT_CONFIRMABLE[request.state], code="estado_invalido")
        if body.hash_borrador and body.hash_borrador != request.draft_hash:
            raise Conflict(
                _("El borrador cambió desde la previsualización; previsualizá de nuevo."), code="borrador_modificado"
            )
        missing = sorted({w["codigo"] for w in request.warnings_json} - set(body.advertencias_aceptadas))
        if missing:
            raise ApiError(
                _("Aceptá las advertencias antes de confirmar: {codigos}.", codigos=", ".join(missing)),
                code="advertencias_sin_aceptar",
                status=422,
            )
        _event(
            session,
            request,
            "confirmed",
            principal.actor,
            _("Advertencias aceptadas: {codigos}", codigos=", ".join(body.advertencias_aceptadas))
            if body.advertencias_aceptadas
            else _("Advertencias aceptadas: ninguna"),
        )
    return _issue(principal, request.id)


def _issue(principal: Principal, request_id: str) -> SmartRequest:
    """Issue the request's draft; the request becomes `issued` in the same transaction as the receipt."""
    session = db.session()
    request = _load(session, principal, request_id)
    cfe = CfeInput.model_validate(request.draft_json)

    def attach(tx_session, result):
        # Locked, and read again in the issue's own transaction: if the sweep of requests left `confirmed`
        # (recovery.py) settled this one while it was issuing, the receipt is not stored (nor issued twice).
        request = tx_session.get(SmartRequest, request_id, with_for_update=True, populate_existing=True)
        if request is None or request.state != "confirmed":
            raise Conflict(_SETTLED, code="solicitud_terminada")
        mark_issued(tx_session, request, result.cfe, principal.actor)

    try:
        issuing.issue(principal, cfe, on_stored=attach)
    except ApiError as exc:
        _fail(principal, request_id, exc.code, exc.message)
        raise
    except Exception:
        # A defect or the database refusing the write: the request was left `confirmed` for ever, refused on
        # every further confirmation and polled as still moving. It fails, saying so (the 500 goes on as is).
        _fail(principal, request_id, "error_interno", _UNEXPECTED)
        raise
    return _load(db.session(), principal, request_id)


def mark_issued(session, request: SmartRequest, receipt: IssuedCfe, actor: str) -> None:
    request.cfe_id = receipt.id
    _event(session, request, "issued", actor, f"CFE {receipt.tipo_cfe} {receipt.serie}-{receipt.nro}")


def mark_failed(session, request: SmartRequest, code: str, message: str, actor: str) -> None:
    request.error_code, request.error_message, request.error_message_texts = code, message, stored(message)
    _event(session, request, "failed", actor, _("{codigo}: {mensaje}", codigo=code, mensaje=message))


def _fail(principal: Principal, request_id: str, code: str, message: str) -> None:
    with db.write_transaction() as session:
        request = session.get_one(SmartRequest, request_id, with_for_update=True)
        if request.cfe_id is not None:  # the receipt was stored (what broke came after): it is issued
            return
        if request.state != "confirmed":  # settled meanwhile by the sweep (recovery.py): its reason stands
            return
        mark_failed(session, request, code, message, principal.actor)


def issue_directly(
    principal: Principal, body: SolicitudInteligente, idempotency_key: RequestedKey | None = None
) -> dict | Response:
    """Infer and issue in one step: the answer (see `describe`), or the replay of the Idempotency-Key's first
    outcome. The key is looked up, and the request, its receipt and the key's outcome are stored, in ONE
    transaction (emitir's `issuing.issue`): a process killed mid-issue leaves no claim behind, so a retry with
    the same key issues at once. A request that fails is kept as `failed`, saying why."""
    draft = _infer(principal, body)
    issuing.check_rules(draft.cfe, db.session().get_one(Company, principal.company_id))
    answer = {}

    def attach(session, result):
        request = _new_request(principal, body, draft, "direct")
        session.add(request)
        _event(session, request, "confirmed", principal.actor, _DIRECT)
        mark_issued(session, request, result.cfe, principal.actor)
        session.flush()
        answer.update(describe(request, session))  # also what a replay of the key sends
        if idempotency_key is not None:
            idempotency.record(session, principal.company_id, idempotency_key, 201, answer)

    try:
        result = issuing.issue(principal, draft.cfe, on_stored=attach, idempotency_key=idempotency_key)
    except ApiError as exc:
        if exc.code not in idempotency.KEY_ERRORS:
            _failed_directly(principal, body, draft, exc)
        raise
    return result.replay if result.replay is not None else answer


def _failed_directly(principal: Principal, body: SolicitudInteligente, draft: Draft, exc: ApiError) -> None:
    with db.write_transaction() as session:
        request = _new_request(principal, body, draft, "direct")
        session.add(request)
        _event(session, request, "confirmed", principal.actor, _DIRECT)
        mark_failed(session, request, exc.code, exc.message, principal.actor)


def consult(principal: Principal, request_id: str) -> SmartRequest:
    with db.write_transaction() as session:
        request = _load(session, principal, request_id)
        expire_if_due(session, request)
        return request


def describe(request: SmartRequest, session: Session | None = None) -> dict:
    """The request as the API shows it (see schemas.SolicitudEstado); read through `session` (default: the
    request's)."""
    session = session or db.session()
    events = session.scalars(
        select(SmartRequestEvent)
        .where(SmartRequestEvent.request_id == request.id)
        .order_by(SmartRequestEvent.at, SmartRequestEvent.id)
    ).all()
    receipt = session.get(IssuedCfe, request.cfe_id) if request.cfe_id else None
    preview_url = None
    if request.preview_token and request.state == "preview":
        preview_url = public_url("comprobante.previsualizar_token", token=request.preview_token)
    return {
        "requestId": request.id,
        "modo": request.mode,
        "estado": request.state,
        "borrador": request.draft_json,
        "hashBorrador": request.draft_hash,
        "totales": request.totals_json,
        "inferencias": [
            {"campo": i["campo"], "valor": i["valor"], "motivo": said(i, "motivo")} for i in request.inferences_json
        ],
        "advertencias": [{"codigo": w["codigo"], "mensaje": said(w)} for w in request.warnings_json],
        "bloqueos": _blocks(request),
        "previsualizacionUrl": preview_url,
        "venceEn": responses.optional_moment(request.expires_at),
        "cfeEmitidos": [request.cfe_id] if request.cfe_id else [],
        "comprobante": responses.dump(cfe_emitido(receipt, [], session)) if receipt else None,
        "estadoDGI": receipt.dgi_status if receipt else None,
        "error": {
            "codigo": request.error_code,
            "mensaje": said_or(request.error_message_texts, request.error_message or ""),
        }
        if request.error_code
        else None,
        "lineaDeTiempo": [
            {
                "estado": e.state,
                "en": responses.moment(e.at),
                "por": e.actor,
                "detalle": said_or(e.detail_texts, e.detail),
            }
            for e in events
        ],
        "creadoPor": request.created_by,
        "creadoEn": responses.moment(request.created_at),
        "final": request.state in FINAL_STATES,
    }


def _blocks(request: SmartRequest) -> list[dict]:
    """While a preview waits for its confirmation, what the company's setup lacks to issue it, checked now: an
    admin who fixes it meanwhile (a CAE uploaded) sees the preview without it."""
    if request.state != "preview":
        return []
    cfe = CfeInput.model_validate(request.draft_json)
    return [{"codigo": r.code, "mensaje": say(r.message)} for r in issuing.setup_refusals(request.company_id, cfe)]


def _warnings_detail(count: int) -> str:
    """The preview event's detail in words ("1 advertencia", "2 advertencias"), not "advertencia(s)"."""
    return _("1 advertencia") if count == 1 else _("{cantidad} advertencias", cantidad=count)
