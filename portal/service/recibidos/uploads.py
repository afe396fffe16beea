"""Envelope files uploaded by a person or a program (`POST /api/v1/recibidos`): one or more XML files, or ZIP
files holding them. The container is checked before anything is received: a ZIP that cannot be read, is
encrypted, nests another ZIP, holds an entry larger than any envelope may be (DGI's 2 MB: what is past it is never
read, so the entry cannot be judged as an envelope) or expands past its caps (a "ZIP bomb") refuses the whole upload,
with nothing stored. Each envelope inside then goes through the intake (a broken envelope is answered BS), all
of them in one transaction (`tasks.receive_all_and_answer`): an upload is received whole or not at all."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from portal.service.platform.errors import FieldError, ValidationFailed
from portal.service.platform.i18n import Text, _
from portal.service.recibidos.checks import MAX_BYTES

MAX_FILES = 50
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
MAX_EXPANDED_BYTES = 60 * 1024 * 1024


@dataclass(frozen=True)
class EnvelopeFile:
    name: str
    data: bytes


def _refuse(message: Text) -> ValidationFailed:
    return ValidationFailed([FieldError("archivos", "archivo_rechazado", message)], message=message)


def expand(files: list[tuple[str, bytes]]) -> list[EnvelopeFile]:
    """The envelopes in the uploaded files, or 422 naming the file that is refused (nothing is received)."""
    if not files:
        raise _refuse(_("Elegí uno o más archivos de sobre (XML) o un ZIP que los contenga."))
    found: list[EnvelopeFile] = []
    expanded = 0
    for name, data in files:
        if data[:4] == b"PK\x03\x04" or name.lower().endswith(".zip"):
            for entry in _zip_entries(name, data):
                expanded += len(entry.data)
                found.append(entry)
        else:
            found.append(EnvelopeFile(name, data))
        if len(found) > MAX_FILES:
            raise _refuse(_("Se pueden subir hasta {cantidad} sobres por vez.", cantidad=MAX_FILES))
        if expanded > MAX_EXPANDED_BYTES:
            raise _refuse(_("«{name}» se expande a más de {mb} MB.", name=name, mb=MAX_EXPANDED_BYTES // (1024 * 1024)))
    return found


def _zip_entries(name: str, data: bytes) -> list[EnvelopeFile]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        raise _refuse(_("«{name}» no es un ZIP que se pueda leer.", name=name)) from None
    entries: list[EnvelopeFile] = []
    total = 0
    for info in infos:
        if info.is_dir() or info.filename.startswith("__MACOSX/"):
            continue
        if info.flag_bits & 0x1:
            raise _refuse(_("«{name}» está cifrado: subí los sobres sin contraseña.", name=name))
        inner = info.filename.rsplit("/", 1)[-1]
        if inner.lower().endswith(".zip"):
            raise _refuse(
                _("«{name}» contiene otro ZIP ({inner}): subí los sobres directamente.", name=name, inner=inner)
            )
        if len(entries) >= MAX_FILES:
            raise _refuse(_("«{name}» tiene más de {cantidad} archivos.", name=name, cantidad=MAX_FILES))
        try:
            with archive.open(info) as stream:
                # Never more than the cap plus one byte: what the ZIP claims about sizes is not trusted.
                content = stream.read(MAX_BYTES + 1)
        except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError):
            raise _refuse(_("«{name}»: no se puede leer {inner}.", name=name, inner=inner)) from None
        if len(content) > MAX_BYTES:
            raise _refuse(
                _(
                    "«{name}»: {inner} pasa de {kb} KB, el máximo de un sobre; no se recibió nada.",
                    name=name,
                    inner=inner,
                    kb=MAX_BYTES // 1024,
                )
            )
        total += len(content)
        if total > MAX_EXPANDED_BYTES:
            raise _refuse(_("«{name}» se expande a más de {mb} MB.", name=name, mb=MAX_EXPANDED_BYTES // (1024 * 1024)))
        entries.append(EnvelopeFile(inner, content))
    if not entries:
        raise _refuse(_("«{name}» no contiene ningún archivo.", name=name))
    return entries
