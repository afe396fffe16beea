"""The signed-in user as the portal keeps them: in the server-side session, never in the cookie.

What is stored: the user's identity and companies (from the provider's userinfo), the chosen company, the
tokens, and the sign-in and last-activity times that enforce the idle and absolute timeouts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import wraps
from typing import cast
from urllib.parse import urlsplit

from flask import abort, current_app, request, session, url_for
from flask_htmx import make_response as htmx_response
from flask_login import UserMixin, current_user, login_required, login_user, logout_user
from flask_session.base import ServerSideSessionInterface

from portal.client.models import UserInfo
from portal.client.oidc import Tokens
from portal.domain import roles
from portal.web.extensions import htmx, login_manager


@dataclass(frozen=True)
class Company:
    id: int
    rut: str
    name: str
    role: str


class PortalUser(UserMixin):
    """flask-login's user, rebuilt from the session on each request."""

    def __init__(self, data: dict):
        self.sub = data["sub"]
        self.email = data["email"]
        self.name = data["name"]
        self.companies = tuple(Company(**c) for c in data["companies"])

    def get_id(self) -> str:
        return self.sub

    @property
    def company(self) -> Company | None:
        wanted = session.get("company_id")
        return next((c for c in self.companies if c.id == wanted), self.companies[0] if self.companies else None)

    @property
    def role(self) -> str | None:
        return self.company.role if self.company else None


# The service's refusals that say the session's companies or roles are out of date: an admin changed this user's
# role or took them out of a company after they signed in.
STALE_MEMBERSHIP = frozenset({"rol_insuficiente", "empresa_ajena", "sin_empresa"})


def start_session(userinfo: UserInfo, tokens: Tokens) -> None:
    """After a successful sign-in: a fresh session (new id, so a planted one is useless)."""
    cast(ServerSideSessionInterface, current_app.session_interface).regenerate(session)  # flask-session's
    session.clear()
    session["user"] = {"sub": userinfo.sub, "email": userinfo.email, "name": userinfo.name, "companies": []}
    session["company_id"] = None
    update_companies(userinfo)
    store_token(tokens)
    now = time.time()
    session["login_at"] = now
    session["last_seen"] = now
    session.permanent = True


def update_companies(userinfo: UserInfo) -> None:
    """The user's companies and roles as the service has them now. Read at sign-in, again with every token refresh
    (backend.api) and when the service refuses for a role or a company (errors): the navigation and the portal's own
    role checks follow a changed role or a removed membership from then on, not from the next sign-in. The chosen
    company is kept while the user is still a member of it."""
    companies = [{"id": c.id, "rut": c.rut, "name": c.name, "role": c.role} for c in userinfo.companies]
    session["user"] = {**session["user"], "companies": companies}
    if session.get("company_id") not in {c["id"] for c in companies}:
        session["company_id"] = companies[0]["id"] if companies else None
    if current_user.is_authenticated:  # this request's user too: its header is drawn (and kept) from it
        login_user(PortalUser(session["user"]))


def store_token(tokens: Tokens) -> None:
    """The provider's tokens in the session (a refresh brings no ID token: the sign-in's is kept for logout)."""
    session["tokens"] = {
        "access_token": tokens.access_token,
        "refresh_token": tokens.refresh_token,
        "id_token": tokens.id_token or session.get("tokens", {}).get("id_token"),
        "expires_at": tokens.expires_at,
    }


def session_expired() -> bool:
    """True when the idle (30 min) or absolute (12 h) timeout has passed."""
    if "login_at" not in session:
        return False
    now = time.time()
    idle = current_app.config["IDLE_TIMEOUT"].total_seconds()
    absolute = current_app.config["ABSOLUTE_TIMEOUT"].total_seconds()
    return now - session.get("last_seen", 0) > idle or now - session["login_at"] > absolute


@login_manager.user_loader
def _load_user(user_id: str) -> PortalUser | None:
    data = session.get("user")
    if not data or data["sub"] != user_id or session_expired():
        return None
    return PortalUser(data)


def safe_next(target: str | None) -> str | None:
    """A same-origin path to return to after sign-in, or None (open redirects are refused)."""
    if not target:
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        if f"{parts.scheme}://{parts.netloc}" != request.host_url.rstrip("/"):
            return None
        target = parts.path + (f"?{parts.query}" if parts.query else "")
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return None
    return target


@login_manager.unauthorized_handler
def _unauthorized():
    """Send the user to sign in: a redirect for pages, 401 + HX-Redirect for htmx requests."""
    if htmx:
        back = safe_next(htmx.current_url) or "/"
        response = htmx_response("", 401, redirect=url_for("auth.login", next=back))
        response.vary.add("HX-Request")
        return response
    from flask import redirect

    return redirect(url_for("auth.login", next=safe_next(request.full_path.rstrip("?"))))


def end_session() -> None:
    logout_user()
    session.clear()


def role_required(*roles: str):
    """Refuse (403) unless the user's role in the current company is one of `roles`."""

    def decorator(view):
        @wraps(view)
        def wrapper(*args, **kwargs):
            if not current_user.is_authenticated:
                return login_manager.unauthorized()
            if current_user.role not in roles:
                abort(403)
            return view(*args, **kwargs)

        return wrapper

    return decorator


# One decorator per meaning (portal.domain.roles): every view says which of these it is for.
signed_in_required = login_required  # anyone signed in, with or without a company (choosing one)
member_required = role_required(*roles.ALL)  # any member of the current company
writer_required = role_required(*roles.WRITERS)  # who issues receipts
reader_required = role_required(*roles.READERS)  # who follows the company's records (envíos, API keys)
admin_required = role_required(*roles.ADMINS)
