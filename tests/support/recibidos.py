"""Envelopes a supplier sends to a demo company (EnvioCFE_entreEmpresas), in the shape of DGI's sample
envelope (dgi-samples/Sob_219999830019_Ej_Mod_19072016.xml: the DGICFE prefix on the envelope, each CFE
declaring its own namespace), with CFEs built and signed by the project's own engine: DGI's sample
signatures do not verify (CFE-URUGUAY.md section 4).

The supplier is Comercial del Norte (company 2) and the receiver Demo S.A. (company 1), each with a
certificate generated once per process for the supplier."""

from __future__ import annotations

import base64
import copy
import re
import threading
from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import cache

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree
from sqlalchemy import Connection, column, table, text

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe import CfeSigner, Issuer, Numbering, build_signed_cfe, parse_cfe_input
from portal.service.cfe.amounts import compute_totals
from portal.service.cfe.xml import build_cfe_xml
from portal.service.platform.certificates import generate_self_signed

SUPPLIER_RUT = "211003420017"  # Comercial del Norte S.R.L.
RECEIVER_RUT = "219999830019"  # Demo S.A.
UI_VALUE = Decimal("6.1")
CAE_ID = 90250000017
SUPPLIER = Issuer(
    rut=SUPPLIER_RUT,
    razon_social="Comercial del Norte S.R.L.",
    cdg_dgi_sucursal=1,
    domicilio_fiscal="Av. Artigas 1234",
    ciudad="Salto",
    departamento="Salto",
)
BUYER = {
    "tipoDocRecep": 2,
    "codPaisRecep": "UY",
    "docRecep": RECEIVER_RUT,
    "rznSocRecep": "Demo S.A.",
    "dirRecep": "Av. 18 de Julio 1000",
    "ciudadRecep": "Montevideo",
    "deptoRecep": "Montevideo",
}
EFACTURA = {
    "tipoCFE": 111,
    "fmaPago": 2,
    "receptor": BUYER,
    "items": [
        {"indFact": 3, "nomItem": "Cajas de cartón", "cantidad": "10", "uniMed": "u", "precioUnitario": "150"},
        {"indFact": 2, "nomItem": "Fletes", "cantidad": "1", "precioUnitario": "350.25"},
    ],
    "adenda": "Orden de compra 4512",
}


def busy_on_the_second_envelope(monkeypatch) -> None:
    """The process's XML intake slots stay taken while an upload's second envelope waits for one (other requests
    hold them): that envelope is refused 503, as `intake.examine_bounded` refuses when they are."""
    from portal.service.cfe import xmlsafe
    from portal.service.recibidos import intake

    examined, calls = intake.examine, []

    def busy_on_the_second(data, rut, now=None):
        calls.append(data)
        if len(calls) == 2:
            raise xmlsafe.XmlIntakeBusy(
                xmlsafe._("Hay demasiados documentos XML en proceso; reintentá en unos segundos.")
            )
        return examined(data, rut, now)

    monkeypatch.setattr(intake, "examine", busy_on_the_second)


_KEYS_LOCK = threading.Lock()


@cache
def _generated_keys(rut: str) -> tuple[bytes, bytes]:
    return generate_self_signed(rut, f"Proveedor {rut}", days=365)


def supplier_keys(rut: str = SUPPLIER_RUT) -> tuple[bytes, bytes]:
    # Once per process, also when threads ask at once (functools.cache alone lets two first callers each make a
    # certificate: a CFE signed with one in an envelope that carries the other is refused S06).
    with _KEYS_LOCK:
        return _generated_keys(rut)


@cache
def signer(rut: str = SUPPLIER_RUT) -> CfeSigner:
    key_pem, cert_pem = supplier_keys(rut)
    return CfeSigner(key_pem, cert_pem)


def cert_b64(rut: str = SUPPLIER_RUT) -> str:
    cert = x509.load_pem_x509_certificate(supplier_keys(rut)[1])
    return base64.b64encode(cert.public_bytes(Encoding.DER)).decode()


def cfe(
    nro: int,
    *,
    body: dict | None = None,
    issuer: Issuer = SUPPLIER,
    sign_with: CfeSigner | None = None,
    dnro: int = 1,
    hnro: int = 100_000,
    fec_venc: date | None = None,
    cae_id: int = CAE_ID,
    now: datetime | None = None,
    tamper: Callable[[etree._Element], None] | None = None,
    checked: bool = True,
) -> bytes:
    """A signed CFE (standalone bytes, XML declaration included). `tamper` changes the unsigned CFE
    before it is signed (a wrong total, another receiver); numbers outside [dnro, hnro] and a signature
    after `fec_venc` are built without the engine's own checks, as a careless issuer would. `checked=False`
    skips the engine's rules and schema check (bulk envelopes: the same XML, several times faster)."""
    data = copy.deepcopy(body or EFACTURA)
    moment = (now or datetime.now(MONTEVIDEO)).replace(microsecond=0)
    data.setdefault("fchEmis", moment.date().isoformat())
    parsed = parse_cfe_input(data)
    numbering = Numbering(
        serie="A",
        nro=nro,
        cae_id=cae_id,
        dnro=dnro,
        hnro=hnro,
        fec_venc=fec_venc or moment.date() + timedelta(days=300),
    )
    signing = sign_with or signer(issuer.rut)
    if checked and tamper is None and dnro <= nro <= hnro and numbering.fec_venc >= moment.date():
        return build_signed_cfe(parsed, issuer, numbering, signing, UI_VALUE, moment).xml
    root = build_cfe_xml(parsed, issuer, numbering, compute_totals(parsed), moment)
    if tamper is not None:
        tamper(root)
    return signing.sign(root).xml


_DECLARATION = re.compile(rb"^<\?xml[^>]*\?>\s*")


def envelope(
    cfes: list[bytes],
    *,
    rut_receptor: str = RECEIVER_RUT,
    rut_emisor: str = SUPPLIER_RUT,
    idemisor: int = 1,
    cant_cfe: int | None = None,
    certificate: str | None = None,
    adendas: list[str | None] | None = None,
) -> bytes:
    """An EnvioCFE_entreEmpresas with the signed CFEs spliced in byte for byte."""
    parts = [
        b'<?xml version="1.0" encoding="UTF-8"?>\n',
        b'<DGICFE:EnvioCFE_entreEmpresas version="1.0" xmlns:DGICFE="http://cfe.dgi.gub.uy" '
        b'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n',
        b'<DGICFE:Caratula version="1.0">\n',
        f"\t<DGICFE:RutReceptor>{rut_receptor}</DGICFE:RutReceptor>\n".encode(),
        f"\t<DGICFE:RUCEmisor>{rut_emisor}</DGICFE:RUCEmisor>\n".encode(),
        f"\t<DGICFE:Idemisor>{idemisor}</DGICFE:Idemisor>\n".encode(),
        f"\t<DGICFE:CantCFE>{len(cfes) if cant_cfe is None else cant_cfe}</DGICFE:CantCFE>\n".encode(),
        f"\t<DGICFE:Fecha>{datetime.now(MONTEVIDEO).replace(microsecond=0).isoformat()}</DGICFE:Fecha>\n".encode(),
        f"<DGICFE:X509Certificate>{certificate or cert_b64(rut_emisor)}</DGICFE:X509Certificate>\n".encode(),
        b"</DGICFE:Caratula>\n",
    ]
    for index, signed in enumerate(cfes):
        parts.append(b"<DGICFE:CFE_Adenda>\n")
        parts.append(_DECLARATION.sub(b"", signed))
        adenda = adendas[index] if adendas else None
        if adenda:
            parts.append(f"\n<DGICFE:Adenda>{adenda}</DGICFE:Adenda>".encode())
        parts.append(b"\n</DGICFE:CFE_Adenda>\n")
    parts.append(b"</DGICFE:EnvioCFE_entreEmpresas>\n")
    return b"".join(parts)


# --- rows stored before migration 0380 numbered envelopes and answers per company ----------------------------

BEFORE_NUMBERING = "0350_recibidos_respuesta_textos"
MOMENT = "2026-11-24 00:30:16.000000"  # when the migration tests' rows were stored
# The envelopes' companies, in id order (company 3 has none), and their numbers once migrated: the ones their
# signed answers were sent with (the old ids), never given again: each company's counters go on after its largest.
_OWNERS = (1, 2, 2, 1, 2, 1, 1)
NUMBERED_ENVELOPES = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7)]
NUMBERED_ANSWERS = list(range(1, 15))  # an ACKSobre and an ACKCFE per envelope
COUNTERS = [(1, 7, 14), (2, 5, 10), (3, 0, 0)]  # company, last IDReceptor, last IDRespuesta


def stored_companies(ruts: dict[int, str]) -> list[dict]:
    """Bare company rows (id -> RUT) with the columns every migration test's starting point has."""
    columns = {"cdg_dgi_sucursal": 1, "domicilio_fiscal": "-", "ciudad": "-", "departamento": "-"}
    return [
        {"id": i, "rut": rut, "razon_social": f"Empresa {i}", **columns, "created_at": MOMENT}
        for i, rut in ruts.items()
    ]


def insert_rows(connection: Connection, **rows_by_table: list[dict]) -> None:
    """Each table's rows, in the order given (a row's keys are the columns it sets)."""
    for name, rows in rows_by_table.items():
        connection.execute(table(name, *(column(key) for key in rows[0])).insert(), rows)


def stored_envelope(envelope_id: int, company_id: int) -> dict:
    """A bare recibidos_sobre row as stored before 0380."""
    return {
        "id": envelope_id,
        "company_id": company_id,
        "channel": "api",
        "cant_cfe": 1,
        "sha256": f"{envelope_id:064d}",
        "size": 10,
        "estado": "AS",
        "motives": "[]",
        "accepted": 1,
        "rejected": 0,
        "received_at": MOMENT,
    }


def _stored_answer(answer_id: int, envelope: dict, kind: str) -> dict:
    return {
        "id": answer_id,
        "company_id": envelope["company_id"],
        "sobre_id": envelope["id"],
        "kind": kind,
        "channel": "api",
        "document": b"<ACK/>",
        "filename": f"{kind}_{answer_id}.xml",
        "state": "enviado",
        "attempts": 1,
        "next_attempt_at": MOMENT,
        "created_at": MOMENT,
    }


def store_before_numbering(connection: Connection) -> None:
    """Three companies, seven envelopes of companies 1 and 2 interleaved, and their answers, with the columns
    the tables have at BEFORE_NUMBERING."""
    companies = stored_companies({1: RECEIVER_RUT, 2: SUPPLIER_RUT, 3: "214844360018"})
    envelopes = [stored_envelope(i, company) for i, company in enumerate(_OWNERS, start=1)]
    answers = [
        _stored_answer(2 * envelope["id"] - 1 + n, envelope, kind)
        for envelope in envelopes
        for n, kind in enumerate(("ACKSobre", "ACKCFE"))
    ]
    insert_rows(connection, company=companies, recibidos_sobre=envelopes, recibidos_respuesta=answers)


def assert_numbered(connection: Connection) -> None:
    """What 0380 made of the rows of `store_before_numbering`."""
    envelopes = connection.execute(text("SELECT id, id_receptor FROM recibidos_sobre ORDER BY id")).all()
    answers = connection.execute(text("SELECT id_respuesta FROM recibidos_respuesta ORDER BY id")).scalars().all()
    counters = connection.execute(
        text("SELECT company_id, last_id_receptor, last_id_respuesta FROM recibidos_numeracion ORDER BY company_id")
    ).all()
    assert [tuple(row) for row in envelopes] == NUMBERED_ENVELOPES
    assert list(answers) == NUMBERED_ANSWERS
    assert [tuple(row) for row in counters] == COUNTERS
