"""An issued receipt's PDF comes only from what was true when it was signed (issue 25, item 1): the issuer,
and the company's default paper and logo of that moment. Another paper only when asked for explicitly;
receipts issued before the snapshot existed print with the settings of the day, as they always did."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from sqlalchemy import update

from portal.service.comprobante.models import IssuedCfe
from portal.service.platform import db
from tests.integration.test_empresa_api import SETTINGS
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue
from tests.support.empresa_files import image

GET = "/api/v1/comprobante/getByIdCfeEmitido"
A4_WIDTH_PT = 595


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@demo.uy", 1)


def _pdf(api_client, headers, cfe_id: str, **query) -> bytes:
    answer = api_client.get(
        GET, query_string={"idCfeEmitido": cfe_id, **query}, headers={**headers, "Accept": "application/pdf"}
    )
    assert answer.status_code == 200, answer.data[:300]
    return answer.data


def _poppler(tool: str, pdf: bytes, *args: str) -> str:
    binary = shutil.which(tool)
    assert binary, f"{tool} (Debian package poppler-utils) must be installed"
    return subprocess.run([binary, *args, "-"], input=pdf, capture_output=True, check=True, timeout=30).stdout.decode()


def _width_and_images(pdf: bytes) -> tuple[int, int]:
    """The first page's width in points and how many images it draws besides the QR (the logo: 0 or 1)."""
    width = float(re.search(r"Page size:\s+([\d.]+) x", _poppler("pdfinfo", pdf)).group(1))
    images = _poppler("pdfimages", pdf, "-list", "-f", "1", "-l", "1").splitlines()[2:]  # two header lines
    return round(width), len(images) - 1


def _switch_to_80mm_with_a_logo(api_client, admin) -> None:
    changed = api_client.put("/api/v1/empresa/configuracion", json=SETTINGS, headers=admin)  # formatoPapel 80mm
    assert changed.status_code == 200, changed.json
    logo = api_client.put("/api/v1/empresa/logo", data=image(), content_type="image/png", headers=admin)
    assert logo.status_code in (200, 201), logo.json


def test_settings_changed_after_issue_leave_the_issued_pdf_as_it_was(api_client, admin):
    ticket = issue(api_client, admin, bodies.body(bodies.ETICKET))
    before = _pdf(api_client, admin, ticket["idCfeEmitido"])
    assert _width_and_images(before) == (A4_WIDTH_PT, 0)

    _switch_to_80mm_with_a_logo(api_client, admin)

    after = _pdf(api_client, admin, ticket["idCfeEmitido"])
    assert _width_and_images(after) == (A4_WIDTH_PT, 0)  # still A4, still no logo: "desde el próximo comprobante"
    assert len(after) == len(before)
    roll = _pdf(api_client, admin, ticket["idCfeEmitido"], formato="80mm")  # asked for explicitly
    assert _width_and_images(roll)[0] < A4_WIDTH_PT / 2

    # The next receipt takes the new settings, and keeps them when the logo goes away.
    following = issue(api_client, admin, bodies.body(bodies.ETICKET))
    width, images = _width_and_images(_pdf(api_client, admin, following["idCfeEmitido"]))
    assert width < A4_WIDTH_PT / 2 and images == 1
    assert api_client.delete("/api/v1/empresa/logo", headers=admin).status_code == 204
    assert _width_and_images(_pdf(api_client, admin, following["idCfeEmitido"]))[1] == 1


def test_a_receipt_issued_before_the_snapshot_prints_with_the_settings_of_the_day(api_client, admin, service_app):
    ticket = issue(api_client, admin, bodies.body(bodies.ETICKET))
    with service_app.app_context(), db.write_transaction() as session:  # as migration 0020 leaves older receipts
        session.execute(
            update(IssuedCfe)
            .where(IssuedCfe.id == ticket["idCfeEmitido"])
            .values(print_paper=None, print_logo_sha256=None)
        )
    _switch_to_80mm_with_a_logo(api_client, admin)
    width, images = _width_and_images(_pdf(api_client, admin, ticket["idCfeEmitido"]))
    assert width < A4_WIDTH_PT / 2 and images == 1
