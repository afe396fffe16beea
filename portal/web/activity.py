"""What the portal's users did: who, what, when, the request id and the receipt. Kept in the portal's own
database, so "recent activity" works from the portal's record even when the service is slow."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Flask, current_app, g
from flask_login import current_user
from sqlalchemy import Integer, String, create_engine, event, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from portal.sqltypes import UtcDateTime


class PortalBase(DeclarativeBase):
    """Tables of the portal's own database."""


class Activity(PortalBase):
    __tablename__ = "activity"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(Integer, index=True)
    user_sub: Mapped[str] = mapped_column(String(64))
    user_email: Mapped[str] = mapped_column(String(254))
    action: Mapped[str] = mapped_column(String(40))
    request_id: Mapped[str | None] = mapped_column(String(128))
    cfe_id: Mapped[str | None] = mapped_column(String(64), index=True)
    summary: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=lambda: datetime.now(UTC), index=True)


def init_app(app: Flask) -> None:
    url = app.config["PORTAL_DATABASE_URL"]
    engine = create_engine(url, connect_args={"check_same_thread": False} if url.startswith("sqlite") else {})
    if url.startswith("sqlite"):

        @event.listens_for(engine, "connect")
        def _wal(dbapi_conn, _record):  # pragma: no cover - exercised by every test
            dbapi_conn.execute("PRAGMA journal_mode=WAL")

    app.extensions["portal_sessionmaker"] = sessionmaker(bind=engine, expire_on_commit=False)


def _session() -> Session:
    return current_app.extensions["portal_sessionmaker"]()


def record(action: str, *, cfe_id: str | None = None, summary: str | None = None) -> None:
    """Note that the current user did `action` in their current company."""
    with _session() as db:
        db.add(
            Activity(
                company_id=current_user.company.id,
                user_sub=current_user.sub,
                user_email=current_user.email,
                action=action,
                request_id=g.get("request_id"),
                cfe_id=cfe_id,
                summary=summary,
            )
        )
        db.commit()


def recent(company_id: int, *, action: str | None = None, limit: int = 20) -> list[Activity]:
    """The company's latest activity, newest first."""
    query = select(Activity).where(Activity.company_id == company_id)
    if action:
        query = query.where(Activity.action == action)
    with _session() as db:
        return list(db.scalars(query.order_by(Activity.created_at.desc(), Activity.id.desc()).limit(limit)))


def upgrade(url: str) -> None:
    """Apply the portal database's migrations."""
    from pathlib import Path

    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    command.upgrade(config, "heads")
