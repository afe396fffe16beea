"""Shared fixtures of the CFE engine tests: one generated certificate per session, an issuer, a CAE range,
and a realistic request for every supported CFE type."""

from __future__ import annotations

import copy
import shutil
import subprocess
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe import (
    CfeSigner,
    Emission,
    Issuer,
    Numbering,
    build_signed_cfe,
    parse_cfe_input,
    sign_validated_cfe,
    validate,
)
from portal.service.platform.certificates import generate_self_signed

ISSUER_RUT = "219999830019"  # DGI's test issuer
UI_VALUE = Decimal("6.1")  # pesos per Unidad Indexada, about the 2024 value
SIGNED_AT = datetime(2024, 5, 11, 15, 56, 20, tzinfo=MONTEVIDEO)
_BUYER = {
    "tipoDocRecep": 2,
    "codPaisRecep": "UY",
    "docRecep": "214844360018",
    "rznSocRecep": "DGI",
    "dirRecep": "Fernandez Crespo 1534",
    "ciudadRecep": "Montevideo",
    "deptoRecep": "Montevideo",
}

REALISTIC = {
    101: {
        "tipoCFE": 101,
        "fchEmis": "2024-05-11",
        "fmaPago": 1,
        "mntBruto": 1,
        "receptor": {
            "tipoDocRecep": 3,
            "docRecep": "1.335.321-4",
            "rznSocRecep": "Juan Pérez",
            "dirRecep": "18 de Julio 2016",
            "ciudadRecep": "Montevideo",
        },
        "items": [
            {"indFact": 3, "nomItem": "Bananas", "cantidad": "40", "uniMed": "kg", "precioUnitario": "4200"},
            {"indFact": 2, "nomItem": "Manzanas", "cantidad": "18", "uniMed": "kg", "precioUnitario": "22"},
            {"indFact": 1, "nomItem": "Papas", "cantidad": "12", "uniMed": "kg", "precioUnitario": "35"},
        ],
        "mediosPago": [{"codMP": 1, "glosaMP": "Efectivo", "valorPago": "168816.00"}],
        "adenda": "Gracias por su compra.",
    },
    102: {
        "tipoCFE": 102,
        "fchEmis": "2024-05-12",
        "fmaPago": 1,
        "mntBruto": 1,
        "items": [
            {"indFact": 3, "nomItem": "Devolución bananas", "cantidad": "1.5", "uniMed": "kg", "precioUnitario": "105"}
        ],
        "referencias": [
            {"tpoDocRef": 101, "serie": "A", "nroCFERef": 1, "razonRef": "Devolución", "fechaCFEref": "2024-05-11"}
        ],
    },
    103: {
        "tipoCFE": 103,
        "fchEmis": "2024-05-12",
        "fmaPago": 2,
        "fchVenc": "2024-06-12",
        "tpoMoneda": "USD",
        "tpoCambio": "39.125",
        "items": [{"indFact": 3, "nomItem": "Flete", "cantidad": "1", "precioUnitario": "12.5"}],
        "referencias": [{"indGlobal": 1, "razonRef": "Ajuste de flete de tickets de mayo"}],
    },
    111: {
        "tipoCFE": 111,
        "fchEmis": "2024-05-11",
        "fmaPago": 2,
        "fchVenc": "2024-06-10",
        "receptor": _BUYER,
        "infoAdicionalDoc": "Pedido 4512",
        "items": [
            {
                "indFact": 3,
                "nomItem": "Harina",
                "dscItem": "Bolsa de 25 kg",
                "cantidad": "10",
                "uniMed": "kg",
                "precioUnitario": "1000",
                "codItem": [{"tpoCod": "GTIN13", "cod": "7730000000016"}],
                "descuentoPct": "10",
                "descuentoMonto": "1000",
            },
            {
                "indFact": 2,
                "nomItem": "Azúcar",
                "cantidad": "5",
                "uniMed": "kg",
                "precioUnitario": "2000",
                "recargoPct": "5",
                "recargoMnt": "500",
                "indAgenteResp": "R",
                "retencPercep": [{"codRet": "2183158", "tasa": "10", "mntSujetoaRet": "10500", "valRetPerc": "1050"}],
            },
            {"indFact": 1, "nomItem": "Libros", "cantidad": "2", "precioUnitario": "350.25"},
            {"indFact": 6, "nomItem": "Bicicleta (no facturable)", "cantidad": "1", "precioUnitario": "5000"},
        ],
        "dscRcgGlobal": [{"tpoMovDR": "D", "tpoDR": 2, "glosaDR": "Pronto pago 1%", "valorDR": "90", "indFactDR": 3}],
        "mediosPago": [{"glosaMP": "Transferencia", "valorPago": "1000.00"}],
        "adenda": "Entregar en depósito 2.",
    },
    112: {
        "tipoCFE": 112,
        "fchEmis": "2024-05-20",
        "fmaPago": 2,
        "receptor": _BUYER,
        "items": [{"indFact": 2, "nomItem": "Uvas", "cantidad": "50", "uniMed": "kg", "precioUnitario": "30"}],
        "referencias": [
            {
                "tpoDocRef": 111,
                "serie": "A",
                "nroCFERef": 2,
                "razonRef": "Mercadería en mal estado",
                "fechaCFEref": "2024-05-11",
            }
        ],
    },
    113: {
        "tipoCFE": 113,
        "fchEmis": "2024-05-20",
        "fmaPago": 1,
        "tpoMoneda": "EUR",
        "tpoCambio": "42.37",
        "receptor": _BUYER,
        "items": [{"indFact": 3, "nomItem": "Intereses por mora", "cantidad": "1", "precioUnitario": "15.333333"}],
        "referencias": [{"tpoDocRef": 111, "serie": "A", "nroCFERef": 2}],
    },
    181: {
        "tipoCFE": 181,
        "fchEmis": "2024-05-11",
        "tipoTraslado": 1,
        "receptor": _BUYER,
        "items": [
            {"nomItem": "Manzanas", "cantidad": "10", "uniMed": "kg"},
            {"nomItem": "Arroz", "cantidad": "8.5", "uniMed": "kg", "codItem": [{"tpoCod": "INT1", "cod": "AR-1"}]},
            {"indFact": 8, "nomItem": "Papas (rebaja)", "cantidad": "2", "uniMed": "kg"},
        ],
        "referencias": [{"tpoDocRef": 181, "serie": "A", "nroCFERef": 5}],
    },
    182: {
        "tipoCFE": 182,
        "fchEmis": "2024-05-31",
        "fchValor": "2024-05-31",
        "receptor": _BUYER,
        "items": [
            {"retencPercep": [{"codRet": "2183165", "tasa": "50", "mntSujetoaRet": "22000", "valRetPerc": "11000"}]},
            {"retencPercep": [{"codRet": "2183165", "tasa": "50", "mntSujetoaRet": "88000", "valRetPerc": "44000"}]},
        ],
        "referencias": [
            {"tpoDocRef": 111, "serie": "A", "nroCFERef": 25},
            {"tpoDocRef": 111, "serie": "A", "nroCFERef": 30},
        ],
    },
}


@pytest.fixture(scope="session")
def key_and_cert() -> tuple[bytes, bytes]:
    """A fresh RSA-2048 key and self-signed certificate for the test issuer (generated once per run)."""
    return generate_self_signed(ISSUER_RUT, "DGI RUC PRUEBA NO CEDE")


@pytest.fixture(scope="session")
def cert_path(key_and_cert, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cert") / "cert.pem"
    path.write_bytes(key_and_cert[1])
    return path


@pytest.fixture(scope="session")
def signer(key_and_cert) -> CfeSigner:
    return CfeSigner(*key_and_cert)


@pytest.fixture(scope="session")
def issuer() -> Issuer:
    return Issuer(
        rut=ISSUER_RUT,
        razon_social="DGI RUC PRUEBA NO CEDE",
        nombre_comercial="Almacén de Prueba",
        cdg_dgi_sucursal=1,
        domicilio_fiscal="Avda. Daniel Fernández Crespo 1534",
        ciudad="Montevideo",
        departamento="Montevideo",
        telefono="29001234",
        correo="facturas@example.com",
        giro="Venta de alimentos",
        sucursal="Casa central",
        resolucion="Res. DGI 1234/2024",
    )


@pytest.fixture(scope="session")
def numbering() -> Numbering:
    return Numbering(serie="A", nro=17, cae_id=90240000194, dnro=1, hnro=100000, fec_venc=date(2026, 5, 10))


@pytest.fixture(scope="session")
def xmlsec1_verify(tmp_path_factory, cert_path):
    """Verify signed bytes with Debian's independent `xmlsec1` command; returns (ok, output)."""
    binary = shutil.which("xmlsec1")
    assert binary, "xmlsec1 (Debian package xmlsec1) must be installed"
    folder = tmp_path_factory.mktemp("signed")

    def verify(xml: bytes, name: str = "cfe.xml") -> tuple[bool, str]:
        path = folder / name
        path.write_bytes(xml)
        result = subprocess.run(
            [binary, "--verify", "--trusted-pem", str(cert_path), str(path)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        return result.returncode == 0, result.stderr

    return verify


@pytest.fixture
def realistic() -> dict[int, dict]:
    """A realistic request body per supported CFE type (a fresh copy per test, free to modify)."""
    return copy.deepcopy(REALISTIC)


@pytest.fixture
def sign(issuer, numbering, signer):
    """sign(body) -> SignedCfe, with the session's issuer, CAE range and signer (each replaceable by keyword)
    at a fixed time. `checked=True` signs as issuing does: `validate` first (it must find nothing), then
    `sign_validated_cfe` with the totals it computed."""

    def _sign(body: dict, *, checked: bool = False, **kwargs):
        cfe, chosen = parse_cfe_input(body), kwargs.pop("issuer", issuer)
        parts = (chosen, kwargs.pop("numbering", numbering), kwargs.pop("signer", signer))
        if not checked:
            return build_signed_cfe(cfe, *parts, UI_VALUE, SIGNED_AT, **kwargs)
        emission = Emission(signing_date=SIGNED_AT.date(), regimen=chosen.regimen)
        validation = validate(cfe, ui_value=UI_VALUE, emission=emission)
        assert validation.errors == [] and validation.totals is not None
        return sign_validated_cfe(cfe, validation.totals, *parts, SIGNED_AT, **kwargs)

    return _sign
