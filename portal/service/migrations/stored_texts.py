"""The data half of a migration that adds a `..._texts` column beside a column of Spanish sentences: each stored
sentence that reads as one of the catalogue messages the migration lists is kept as `i18n.stored` keeps it
(`{key: the Spanish, "plantilla": the message, "valores": its values}`), so it is said in each reader's language
as the rows written from then on are. A sentence that reads as none (a supplier's or a server's own words) is
left without texts and said as it was stored.

The migration lists the messages as they were when it was written (never imported from the code that writes
them, which may change): the Spanish of each `_()` with its `{name}` placeholders.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
from alembic import op


@lru_cache(maxsize=256)
def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{([a-z_]+)\}", template)
    # A value may hold anything, a period or a colon too; the message's own words around it anchor it.
    regex = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.*?)" for i, part in enumerate(parts))
    return re.compile(regex, re.DOTALL)


def kept(
    text: str, templates: Iterable[str], key: str = "mensaje", inner: Mapping[str, Iterable[str]] | None = None
) -> dict | None:
    """`text` as i18n.stored keeps the first of `templates` it reads as, or None when it reads as none. A value
    named in `inner` that reads as one of its messages is kept as that message ("{codigo}: {mensaje}" with a
    message of the catalogue as `mensaje`), to be said too."""
    found = _read(text, templates, inner or {})
    return None if found is None else {key: text, **found}


def _read(text: str, templates: Iterable[str], inner: Mapping[str, Iterable[str]]) -> dict | None:
    for template in templates:
        found = _pattern(template).fullmatch(text)
        if found is not None:
            values = {
                name: (_read(value, inner[name], {}) or value) if name in inner else value
                for name, value in found.groupdict().items()
            }
            return {"plantilla": template, "valores": values}
    return None


def backfill(
    table: str,
    column: str,
    texts_column: str,
    templates: Iterable[str],
    key: str = "mensaje",
    only: dict[str, str] | None = None,
    inner: Mapping[str, Iterable[str]] | None = None,
) -> None:
    """Fill `texts_column` of the rows of `table` whose `column` reads as one of `templates` (by primary key `id`),
    among those whose columns hold the values of `only`; `inner` as `kept` reads it."""
    templates, only = tuple(templates), only or {}
    rows = sa.table(
        table, sa.column("id"), sa.column(column), sa.column(texts_column, sa.JSON()), *map(sa.column, only)
    )
    bind = op.get_bind()
    found = bind.execute(
        sa.select(rows.c.id, rows.c[column]).where(
            rows.c[column].is_not(None),
            rows.c[texts_column].is_(None),
            *(rows.c[name] == value for name, value in only.items()),
        )
    ).all()
    update = rows.update().where(rows.c.id == sa.bindparam("row_id")).values({texts_column: sa.bindparam("texts")})
    changes = [
        {"row_id": row_id, "texts": texts} for row_id, text in found if (texts := kept(text, templates, key, inner))
    ]
    if changes:
        bind.execute(update, changes)


def rewrite_notice_texts(step: Callable[[Any], Any]) -> None:
    """Each compliance-watch notice's stored texts (`aviso.texts`: {key: a message as i18n.stored keeps it}) with
    `step` applied to every message, written back where it changed: what a migration that renames a message or
    changes how its values are kept does to the notices stored before it."""
    bind = op.get_bind()
    notices = sa.table("aviso", sa.column("id"), sa.column("texts", sa.JSON()))
    found = bind.execute(sa.select(notices.c.id, notices.c.texts).where(notices.c.texts.is_not(None))).all()
    changes = []
    for notice_id, texts in found:
        now = {key: step(record) for key, record in texts.items()}
        if now != texts:
            changes.append({"notice_id": notice_id, "now": now})
    if changes:
        update = notices.update().where(notices.c.id == sa.bindparam("notice_id"))
        bind.execute(update.values(texts=sa.bindparam("now")), changes)
