"""What a PKCS#12 file asks of whoever opens it, read before OpenSSL opens it (platform/pkcs12_cost.py): every
iteration count (each encrypted part's and the MAC's), however the file is encoded, since OpenSSL reads BER."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.serialization import pkcs12

from portal.service.platform import pkcs12_cost
from tests.support.empresa_files import _der, _encoded, costly_p12, p12


def _ber(element: list) -> bytes:
    """The element in BER as some tools write it: indefinite lengths, and each OCTET STRING split in two chunks."""
    tag, content = element
    if isinstance(content, bytes):
        if tag == 0x04 and len(content) > 1:
            nested = _nested_der(content)
            if nested is not None:
                content = _ber(nested)
            half = len(content) // 2
            return b"\x24\x80" + _encoded([0x04, content[:half]]) + _encoded([0x04, content[half:]]) + b"\0\0"
        return _encoded(element)
    return bytes([tag, 0x80]) + b"".join(_ber(child) for child in content) + b"\0\0"


def _nested_der(content: bytes) -> list | None:
    try:
        nested, end = _der(content)
    except IndexError:
        return None
    return nested if end == len(content) and nested[0] == 0x30 else None


def test_ordinary_files_ask_for_a_few_thousand_rounds():
    assert 0 < pkcs12_cost.cost(p12()).rounds <= 50_000


def test_every_count_is_read_however_the_file_is_encoded():
    rounds = pkcs12_cost.cost(p12()).rounds
    ber = _ber(_der(costly_p12(rounds))[0])  # its own counts again, and no MAC (re-encoding the safe would break it)
    with pytest.warns(UserWarning, match="falling back to parsing as BER"):
        pkcs12.load_key_and_certificates(ber, b"clave-p12")  # it opens: it must be judged as the DER form is
    assert pkcs12_cost.cost(ber).rounds == rounds
    assert pkcs12_cost.cost(costly_p12(2**31 - 1)).rounds == 2**31 - 1
    assert pkcs12_cost.cost(_ber(_der(costly_p12(2**31 - 1))[0])).rounds == 2**31 - 1
    # Bytes after a safe's element are ignored by OpenSSL: they must not hide the counts before them.
    pfx = _der(costly_p12(2**31 - 1))[0]
    safe = pfx[1][1][1][1][1][0]  # ContentInfo, its [0], the OCTET STRING: the authenticated safe
    safe[1] += b"\x05"
    assert pkcs12_cost.cost(_encoded(pfx)).rounds == 2**31 - 1


def test_the_macs_count_is_read_too():
    pfx = _der(p12())[0]
    mac_data = pfx[1][2]  # MacData: DigestInfo, macSalt, iterations
    mac_data[1][2] = [0x02, (2**31 - 1).to_bytes(4, "big")]
    assert pkcs12_cost.cost(_encoded(pfx)).rounds == 2**31 - 1


def test_scrypt_is_noticed_and_what_is_not_ber_is_a_value_error():
    scrypt = _encoded([0x30, [[0x06, bytes.fromhex("2b06010401da47040b")], [0x04, b"salt"], [0x02, b"\x40\x00"]]])
    assert pkcs12_cost.cost(scrypt).scrypt
    with pytest.raises(ValueError):
        pkcs12_cost.cost(b"no soy un p12")
