"""schemathesis against the service app: every generated request gets a documented answer and never a 500.

The OpenAPI document is the service's own, built from every area's registered operations, so an endpoint
added later is covered without touching this file. Generation is derandomized (the same cases every run).
Each operation gets schemathesis' coverage cases (boundaries, every documented constraint broken, wrong
types, unexpected methods: about 4,800 in all) plus CFE_FUZZ_EXAMPLES generated ones (10 by default, about
500 more; `make fuzz` runs 300). The run fails if it sent fewer than 1,000 in all (tests/support/case_count.py,
which adds up what every xdist worker sent).
"""

from __future__ import annotations

import os
import re
import shutil

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.generation import GenerationMode

from tests.conftest import mint_token
from tests.support.case_count import SENT

EXAMPLES_PER_OPERATION = int(os.environ.get("CFE_FUZZ_EXAMPLES", "10"))

# werkzeug's form parser, refusing a multipart body that ends inside a part (the answer is a documented 422), leaves
# the part it had begun to spool to the garbage collector, which warns of the unclosed file: werkzeug's, not a leak
# of the service's (Flask closes every file a parsed request holds), and common among generated bodies.
pytestmark = pytest.mark.filterwarnings(
    r"ignore:Exception ignored in. <function SpooledTemporaryFile\.__del__:pytest.PytestUnraisableExceptionWarning"
)


def _add_single_company_admin(app) -> str:
    """An admin of company 1 only (so no X-Empresa-Id is needed); returns an access token for them."""
    from sqlalchemy import select

    from portal.service.identity.passwords import hash_password
    from portal.service.platform import db as service_db
    from portal.service.platform.models import Company, Membership, User

    with app.app_context():
        session = service_db.session()
        user = User(email="contrato@demo.uy", name="Contrato", password_hash=hash_password("contrato-password"))
        session.add(user)
        session.flush()
        company = session.scalar(select(Company).where(Company.rut == "219999830019"))
        session.add(Membership(user_id=user.id, company_id=company.id, role="admin"))
        session.commit()
    return mint_token(app, "contrato@demo.uy", lifetime=3600)


@pytest.fixture(scope="module")
def contract_service(service_db_template, tmp_path_factory):
    """The service app, shared by every generated case of the module, and an access token for it.

    The cases reach the app through schemathesis' WSGI transport (its own probes too, such as ignored_auth's
    requests without credentials), not through a socket: the HTTP client and server around each case were a
    fifth of this module's CPU, and what is checked is the app's answer. Each case is a request of its own, with
    no cookie of another."""
    from portal.service import create_app

    target = tmp_path_factory.mktemp("schemathesis") / "service.db"
    shutil.copyfile(service_db_template, target)
    app = create_app({"DATABASE_URL": f"sqlite:///{target}", "TESTING": True, "ISSUER": "http://127.0.0.1"})
    token = _add_single_company_admin(app)
    yield app, token
    app.extensions["db_engine"].dispose()


def _openapi_document() -> dict:
    """The document /api/v1/openapi.json serves, built at collection time (one test item per operation)."""
    from portal.service import area_routes
    from portal.service.platform.openapi import build_document

    area_routes()
    return build_document("http://127.0.0.1")


# Every check runs. A schema-valid request may still break a business rule the schema cannot say (a RUT's
# check digit, a CAE range that does not cover the date, a receipt of another company): 404, 409 and 422
# with the error shape are the right answers to those, so positive-data acceptance counts them as accepted.
# A body over its documented size is refused with 413 (the JSON error shape, documented), which counts as
# rejecting it.
CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {
            "positive_data_acceptance": {"expected-statuses": ["2xx", "401", "403", "404", "409", "422"]},
            "negative_data_rejection": {
                "expected-statuses": [
                    "400",
                    "401",
                    "403",
                    "404",
                    "405",
                    "406",
                    "409",
                    "413",
                    "415",
                    "422",
                    "428",
                    "429",
                    "5xx",
                ]
            },
        }
    }
)
schema = schemathesis.openapi.from_dict(_openapi_document(), config=CONFIG)

# Refusals that the OpenAPI document can state (types, lengths, ranges, patterns, required and unknown fields,
# the characters of a printed text). A request generated as valid for the schema that is refused with one of
# these means the schema is looser than the server: the document does not say what the server accepts.
# (Business rules the schema cannot state, such as a RUT's check digit, are other codes; so is `blank`, a text
# of only spaces, which a pattern could say only at a cost that made generation many times slower.)
SCHEMA_CODES = {
    "missing",
    "extra_forbidden",
    "int_type",
    "int_parsing",
    "int_from_float",
    "bool_type",
    "string_type",
    "string_too_short",
    "string_too_long",
    "string_pattern_mismatch",
    "too_short",
    "too_long",
    "greater_than",
    "greater_than_equal",
    "less_than",
    "less_than_equal",
    "literal_error",
    "enum",
    "control_chars",
    "bidi_control",
    "invisible_char",
    "private_use",
}


# The published pattern names the refused characters of the Basic Multilingual Plane only (xmlchars.text_pattern):
# a refusal of an astral one (U+E0000 and up: tags, private use) is the server's rule alone.
_ASTRAL = re.compile(r"U\+[0-9A-F]{5,6}\b")


@schemathesis.check
def schema_valid_data_is_not_refused_by_a_schema_rule(ctx, response, case):
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE or response.status_code != 422:
        return None
    try:
        fields = response.json()["error"]["fields"]
    except (ValueError, KeyError, TypeError):
        return None
    broken = [f for f in fields if f.get("code") in SCHEMA_CODES and not _ASTRAL.search(f.get("message", ""))]
    assert not broken, f"schema-valid request refused by a rule the schema should state: {broken}"
    return None


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],
)
def test_every_generated_request_gets_a_documented_answer(case, contract_service):
    app, token = contract_service
    SENT.append(case.operation.label)
    # schemathesis' WSGI transport, for the case (its operation's app) and for the checks' own probes (its
    # schema's app: ignored_auth resends without credentials through the schema's transport).
    case.operation.app = case.operation.schema.app = app
    case.call_and_validate(base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"})


def _request_examples(document: dict):
    for path, methods in document["paths"].items():
        for method, entry in methods.items():
            for media, content in entry.get("requestBody", {}).get("content", {}).items():
                examples = [e["value"] for e in content.get("examples", {}).values()]
                if "example" in content:
                    examples.append(content["example"])
                for index, example in enumerate(examples):
                    yield f"{method.upper()} {path} #{index + 1}", method, path, media, example


# Examples that name a record made by an earlier call (a preview's requestId) cannot find it in a fresh
# database: the answer is that record's 404 (a receipt id, a request id): the example is current, the record absent.
_ABSENT_RECORD_CODES = {"solicitud_no_encontrada", "cfe_no_encontrado"}


def test_every_request_example_works_as_it_stands(live_service):
    """The request examples of the OpenAPI document, sent unchanged in document order to a freshly seeded
    service, are accepted: none has gone stale (dates move with today, see openapi.fresh_examples)."""
    token = _add_single_company_admin(live_service.app)
    document = requests.get(f"{live_service.url}/api/v1/openapi.json", timeout=10).json()
    failures, sent = [], 0
    for label, method, path, media, example in _request_examples(document):
        if "{" in path:
            continue  # the path names a record the example cannot know
        headers = {"Authorization": f"Bearer {token}", "Content-Type": media}
        data = example.encode() if isinstance(example, str) else None
        answer = requests.request(
            method,
            live_service.url + path,
            headers=headers,
            data=data,
            json=None if data is not None else example,
            timeout=30,
        )
        sent += 1
        absent = answer.status_code == 404 and answer.json()["error"]["code"] in _ABSENT_RECORD_CODES
        if not (answer.ok or absent):
            failures.append((label, answer.status_code, answer.text[:300]))
    assert sent >= 10 and not failures, failures
