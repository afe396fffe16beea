# The two commands of the README: `make run` and `make test`. Each installs what is missing first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SERVICE_PORT ?= 8000
PORTAL_PORT ?= 5000
# Debian packages: xmlsec1 (independent signature checks), poppler-utils (PDF text in tests), fonts for
# the receipts' PDFs (DejaVu Sans; Droid Sans Fallback for Chinese, Japanese and Korean), redis-server
# (several-process rate limits), postgresql (the PostgreSQL suite), dovecot-imapd (the exchange mailbox tests:
# a real IMAP server started per test with its own config), chromium-headless-shell (browser tests; Debian's
# chromium, headless only, see tests/browser/conftest.py).
RUNTIME_DEBS := fonts-dejavu-core fonts-droid-fallback
TEST_DEBS := $(RUNTIME_DEBS) chromium-headless-shell xmlsec1 poppler-utils redis-server postgresql dovecot-imapd
TRANSLATION_DIRS := $(wildcard portal/web/translations portal/web/*/translations) portal/service/translations
# Python's bytecode cache on, whatever the environment says: without it every process (each pytest worker, each
# server a test starts) compiles the code base again and pytest rewrites every test module's asserts anew,
# 11 s of CPU per worker at collection alone. The caches are __pycache__ folders, ignored by git.
unexport PYTHONDONTWRITEBYTECODE
# The tests' files (each test's copy of the databases, the servers' logs, the browsers' profiles) in memory when
# /dev/shm has room for them (4 GB free; pyproject.toml keeps only a failed test's files): every commit of a
# test's SQLite database waits for the disk's flush otherwise, little on a quiet disk and much on a busy one (a
# sample of integration tests: 98 s against 46 s while another suite used the disk). The tests never depend on
# the disk (a kill -9 kills processes, not the machine); production's settings (synchronous=FULL) are unchanged.
TEST_TMPDIR := $(or $(shell df --output=avail -k /dev/shm 2>/dev/null | awk 'NR == 2 && $$1 > 4000000 {print "/dev/shm"}'),$(or $(TMPDIR),/tmp))

.PHONY: run serve test test-fast typecheck format fuzz setup python-deps lock assets translations service-messages lint clean

run: setup
	@scripts/debian-packages.sh $(RUNTIME_DEBS)
	$(BIN)/python -m portal.devserver --service-port $(SERVICE_PORT) --portal-port $(PORTAL_PORT)

# Production: migrations, then the service and the portal under gunicorn with deploy/*.conf.py (no demo data;
# secrets and URLs from the environment). Put deploy/nginx.conf (or similar) in front.
serve: setup
	@scripts/debian-packages.sh $(RUNTIME_DEBS)
	$(BIN)/python -m portal.serve

test: setup
	@scripts/debian-packages.sh $(TEST_DEBS)
	$(BIN)/python -m portal.devsecrets
	# While the linters and mypy run on one core, one collection of the tests on the other writes Python's
	# bytecode cache and pytest's rewritten test modules: on a fresh checkout each of the three workers below
	# would otherwise write them all again at once (11.6 s of CPU each instead of 4.2).
	@$(BIN)/python -m pytest --collect-only -q > /dev/null 2>&1 & collecting=$$!; \
	  echo "ruff, ruff format --check, scripts/typecheck.py"; \
	  $(BIN)/ruff check portal tests bench scripts && $(BIN)/ruff format --check portal tests bench scripts \
	    && $(BIN)/python scripts/typecheck.py; checked=$$?; wait $$collecting; exit $$checked
	# Three workers on the two cores (the tests wait on browsers and servers often enough that two left a third of
	# the machine idle: 347 s with two, 295 s with three), handed tests two at a time: xdist's default first hands
	# each worker a quarter of its share in collection order, and the one that got every browser test ran 66 s after
	# the others had finished (docs/PERFORMANCE.md). Then, alone, the few tests whose bounds are latencies or times
	# (marked `serial`), so other workers cannot make them fail; a kill -9 test whose assertions are only about
	# what was lost or done twice runs with the others (docs/PERFORMANCE.md, "The test suite").
# A module that starts servers in a module fixture goes to one worker whole (tests/support/scheduling.py).
	TMPDIR=$(TEST_TMPDIR) $(BIN)/python -m pytest -n 3 --maxschedchunk 2 -m "not serial" $(PYTEST_ARGS)
	TMPDIR=$(TEST_TMPDIR) $(BIN)/python -m pytest -m serial $(PYTEST_ARGS)

# The unit tests alone (no server, no browser, no database server): the quick loop while changing code.
test-fast: python-deps translations
	$(BIN)/python -m pytest tests/unit -q $(PYTEST_ARGS)

# mypy with the pydantic plugin over portal/: portal.domain and portal.client strict, the rest held to
# mypy-baseline.txt, which may shrink and never grow (scripts/typecheck.py). Incremental: var/mypy-cache.
typecheck: python-deps
	$(BIN)/python scripts/typecheck.py

# Rewrites the code in the house style: ruff's formatter, then its fixable lint rules (imports sorted, ...).
format: python-deps
	$(BIN)/ruff format portal tests bench scripts
	$(BIN)/ruff check --fix portal tests bench scripts

# A longer schemathesis run than `make test`'s: 300 generated requests per operation besides the coverage
# cases (about 20,000 in all, some minutes). Worth running after changing an endpoint or the OpenAPI document.
fuzz: setup
	CFE_FUZZ_EXAMPLES=300 $(BIN)/python -m pytest -n 3 tests/contract/test_schemathesis.py $(PYTEST_ARGS)

setup: python-deps assets translations

python-deps: $(VENV)/.installed

# Exactly the versions in requirements.lock, each checked against its hash, so a fresh machine (CI) runs what the
# suite last passed with, not whatever was released since; then this project itself, editable, without resolving.
$(VENV)/.installed: pyproject.toml requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@# A runtime dependency added to pyproject.toml but not yet to the lock fails here, not at import: `make lock`.
	$(BIN)/python -m pip check
	@touch $@

# requirements.lock from pyproject.toml (runtime, test and postgres extras) with pip-tools, in a venv of its own.
# Existing pins are kept unless pyproject.toml no longer admits them; `make lock LOCK_ARGS=--upgrade` takes the newest
# releases (then run `make test`). Run it after changing a dependency in pyproject.toml.
LOCK_TOOLS := var/lock-tools
lock:
	@test -x $(LOCK_TOOLS)/bin/pip-compile || ($(PYTHON) -m venv $(LOCK_TOOLS) && $(LOCK_TOOLS)/bin/pip install --quiet pip-tools==7.6.2)
	CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_TOOLS)/bin/pip-compile --quiet --extra test --extra postgres \
		--generate-hashes --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links $(LOCK_ARGS) \
		-o requirements.lock pyproject.toml

assets: static/vendor/.installed

static/vendor/.installed: package.json package-lock.json scripts/vendor-assets.sh
	npm ci --no-audit --no-fund --ignore-scripts
	scripts/vendor-assets.sh
	@touch $@

# --use-fuzzy: the service catalogue has no header (service-messages omits it), and Babel counts a catalogue
# without one as fuzzy and skipped it, leaving a stale .mo. No entry is fuzzy (--no-fuzzy-matching).
translations: python-deps
	@for dir in $(TRANSLATION_DIRS); do $(BIN)/pybabel compile --use-fuzzy --statistics -d $$dir >/dev/null || exit 1; done

# The service's one message catalogue: extract the `_()` messages of portal/service and merge them into the
# English catalogue (translate what comes out empty; tests/unit/test_service_messages.py checks none is left).
service-messages: python-deps
	$(BIN)/pybabel extract -F babel-service.cfg --no-default-keywords -k _ --no-location --omit-header \
		--sort-output -o portal/service/translations/messages.pot .
	$(BIN)/pybabel update -i portal/service/translations/messages.pot -d portal/service/translations \
		--omit-header --no-fuzzy-matching -w 116

lint: python-deps
	$(BIN)/ruff check portal tests bench scripts
	$(BIN)/ruff format --check portal tests bench scripts

clean:
	rm -rf $(VENV) node_modules static/vendor var
