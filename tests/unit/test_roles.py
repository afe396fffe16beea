"""One role vocabulary (portal.domain.roles) and one decorator per meaning on the portal side."""

from __future__ import annotations

import re
from pathlib import Path

from portal.domain import roles
from portal.service.platform.models import Role

PORTAL = Path(__file__).resolve().parents[2] / "portal"
# A group of roles spelled out again: ("admin", "soporte"), (Role.ADMIN, Role.USUARIO), ...
SPELLED_GROUP = re.compile(r"""\(\s*(["'](admin|usuario|soporte)["']|Role\.[A-Z]+)\s*,""")


def _sources():
    for path in sorted(PORTAL.rglob("*.py")):
        if "migrations" not in path.parts:
            yield path.relative_to(PORTAL.parent).as_posix(), path.read_text(encoding="utf-8")


def test_role_groups_are_defined_once():
    spelled = [where for where, text in _sources() if SPELLED_GROUP.search(text) and where != "portal/domain/roles.py"]
    assert spelled == []


def test_the_portal_guards_views_with_the_named_decorators_only():
    generic = [
        where
        for where, text in _sources()
        if where.startswith("portal/web/")
        and where != "portal/web/auth/session.py"
        and re.search(r"@role_required|@login_required|import[^\n]*\blogin_required\b", text)
    ]
    assert generic == []


def test_the_service_roles_are_the_vocabularys():
    assert {r.value for r in Role} == set(roles.ALL)
    assert set(roles.WRITERS) | set(roles.READERS) == set(roles.ALL) and roles.ADMINS == (roles.ADMIN,)
