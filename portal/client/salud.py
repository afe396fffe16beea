"""Client methods of the compliance watch and the notification centre."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from portal.client.models import JsonObject
from portal.client.models import parse_datetime as _moment
from portal.client.transport import Transport

BASE = "/api/v1/empresa"


@dataclass(frozen=True)
class Concern:
    """One concern of the watch: ok, warning or problem, what it is, and where it is fixed (`link`, a portal
    path)."""

    key: str
    kind: str
    state: str
    message: str
    action: str
    link: str


@dataclass(frozen=True)
class Health:
    state: str
    checked_at: datetime
    concerns: tuple[Concern, ...]

    @property
    def attention(self) -> tuple[Concern, ...]:
        """The concerns that need someone, problems first."""
        order = {"problem": 0, "warning": 1}
        return tuple(sorted((c for c in self.concerns if c.state != "ok"), key=lambda c: order[c.state]))


@dataclass(frozen=True)
class Notice:
    id: int
    key: str
    kind: str
    state: str
    message: str
    action: str
    link: str
    created_at: datetime
    read: bool


@dataclass(frozen=True)
class NoticePage:
    items: tuple[Notice, ...]
    unread: int
    next_cursor: str | None


def _concern(data: JsonObject) -> Concern:
    return Concern(data["clave"], data["tipo"], data["estado"], data["mensaje"], data["accion"], data["enlace"])


class SaludApi(Transport):
    """The compliance watch (every role) and the notification centre (per person)."""

    def health(self) -> Health:
        data = self._json("GET", f"{BASE}/salud")
        return Health(data["estado"], _moment(data["comprobado"]), tuple(_concern(c) for c in data["items"]))

    def list_notices(self, *, limit: int = 20, cursor: str | None = None) -> NoticePage:
        params: dict[str, str | int] = {"limite": limit}
        if cursor:
            params["cursor"] = cursor
        data = self._json("GET", f"{BASE}/avisos", params=params)
        items = tuple(
            Notice(
                id=int(n["id"]),
                key=n["clave"],
                kind=n["tipo"],
                state=n["estado"],
                message=n["mensaje"],
                action=n["accion"],
                link=n["enlace"],
                created_at=_moment(n["creado"]),
                read=bool(n["leido"]),
            )
            for n in data["items"]
        )
        return NoticePage(items, int(data["noLeidos"]), data.get("siguienteCursor"))

    def unread_notices(self) -> int:
        return self.list_notices(limit=1).unread

    def mark_notice_read(self, notice_id: int) -> None:
        self._request("POST", f"{BASE}/avisos/{int(notice_id)}/leido")

    def mark_all_notices_read(self) -> None:
        self._request("POST", f"{BASE}/avisos/leidos")
