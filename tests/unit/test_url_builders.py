"""The suite shares werkzeug's URL builder functions between apps (tests/conftest.py, _shared_url_builders):
every URL of the service and of the portal comes out exactly as werkzeug's own, uncached builders make it."""

from __future__ import annotations

import uuid

from werkzeug.routing.converters import AnyConverter, IntegerConverter, UUIDConverter
from werkzeug.routing.rules import Rule


def _values(rule: Rule) -> dict:
    values = {}
    for name in rule.arguments:
        converter = rule._converters.get(name)
        if isinstance(converter, IntegerConverter):
            values[name] = 7
        elif isinstance(converter, UUIDConverter):
            values[name] = uuid.UUID(int=7)
        elif isinstance(converter, AnyConverter):  # <any(csv, xlsx):formato> builds only its own words
            values[name] = min(converter.items)
        else:
            values[name] = "a b/ñ?"
    return values


def _uncached(rule: Rule, append_unknown: bool):
    return Rule._compile_builder.werkzeug_compile_builder(rule, append_unknown).__get__(rule, None)


def test_every_url_of_both_apps_is_built_as_werkzeug_builds_it(service_app, portal_app):
    checked = 0
    for app in (service_app, portal_app):
        for rule in app.url_map.iter_rules():
            values = _values(rule)
            assert rule._build(**values) == _uncached(rule, False)(**values), rule.rule
            extra = {**values, "página": "2 y 3", "orden": ["a", "b"]}
            assert rule._build_unknown(**extra) == _uncached(rule, True)(**extra), rule.rule
            checked += 1
    assert checked > 100


def test_apps_share_the_builder_of_a_rule(service_app):
    from portal.service import create_app

    other = create_app(service_app.config)
    try:
        first = {rule.rule: rule._build_unknown.__func__ for rule in service_app.url_map.iter_rules()}
        again = {rule.rule: rule._build_unknown.__func__ for rule in other.url_map.iter_rules()}
        assert first and all(again[path] is builder for path, builder in first.items())
    finally:
        other.extensions["db_engine"].dispose()
