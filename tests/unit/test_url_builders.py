"""The suite shares werkzeug's URL builder functions and its parsed rules between apps (tests/conftest.py,
_shared_url_builders, _shared_rule_parsing): every URL of the service and of the portal comes out exactly as
werkzeug's own, uncached builders make it, and every rule matches as werkzeug's own parse makes it match."""

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


def _parsed_uncached(rule: Rule) -> tuple:
    """What werkzeug's own parse of `rule` yields and leaves on a fresh rule of the same map."""
    fresh = Rule(rule.rule, endpoint=rule.endpoint, methods=rule.methods)
    fresh.map = rule.map
    fresh._trace, fresh._converters = [], {}
    parts = list(Rule._parse_rule.werkzeug_parse_rule(fresh, rule.rule))
    return parts, fresh._trace, fresh._converters, fresh.arguments


def test_every_rule_of_both_apps_is_parsed_as_werkzeug_parses_it(service_app, portal_app):
    checked = 0
    for app in (service_app, portal_app):
        for rule in app.url_map.iter_rules():
            parts, trace, converters, arguments = _parsed_uncached(rule)
            assert rule._parts[1:] == parts, rule.rule  # the first part is the (empty) subdomain's
            assert rule._trace[1:] == trace, rule.rule
            assert rule.arguments == arguments, rule.rule
            assert {name: (type(c), vars(c)) for name, c in rule._converters.items()} == {
                name: (type(c), vars(c)) for name, c in converters.items()
            }, rule.rule
            assert all(c.map is app.url_map for c in rule._converters.values()), rule.rule
            checked += 1
    assert checked > 100


def test_every_path_matches_as_in_an_app_werkzeug_parsed_alone(portal_app, portal_config, monkeypatch):
    from portal.web import create_app

    monkeypatch.setattr(Rule, "_parse_rule", Rule._parse_rule.werkzeug_parse_rule)
    monkeypatch.setattr(Rule, "_compile_builder", Rule._compile_builder.werkzeug_compile_builder)
    other = create_app(portal_config)
    for rule in portal_app.url_map.iter_rules():
        values = {name: "abc" if value == "a b/ñ?" else value for name, value in _values(rule).items()}
        path = rule._build(**values)[1]
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            adapter, other_adapter = portal_app.url_map.bind("x"), other.url_map.bind("x")
            assert adapter.match(path, method) == other_adapter.match(path, method), (rule.rule, method)
