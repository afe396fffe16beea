"""How much work a PKCS#12 file asks of whoever opens it, read from its structure before it is opened.

A .p12 names its own key derivations: each encrypted part's iteration count (PKCS#12's PBE, PBES2's PBKDF2) and the
MAC's. OpenSSL does what the file says, and cryptography's binding holds the GIL meanwhile: a 2.5 KB file asking for
2^31 rounds stopped every thread of the service process for many minutes (the MAC's rounds run before the password
is even known to be wrong). Real files ask for 2,048 (OpenSSL, macOS), 2,000 to 10,000 (Windows, Java keytool).

The file is walked as BER (definite and indefinite lengths, constructed strings), going into every OCTET STRING
that holds DER, which is how PKCS#12 nests its safes: an INTEGER right after an OCTET STRING in one SEQUENCE is a
(salt, count) pair, the shape of every one of those parameters. scrypt (PBES2's other KDF, whose cost is three
numbers) is refused by its OID: no CA delivers signing certificates that way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_ROUNDS = 1_000_000
_OCTET_STRING, _INTEGER, _OID, _CONSTRUCTED_OCTETS = 0x04, 0x02, 0x06, 0x24
_SCRYPT = bytes.fromhex("2b06010401da47040b")  # 1.3.6.1.4.1.11591.4.11
_MAX_DEPTH = 64


@dataclass
class Cost:
    """The most rounds any part of the file asks for, and whether it uses scrypt."""

    rounds: int = 0
    scrypt: bool = False
    _counts: list[int] = field(default_factory=list, repr=False)


def cost(data: bytes) -> Cost:
    """What opening `data` asks for; ValueError when it is not BER at all (OpenSSL would not open it either)."""
    found = Cost()
    _element(data, 0, len(data), 0, found)
    found.rounds = max(found._counts, default=0)
    return found


def _header(data: bytes, i: int, end: int) -> tuple[int, int, int | None]:
    """(tag, where the content starts, its length or None when indefinite)."""
    if i + 2 > end:
        raise ValueError("truncated")
    tag, first = data[i], data[i + 1]
    i += 2
    if tag & 0x1F == 0x1F:
        raise ValueError("high tag number")  # PKCS#12 has none
    if first == 0x80:
        if not tag & 0x20:
            raise ValueError("indefinite primitive")
        return tag, i, None
    if first & 0x80:
        size = first & 0x7F
        if not 0 < size <= 4 or i + size > end:
            raise ValueError("bad length")
        length, i = int.from_bytes(data[i : i + size], "big"), i + size
    else:
        length = first
    if i + length > end:
        raise ValueError("truncated")
    return tag, i, length


def _element(data: bytes, i: int, end: int, depth: int, found: Cost) -> tuple[int, bytes | None, int]:
    """The element at `i`: (tag, its content when primitive or a constructed string's, where the next starts)."""
    if depth > _MAX_DEPTH:
        raise ValueError("too deep")
    tag, start, length = _header(data, i, end)
    if not tag & 0x20:
        stop = start + (length or 0)
        content = data[start:stop]
        if tag == _OCTET_STRING:
            _nested(content, depth, found)
        elif tag == _OID and content == _SCRYPT:
            found.scrypt = True
        return tag, content, stop
    stop = end if length is None else start + length
    chunks: list[bytes] = []
    previous = None
    j = start
    while True:
        if length is None and data[j : j + 2] == b"\0\0":
            j += 2
            break
        if length is not None and j >= stop:
            break
        child, value, j = _element(data, j, stop, depth + 1, found)
        if previous == _OCTET_STRING and child == _INTEGER and value:
            found._counts.append(int.from_bytes(value, "big", signed=True))
        if tag == _CONSTRUCTED_OCTETS and value is not None:
            chunks.append(value)
        previous = child
    if tag == _CONSTRUCTED_OCTETS:
        joined = b"".join(chunks)
        _nested(joined, depth, found)
        return _OCTET_STRING, joined, j
    return tag, None, j


def _nested(content: bytes, depth: int, found: Cost) -> None:
    """An OCTET STRING's content walked as BER (a safe), each whole element it starts with counted: what follows the
    last one that parses is left (a salt, encrypted bytes, or trailing bytes, which OpenSSL ignores too)."""
    i = 0
    while i < len(content):
        inside = Cost()
        try:
            _tag, _content, i = _element(content, i, len(content), depth + 1, inside)
        except ValueError:
            return
        found._counts += inside._counts
        found.scrypt = found.scrypt or inside.scrypt
