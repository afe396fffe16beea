"""What the benches share: a 10-line e-Ticket of the demo company that the in-process benches sign or print,
issued under a CAE range valid for years; the body the HTTP benches send; and the in-process service on a
throwaway database with the demo data. One place, so the benches measure the same documents the same way."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import date
from pathlib import Path

from tests.support.cfe_bodies import ETICKET

ROOT = Path(__file__).resolve().parent.parent

# The body the HTTP benches issue (the tests' two-line e-Ticket, no receiver), as bytes on the wire.
TWO_LINE_ETICKET_BODY = json.dumps(ETICKET).encode()


def demo_environment(prefix: str) -> str:
    """A throwaway folder for this process's var/ and secrets (generated), before any app is built."""
    workdir = tempfile.mkdtemp(prefix=prefix)
    os.environ["CFE_VAR_DIR"] = workdir
    os.environ["CFE_SECRETS_DIR"] = os.path.join(workdir, "secrets")
    if not (ROOT.parent / "shared/domain/dgi-xsd").is_dir():  # a worktree sits one level deeper
        os.environ.setdefault("CFE_DOMAIN_DIR", str(ROOT.parent.parent / "shared/domain"))
    from portal.devsecrets import ensure_secrets

    ensure_secrets()
    return workdir


def demo_service(workdir: str, config: dict | None = None):
    """The service app, in this process, on a migrated SQLite file in `workdir` with the demo data, and an
    access token of usuario@demo.uy (a writer of Demo S.A.)."""
    from portal.service import create_app
    from portal.service.migrations import upgrade
    from portal.service.seed import seed_demo
    from tests.conftest import mint_token

    url = f"sqlite:///{workdir}/service.db"
    upgrade(url)
    app = create_app({"DATABASE_URL": url, **(config or {})})
    with app.app_context():
        list(seed_demo())
    return app, mint_token(app, "usuario@demo.uy")


def ten_line_eticket(**extra):
    from portal.service.cfe import parse_cfe_input

    lines = [{"indFact": 3, "nomItem": f"Artículo {i}", "cantidad": "2", "precioUnitario": "99.90"} for i in range(10)]
    return parse_cfe_input({"tipoCFE": 101, "fmaPago": 1, "mntBruto": True, "items": lines, **extra})


def demo_issuer(**extra):
    from portal.service.cfe.emission import Issuer

    return Issuer(
        rut="219999830019",
        razon_social="Demo S.A.",
        cdg_dgi_sucursal=1,
        domicilio_fiscal="Av. 18 de Julio 1234",
        ciudad="Montevideo",
        departamento="Montevideo",
        **extra,
    )


def numbering(nro: int = 1):
    from portal.service.cfe.emission import Numbering

    return Numbering(serie="A", nro=nro, cae_id=90260000011, dnro=1, hnro=100000, fec_venc=date(2030, 1, 1))


def ten_line_export(**extra):
    """A 10-line e-Factura de Exportación (121) of goods, in dollars, to a buyer abroad."""
    from portal.service.cfe import parse_cfe_input

    lines = [{"indFact": 10, "nomItem": f"Artículo {i}", "cantidad": "2", "precioUnitario": "99.90"} for i in range(10)]
    receiver = {
        "tipoDocRecep": 4,
        "codPaisRecep": "US",
        "docRecep": "98-7654321",
        "rznSocRecep": "Acme Inc.",
        "dirRecep": "500 Market Street",
        "paisRecep": "Estados Unidos",
    }
    body = {"tipoCFE": 121, "fmaPago": 1, "tpoMoneda": "USD", "tpoCambio": "39.250", "clauVenta": "FOB"}
    body.update(modVenta=1, viaTransp=1, receptor=receiver, items=lines, **extra)
    return parse_cfe_input(body)


def ten_line_boleta(**extra):
    """A 10-line e-Boleta de entrada (151) of purchases from an IMEBA taxpayer, IMEBA included."""
    from portal.service.cfe import parse_cfe_input

    lines = [{"indFact": 15, "nomItem": f"Lote {i}", "cantidad": "2", "precioUnitario": "99.90"} for i in range(10)]
    seller = {"tipoDocRecep": 3, "docRecep": "13353214", "rznSocRecep": "Juan Pérez", "dirRecep": "Ruta 5 km 120"}
    return parse_cfe_input({"tipoCFE": 151, "fmaPago": 1, "mntBruto": 2, "receptor": seller, "items": lines, **extra})
