"""A ZIP archive written while it is sent, for downloads of many signed XMLs (a month's receipts): each file is
compressed and handed to the response as soon as it is read, so memory stays flat however many there are.

The standard library's zipfile writes the archive; it only needs somewhere to write that is not seekable (it then
writes each entry's sizes before its data, which it knows, as writestr is given the whole file). `_Sink` is that:
what zipfile wrote since the last chunk was taken."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

ZIP = "application/zip"
# A ZIP's dates start in 1980 (its DOS date fields).
_EARLIEST = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class ZipEntry:
    name: str
    content: bytes
    moment: datetime  # local time, as ZIP stores it


class _Sink(io.RawIOBase):
    """A write-only, unseekable file that keeps what was written until it is taken."""

    def __init__(self) -> None:
        super().__init__()
        self._parts: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:  # type: ignore[no-untyped-def, override]  # bytes-like, as io's
        self._parts.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        data = b"".join(self._parts)
        self._parts.clear()
        return data


def zip_chunks(entries: Iterable[ZipEntry]) -> Iterator[bytes]:
    """The archive of `entries` (deflated), a chunk per entry, then its central directory. Two entries of one name
    keep both: the second is named with " (2)" before its extension."""
    sink = _Sink()
    used: set[str] = set()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for entry in entries:
            name, copy = entry.name, 1
            while name in used:
                copy += 1
                stem, dot, extension = entry.name.rpartition(".")
                name = f"{stem} ({copy}).{extension}" if dot else f"{entry.name} ({copy})"
            used.add(name)
            info = zipfile.ZipInfo(name, date_time=max(entry.moment.timetuple()[:6], _EARLIEST))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, entry.content)
            yield sink.take()
    yield sink.take()
