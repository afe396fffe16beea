"""Templates compiled once per language: a constant `_("...")` is written into the compiled template as its
translation, instead of a call per string per render.

A receipt page says some seventy fixed strings; each `_()` was a context call, a catalog found through `g`, a
lookup and a Markup per render (docs/PERFORMANCE.md, target 5). Compiled with the request's catalog, such a call
becomes a constant that Jinja's optimizer joins to the text around it, so a page is fewer, longer pieces.

What it changes is exactly what `i18n.template_gettext` would have answered: `_("text")` becomes the catalog's
text %-formatted with no arguments and marked safe where the template autoescapes (Markup(text) % {}); with
keyword arguments, `_("text %(x)s", x=...)` becomes Markup(text) % {"x": ...} (escaping the arguments) where it
autoescapes, text % {...} where not. A call is folded only when `_`/`gettext` are `template_gettext` in the
environment's globals and the template does not assign either name (a macro that does keeps its calls); a text
that %-formatting refuses keeps its call too, to fail as before. The compiled templates are kept per catalog
(their cache key and their bytecode's carry a digest of it), so a language never sees another's text; templates
compiled outside an application context, or from a string (`from_string`), keep their calls.
"""

from __future__ import annotations

import hashlib
import weakref
from contextvars import ContextVar
from typing import Any, NamedTuple

from babel.support import NullTranslations
from flask import g, has_app_context
from flask.templating import Environment as FlaskEnvironment
from jinja2 import MemcachedBytecodeCache, nodes
from jinja2.visitor import NodeTransformer
from markupsafe import Markup

from portal.web import i18n

_NAMES = ("_", "gettext")


class _Compiling(NamedTuple):
    """The catalog a template is being compiled against, the names folded, and the key that says both."""

    translations: NullTranslations
    names: tuple[str, ...]
    key: str


_COMPILING: ContextVar[_Compiling | None] = ContextVar("portal_compiling_i18n", default=None)
_DIGESTS: weakref.WeakKeyDictionary[NullTranslations, str] = weakref.WeakKeyDictionary()


def catalog_digest(translations: NullTranslations) -> str:
    """What the catalog (and those it falls back on) says, as a digest, once per catalog object."""
    digest = _DIGESTS.get(translations)
    if digest is None:
        chain: list[tuple[str, list[tuple[str, str]]]] = []
        catalog: Any = translations
        while catalog is not None:
            entries = getattr(catalog, "_catalog", {})
            chain.append((type(catalog).__name__, sorted(((repr(k), repr(v)) for k, v in entries.items()))))
            catalog = getattr(catalog, "_fallback", None)
        digest = _DIGESTS.setdefault(translations, hashlib.blake2b(repr(chain).encode(), digest_size=12).hexdigest())
    return digest


class PortalEnvironment(FlaskEnvironment):
    """Flask's Jinja environment, whose templates loaded by name are compiled per catalog (see the module)."""

    def _compiling(self) -> _Compiling | None:
        names = tuple(name for name in _NAMES if self.globals.get(name) is i18n.template_gettext)
        if not names or not has_app_context():
            return None
        # Once per request (a page loads a dozen templates), as the catalog itself (i18n.request_translations).
        known: _Compiling | None = g.get("_portal_compiling")
        if known is None or known.names != names:
            translations = i18n.request_translations()
            known = _Compiling(translations, names, f"{catalog_digest(translations)}:{','.join(names)}")
            g._portal_compiling = known
        return known

    def _load_template(self, name: str, globals: Any) -> Any:
        # Jinja's own (3.1), with the catalog's key in the cache key and set while the loader compiles.
        if self.loader is None:
            raise TypeError("no loader for this environment specified")
        compiling = self._compiling()
        cache_key: Any = (weakref.ref(self.loader), name, compiling.key if compiling else None)
        if self.cache is not None:
            template = self.cache.get(cache_key)
            if template is not None and (not self.auto_reload or template.is_up_to_date):
                if globals:
                    template.globals.update(globals)
                return template
        token = _COMPILING.set(compiling)
        try:
            template = self.loader.load(self, name, self.make_globals(globals))
        finally:
            _COMPILING.reset(token)
        if self.cache is not None:
            self.cache[cache_key] = template
        return template

    def compile(self, source, name=None, filename=None, raw=False, defer_init=False):  # type: ignore[no-untyped-def]
        compiling = _COMPILING.get()
        if compiling is not None and isinstance(source, str):
            source = fold_translations(self.parse(source, name, filename), compiling.translations, compiling.names)
        return super().compile(source, name, filename, raw, defer_init)  # type: ignore[call-overload]


class PerCatalogBytecodeCache(MemcachedBytecodeCache):
    """A bytecode cache whose entries are per catalog too: a template's compiled code holds its language's text."""

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        compiling = _COMPILING.get()
        return super().get_cache_key(name, filename) + (f"|{compiling.key}" if compiling else "")


def _assigns(node: nodes.Node, names: tuple[str, ...]) -> bool:
    """Whether `node` (or anything in it) binds one of `names`: {% set %}, a loop, a macro or its argument, an
    import."""
    candidates = node.find_all((nodes.Name, nodes.FromImport, nodes.Import, nodes.Macro))
    for found in [node, *candidates] if isinstance(node, nodes.Macro) else candidates:
        if isinstance(found, nodes.Name) and found.ctx in ("store", "param") and found.name in names:
            return True
        if isinstance(found, nodes.Macro) and found.name in names:
            return True
        if isinstance(found, nodes.Import) and found.target in names:
            return True
        if isinstance(found, nodes.FromImport):
            for imported in found.names:
                if (imported[1] if isinstance(imported, tuple) else imported) in names:
                    return True
    return False


class _Folder(NodeTransformer):
    def __init__(self, translations: NullTranslations, names: tuple[str, ...]):
        self.translations = translations
        self.names = names

    def visit_Macro(self, node: nodes.Macro) -> nodes.Node:  # noqa: N802 - Jinja's visitor names
        # A macro that binds `_` (the discard idiom `{% set _ = d.update(...) %}`) calls its own `_` in its body.
        return node if _assigns(node, self.names) else self.generic_visit(node)

    visit_CallBlock = visit_Macro  # noqa: N815 - Jinja's visitor names

    def visit_Call(self, call: nodes.Call) -> nodes.Node:  # noqa: N802 - Jinja's visitor names
        node = self.generic_visit(call)
        if not (
            isinstance(node, nodes.Call)
            and isinstance(node.node, nodes.Name)
            and node.node.ctx == "load"
            and node.node.name in self.names
            and len(node.args) == 1
            and isinstance(node.args[0], nodes.Const)
            and isinstance(node.args[0].value, str)
            and node.dyn_args is None
            and node.dyn_kwargs is None
        ):
            return node
        text = self.translations.ugettext(node.args[0].value)
        lineno = node.lineno
        if node.kwargs:
            variables = nodes.Dict(
                [nodes.Pair(nodes.Const(k.key, lineno=lineno), k.value, lineno=lineno) for k in node.kwargs],
                lineno=lineno,
            )
            marked = nodes.MarkSafeIfAutoescape(nodes.Const(text, lineno=lineno), lineno=lineno)
            return nodes.Mod(marked, variables, lineno=lineno)
        try:
            formatted, escaped = text % {}, Markup(text) % {}  # noqa: S704 - the catalog's text, as template_gettext
        except (TypeError, ValueError, KeyError):
            return node  # fails at render, as it did
        if str(escaped) != formatted:
            return node
        return nodes.MarkSafeIfAutoescape(nodes.Const(formatted, lineno=lineno), lineno=lineno)


def fold_translations(tree: nodes.Template, translations: NullTranslations, names: tuple[str, ...]) -> nodes.Template:
    """`tree` with its constant `_()`/`gettext()` calls written as `translations` answers them."""
    outside_macros = nodes.Template(
        [n for n in tree.body if not isinstance(n, nodes.Macro | nodes.CallBlock)], lineno=tree.lineno
    )
    if _assigns(outside_macros, names) or any(macro.name in names for macro in tree.find_all(nodes.Macro)):
        return tree  # the template itself (or a block of it) binds `_`: its calls stay calls
    folded = _Folder(translations, names).visit(tree)
    folded.set_environment(tree.environment)  # type: ignore[attr-defined]
    return folded
