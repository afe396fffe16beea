"""Shared fixtures: isolated secrets and databases, the service and the portal as apps and as live servers.

Every test gets its own copy of a migrated, seeded service database (copying a file is much faster than
migrating and hashing demo passwords again), and live servers run in threads on port 0 and stop within 10 ms.
Passwords are hashed with argon2's parameters for tests (see _cheap_password_hashing); what else keeps the
suite fast is in docs/PERFORMANCE.md, "The test suite".
"""

from __future__ import annotations

import gc
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.oidc import sign_in_portal_client, start_portal_session
from tests.support.servers import LiveServer

pytest_plugins = ["tests.support.case_count", "tests.support.lazy_schemathesis"]

# Isolate every run from the developer's var/ before any project module reads its settings.
_RUN_DIR = Path(os.environ.get("PYTEST_RUN_DIR", "")) if os.environ.get("PYTEST_RUN_DIR") else None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """`pytest -m serial` (make test's second phase) needs only the modules that mark tests `serial`; importing
    all the others (schemathesis writes its cases at import) was 8 s of that phase. A serial test is marked in
    its own module (`pytestmark` or a decorator), which is what this reads."""
    if config.option.markexpr != "serial" or collection_path.suffix != ".py":
        return None
    if collection_path.name.startswith("test_") and "pytest.mark.serial" not in collection_path.read_text():
        return True
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """`-n N` with xdist's default `load` distribution keeps each costly module on one worker
    (tests/support/scheduling.py)."""
    if config.getoption("dist") != "load":
        return None
    from tests.support.scheduling import ModulesOnOneWorker

    return ModulesOnOneWorker(config, log)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Python's cyclic garbage collector took about a sixth of an integration run's time: every collection of
    the oldest generation walks every module, class and function the suite imported, and the tests allocate
    containers by the million (apps, pages parsed with BeautifulSoup). Those imported objects live for the
    whole run, so they are frozen out of the collector's reach, and the youngest generation is collected after
    100,000 allocations instead of 700: GC time 3.5 -> 1.2 s over 109 portal and API tests, about 15 MB more
    memory (docs/PERFORMANCE.md, "The test suite")."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test marked `serial` some other way (a conftest hook, say) would run in neither phase of make test."""
    for item in items:
        if item.get_closest_marker("serial") and "pytest.mark.serial" not in item.path.read_text():
            raise pytest.UsageError(f"{item.nodeid}: mark serial tests with pytest.mark.serial in their module")


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("run")


@pytest.fixture(scope="session", autouse=True)
def _isolated_environment(run_dir: Path) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ["CFE_VAR_DIR"] = str(run_dir / "var")
    os.environ["CFE_SECRETS_DIR"] = str(run_dir / "secrets")
    os.environ["CFE_WEBHOOKS_ALLOW_PRIVATE"] = "1"  # the tests' webhook receivers listen on 127.0.0.1
    for name in (
        "CFE_DATABASE_URL",
        "PORTAL_DATABASE_URL",
        "CFE_RATELIMIT_STORAGE_URL",
        "CFE_ISSUER_URL",
        "CFE_SERVICE_URL",
        "PORTAL_SESSION_REDIS_URL",
        "CFE_JOBS_URL",
    ):
        os.environ.pop(name, None)
    from portal.devsecrets import ensure_secrets

    ensure_secrets()
    with pytest.MonkeyPatch.context() as patch:
        _cheap_password_hashing(patch)
        _shared_url_builders(patch)
        _shared_rule_parsing(patch)
        _shared_compiled_statements(patch)
        _settings_read_once_per_environment(patch)
        yield
    os.environ.clear()
    os.environ.update(saved)


def _cheap_password_hashing(patch: pytest.MonkeyPatch) -> None:
    """Real argon2id hashes, with argon2's own parameters for tests (argon2.profiles.CHEAPEST): production's
    cost about 0.2 s of CPU per sign-in on purpose, and the suite signs in through the provider hundreds of
    times. The demo users are seeded after this, so their stored hashes are cheap to verify too, also in
    the server processes some tests start."""
    from argon2 import PasswordHasher, profiles

    from portal.service.identity import passwords

    hasher = PasswordHasher.from_parameters(profiles.CHEAPEST)
    patch.setattr(passwords, "_hasher", hasher)
    patch.setattr(passwords, "_DUMMY_HASH", hasher.hash("timing-equaliser"))


def _shared_url_builders(patch: pytest.MonkeyPatch) -> None:
    """werkzeug writes and compiles two Python functions (ast, then compile()) for every URL rule of every app,
    to build its URLs: about 25 ms of CPU per service-and-portal pair, and the suite creates thousands of apps.
    Such a function depends only on the rule's parsed parts and its defaults (it reaches the rule's own
    converters through its `self` argument when called), so rules alike in those share one.
    tests/unit/test_url_builders.py checks every URL of both apps against werkzeug's own, uncached."""
    from werkzeug.routing.rules import Rule

    compile_builder = Rule._compile_builder
    builders: dict[tuple, object] = {}

    def shared_builder(rule: Rule, append_unknown: bool = True):
        defaults = rule.defaults or {}
        if any(is_dynamic and name in defaults for is_dynamic, name in rule._trace):
            return compile_builder(rule, append_unknown)  # a converter turns the default into text: not shared
        try:
            key = (tuple(rule._trace), tuple(sorted(defaults.items())), append_unknown)
            hash(key)
        except TypeError:  # a default that cannot be a key
            return compile_builder(rule, append_unknown)
        if key not in builders:
            builders[key] = compile_builder(rule, append_unknown)
        return builders[key]

    shared_builder.werkzeug_compile_builder = compile_builder
    patch.setattr(Rule, "_compile_builder", shared_builder)


def _shared_rule_parsing(patch: pytest.MonkeyPatch) -> None:
    """werkzeug parses every URL rule of every app anew (`Rule._parse_rule`: the rule's text into the regular
    expressions the matcher walks): with building the rules' URL builders, the most of an app's creation. What
    it yields depends only on the rule's text and on the classes of the map's converters, so rules alike in
    those share it; what parsing leaves on the rule (its trace, its variables) is replayed, and the rule gets
    converters of its own, made by its own map as werkzeug makes them. tests/unit/test_url_builders.py checks
    every rule of both apps against werkzeug's own, uncached parse."""
    from werkzeug.routing.rules import Rule

    parse_rule = Rule._parse_rule
    parsed: dict[tuple, tuple] = {}

    def shared_parse_rule(rule: Rule, text: str):
        key = (text, tuple(rule.map.converters.items()))
        if key not in parsed:
            made: list[tuple] = []
            get_converter = rule.get_converter

            def recording_get_converter(variable, name, args, kwargs):
                made.append((variable, name, args, kwargs))
                return get_converter(variable, name, args, kwargs)

            traced_before = len(rule._trace)
            rule.get_converter = recording_get_converter  # type: ignore[method-assign]
            try:
                parts = list(parse_rule(rule, text))
            finally:
                del rule.get_converter
            parsed[key] = (parts, rule._trace[traced_before:], made)
            return iter(parts)
        parts, trace, made = parsed[key]
        rule._trace.extend(trace)
        for variable, name, args, kwargs in made:
            rule._converters[variable] = rule.get_converter(variable, name, args, kwargs)
            rule.arguments.add(variable)
        return iter(parts)

    shared_parse_rule.werkzeug_parse_rule = parse_rule
    patch.setattr(Rule, "_parse_rule", shared_parse_rule)


class SharedCompiledStatements:
    """One compiled-statement cache for every engine of the process whose dialects are alike.

    SQLAlchemy keeps compiled SQL per Engine, keyed by that engine's dialect object. Production has one engine per
    database and process, so each statement compiles once. The suite builds an engine for every test app, and
    compiling the same statements again for each was 12% of the integration tests' CPU (py-spy). Two dialects of
    the same class, driver module, paramstyle and server version compile a statement to the same SQL and bind
    processing, so the key here names the dialect by those instead of by identity (read when the statement is
    compiled, after the first connection has told the dialect its server version).
    tests/unit/test_shared_compiled_statements.py checks the SQL against the library's own, uncached."""

    def __init__(self, size: int = 5000):
        from sqlalchemy.util import LRUCache

        self.entries = LRUCache(size)

    @staticmethod
    def _key(key: tuple) -> tuple:
        dialect = key[0]
        like = (type(dialect), dialect.dbapi, dialect.paramstyle, dialect.server_version_info)
        return (like, *key[1:])

    def get(self, key: tuple, default=None):
        return self.entries.get(self._key(key), default)

    def __setitem__(self, key: tuple, compiled) -> None:
        self.entries[self._key(key)] = compiled

    def clear(self) -> None:
        self.entries.clear()


def _shared_compiled_statements(patch: pytest.MonkeyPatch) -> None:
    """Every engine uses one SharedCompiledStatements (see its docstring), unless it turned caching off
    (query_cache_size=0). A property rather than a wrapped Engine.__init__: create_engine reads that signature
    to tell the engine's arguments from the pool's and the dialect's."""
    from sqlalchemy.engine.base import Engine

    shared = SharedCompiledStatements()

    def compiled_cache(engine: Engine):
        return shared if engine.__dict__.get("_own_compiled_cache") is not None else None

    def set_compiled_cache(engine: Engine, cache) -> None:
        engine.__dict__["_own_compiled_cache"] = cache

    patch.setattr(Engine, "_compiled_cache", property(compiled_cache, set_compiled_cache), raising=False)


def _settings_read_once_per_environment(patch: pytest.MonkeyPatch) -> None:
    """Each app reads its settings from the environment with pydantic-settings (portal/settings.py): about 6 ms
    of CPU per app, and the suite creates thousands. What `load()` returns depends on the environment and on the
    files its defaults read (the secrets, generated once per run), so for an environment already seen the
    settings read then are given again; a test that changes a variable (monkeypatch.setenv) gets them read
    anew. tests/unit/test_settings_once.py checks this against an uncached read."""
    from portal.settings import AppSettings

    load = AppSettings.load.__func__
    read: dict[tuple, AppSettings] = {}

    def load_once(cls):
        # Without PYTEST_CURRENT_TEST, which pytest sets anew for every test and phase (and no setting reads).
        key = (cls, tuple(sorted(item for item in os.environ.items() if item[0] != "PYTEST_CURRENT_TEST")))
        if key not in read:
            read[key] = load(cls)
        return read[key].model_copy()

    load_once.uncached = load
    load_once.read = read
    patch.setattr(AppSettings, "load", classmethod(load_once))


@pytest.fixture(scope="session")
def service_db_template(run_dir: Path) -> Path:
    """A migrated and seeded service database, copied for each test."""
    from portal.service import create_app
    from portal.service.migrations import upgrade
    from portal.service.seed import seed_demo

    path = run_dir / "service-template.db"
    url = f"sqlite:///{path}"
    upgrade(url)
    app = create_app({"DATABASE_URL": url})
    with app.app_context():
        list(seed_demo())
    app.extensions["db_engine"].dispose()
    return path


@pytest.fixture(scope="session")
def portal_db_template(run_dir: Path) -> Path:
    from portal.web.activity import upgrade

    path = run_dir / "portal-template.db"
    upgrade(f"sqlite:///{path}")
    return path


def _copy_db(template: Path, target: Path) -> str:
    shutil.copyfile(template, target)
    return f"sqlite:///{target}"


@pytest.fixture
def service_config(service_db_template: Path, tmp_path: Path) -> dict:
    # memory://: each test app gets an empty queue of its own; tests run what was enqueued with
    # portal.service.platform.jobs.run_pending() (or start a real worker) when they mean to.
    return {
        "DATABASE_URL": _copy_db(service_db_template, tmp_path / "service.db"),
        "TESTING": True,
        "JOBS_URL": "memory://",
    }


@pytest.fixture
def gunicorn_service(service_config, tmp_path):
    """start(workers=..., threads=..., **environment) runs the service as `make serve` does, under gunicorn with
    deploy/gunicorn.conf.py, on this test's SQLite database; every server started is stopped afterwards."""
    from tests.support.processes import Gunicorn

    servers = []

    def start(*, workers: int = 1, threads: int = 4, **environment: str):
        server = Gunicorn(
            "portal.service:create_app()",
            {"CFE_DATABASE_URL": service_config["DATABASE_URL"], **environment},
            tmp_path / "service.log",
            workers=workers,
            threads=threads,
        )
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def smtp():
    """A real SMTP server on 127.0.0.1 (aiosmtpd) that keeps what it receives; see tests/support/smtp.py."""
    from tests.support.smtp import LocalSmtp, RecordingHandler

    server = LocalSmtp(RecordingHandler())
    server.start()
    yield server
    server.stop()


@pytest.fixture
def service_app(service_config):
    from portal.service import create_app

    app = create_app(service_config)
    yield app
    app.extensions["db_engine"].dispose()


@pytest.fixture
def api_client(service_app):
    """The service's Flask test client."""
    return service_app.test_client()


def mint_token(app, email: str, lifetime: int | None = None, client_id: str = "cli") -> str:
    """A valid access token of `app`'s provider for `email`, minted as the `token` CLI does (or, with the portal's
    client id, as the provider issues it to the portal)."""
    from sqlalchemy import select

    from portal.service.identity.claims import mint_access_token
    from portal.service.platform import db
    from portal.service.platform.models import User

    with app.app_context():
        user = db.session().scalar(select(User).where(User.email == email))
        return mint_access_token(db.session(), user, client_id=client_id, lifetime=lifetime)


@pytest.fixture
def token_for(service_app):
    """token_for(email) -> a valid access token for the in-process service app."""
    return lambda email, lifetime=None: mint_token(service_app, email, lifetime)


@pytest.fixture
def live_token_for(live_service):
    """live_token_for(email) -> a valid access token for the live service."""
    return lambda email, lifetime=None: mint_token(live_service.app, email, lifetime)


@pytest.fixture
def auth_headers(token_for):
    """auth_headers(email, company_id=None) -> headers with a Bearer token (and X-Empresa-Id)."""

    def headers(email: str = "usuario@demo.uy", company_id: int | None = None) -> dict[str, str]:
        result = {"Authorization": f"Bearer {token_for(email)}"}
        if company_id is not None:
            result["X-Empresa-Id"] = str(company_id)
        return result

    return headers


@pytest.fixture
def live_urls():
    """Bound sockets for a service and a portal, so each knows the other's URL before it starts."""
    service, portal = LiveServer(), LiveServer()
    yield service, portal
    for server in (service, portal):
        server.stop()


@pytest.fixture
def live_service(live_urls, service_config):
    """The real service on a real port (contract and browser tests)."""
    from portal.service import create_app
    from portal.service.platform import db as service_db
    from portal.service.seed import sync_portal_client

    service, portal = live_urls
    config = {
        **service_config,
        "ISSUER": service.url,
        "PORTAL_REDIRECT_URIS": [f"{portal.url}/auth/callback"],
        "PORTAL_POST_LOGOUT_URIS": [f"{portal.url}/"],
    }
    app = create_app(config)
    with app.app_context():
        sync_portal_client(service_db.session())
        service_db.session().commit()
    service.start(app)
    yield service
    app.extensions["db_engine"].dispose()


@pytest.fixture
def portal_config(live_urls, live_service, portal_db_template, tmp_path) -> dict:
    return {
        "CFE_SERVICE_URL": live_service.url,
        "OIDC_ISSUER": live_service.url,
        "TESTING": True,
        "PORTAL_DATABASE_URL": _copy_db(portal_db_template, tmp_path / "portal.db"),
        "SESSION_DIR": str(tmp_path / "sessions"),
        "SERVER_NAME": live_urls[1].url.split("//")[1],
    }


@pytest.fixture
def portal_app(portal_config):
    from portal.web import create_app

    return create_app(portal_config)


@pytest.fixture
def live_portal(live_urls, portal_app):
    """The real portal on a real port, talking to the live service (browser tests)."""
    return live_urls[1].start(portal_app)


@pytest.fixture
def portal_client(portal_app):
    """The portal's Flask test client, not signed in."""
    return portal_app.test_client()


@pytest.fixture
def signed_in(portal_app, live_service):
    """signed_in(email) -> a portal test client signed in with a token of the live service's provider, its session
    started by the portal's own code (tests.support.oidc.start_portal_session). Tests about the sign-in itself
    use `signed_in_through_provider`."""

    def sign_in(email: str = "usuario@demo.uy"):
        client = portal_app.test_client()
        token = mint_token(live_service.app, email, client_id=portal_app.config["OIDC_CLIENT_ID"])
        start_portal_session(client, portal_app, token, live_service.app.config["ACCESS_TOKEN_SECONDS"])
        return client

    return sign_in


@pytest.fixture
def signed_in_through_provider(portal_app, live_service):
    """signed_in_through_provider(email) -> a portal test client that went through the real OIDC code flow."""

    def sign_in(email: str = "usuario@demo.uy"):
        client = portal_app.test_client()
        sign_in_portal_client(client, live_service.url, email)
        return client

    return sign_in
