"""How the project's modules import each other: at the top of each module (a function-level import would hide
an import cycle: fix the cycle instead, by moving the shared piece down a layer or passing a callback); no cycle
between modules, relative imports and imports inside functions included; no private name (`_x`) imported from
another package; and no pair of areas importing each other. The few deliberate lazy loads of heavy optional
modules are listed here with their reason."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from portal import paths

PORTAL = paths.PROJECT_ROOT / "portal"
DELIBERATE_LAZY_LOADS = {
    ("portal/service/envios/receptions.py", "portal.service.envios.soap_reception"): (
        "zeep and DGI's WSDL load only where the real ws_efactura is used"
    ),
    ("portal/service/dgi/factory.py", "portal.service.dgi.soap"): (
        "zeep and DGI's WSDL load only where the real registry (DGI_BACKEND=soap) is used"
    ),
}
# No two areas import each other: an area stands on those below it (most on comprobante, the core, whose tables
# they read) and never the other way. What a lower area needs from a higher one it gets through a registry the
# higher one fills from its `wiring.init_app` (comprobante.hooks: company settings, what follows an issue, the
# sections of a receipt's answer), or the shared piece moves down a layer (a platform module, portal.domain, a
# module of the lower area such as comprobante.amounts or comprobante.tracking_schemas).
KNOWN_TWO_WAY_AREAS: dict[tuple[str, str], str] = {}
# The service's platform (portal.service.platform: db, api, auth, errors, jobs, ...) stands below the areas and imports
# none of them; the CFE engine (portal.service.cfe) is a library below both. Today's exceptions, to shrink:
KNOWN_PLATFORM_TO_AREA = {
    ("portal.service.platform.auth", "portal.service.identity"): "the per-request token check reads the provider's "
    "revocation list (identity.revocation.revoked_clause)",
}
ENGINE = "portal.service.cfe"
# Where the platform's modules live: not an area.
PLATFORM_PACKAGE = "portal.service.platform"
# Above the areas, not below: the command line, the demo seed (each walks the areas), and the migrations.
APP_LEVEL = {"portal.service.__main__", "portal.service.seed", "portal.service.migrations"}


@dataclass(frozen=True)
class Import:
    line: int
    module: str  # the module imported, or the module a name is imported from
    names: tuple[str, ...]  # the names of `from module import a, b` (empty for `import module`)
    in_function: bool


@dataclass(frozen=True)
class Module:
    name: str
    relative: str  # the file, from the project's root
    is_package: bool

    @property
    def package(self) -> str:
        return self.name if self.is_package else self.name.rpartition(".")[0]


def _type_checking_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Name | ast.Attribute) and ast.unparse(test).endswith("TYPE_CHECKING")


def imports_of(tree: ast.AST, module: Module | None = None) -> list[Import]:
    """Every import of the project's modules in `tree`, relative ones made absolute (for `module`), those inside
    functions marked; what sits under `if TYPE_CHECKING:` is left out (annotations only, never run)."""
    found: list[Import] = []

    def absolute(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        base = (module.package if module else "").split(".")
        base = base[: len(base) - (node.level - 1)]
        return ".".join([*base, *([node.module] if node.module else [])])

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking_only(child):
                continue
            inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.ImportFrom) and absolute(child).startswith("portal"):
                names = tuple(a.name for a in child.names)
                found.append(Import(child.lineno, absolute(child), names, in_function))
            elif isinstance(child, ast.Import):
                found.extend(
                    Import(child.lineno, a.name, (), in_function) for a in child.names if a.name.startswith("portal")
                )
            visit(child, inside)

    visit(tree, False)
    return found


def _function_level_imports(tree: ast.AST, module: Module | None = None) -> list[tuple[int, str]]:
    return [(i.line, i.module) for i in imports_of(tree, module) if i.in_function]


@cache
def project_modules() -> dict[str, Module]:
    modules = {}
    for path in sorted(PORTAL.rglob("*.py")):
        relative = path.relative_to(paths.PROJECT_ROOT)
        parts = list(relative.with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        modules[name] = Module(name, relative.as_posix(), is_package)
    return modules


@cache
def _tree(relative: str) -> ast.AST:
    return ast.parse((paths.PROJECT_ROOT / relative).read_text(), filename=relative)


def edges() -> Iterator[tuple[Module, Import, str]]:
    """(importer, import, the project module it reaches) for every import: `from package import module` reaches
    the module, `from module import name` the module."""
    modules = project_modules()
    for module in modules.values():
        for found in imports_of(_tree(module.relative), module):
            targets = [f"{found.module}.{n}" for n in found.names if f"{found.module}.{n}" in modules]
            if len(targets) < len(found.names) or not found.names:
                targets.append(found.module)
            for target in targets:
                if target in modules and target != module.name:
                    yield module, found, target


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(groups)


def _area(name: str) -> str | None:
    """portal.service.<area> or portal.web.<area> for a module inside an area package; None otherwise."""
    parts = name.split(".")
    if len(parts) >= 3 and parts[1] in ("service", "web"):
        package = ".".join(parts[:3])
        if package == PLATFORM_PACKAGE:
            return None
        found = project_modules().get(package)
        if found is not None and found.is_package:
            return package
    return None


def test_the_projects_modules_are_imported_at_the_top():
    hidden = []
    for module in project_modules().values():
        for line, imported in _function_level_imports(_tree(module.relative), module):
            if (module.relative, imported) not in DELIBERATE_LAZY_LOADS:
                hidden.append(f"{module.relative}:{line} imports {imported} inside a function")
    assert hidden == []


def test_no_two_modules_import_each_other_even_through_others():
    graph: dict[str, set[str]] = {}
    for module, _found, target in edges():
        graph.setdefault(module.name, set()).add(target)
    assert cycles(graph) == []


def test_no_private_name_is_imported_from_another_package():
    modules = project_modules()
    private = []
    for module, found, target in edges():
        owner = modules[target]
        # `_` is gettext's marker (portal.service.platform.i18n._), public by convention, not a private name.
        names = [n for n in found.names if n.startswith("_") and not n.startswith("__") and n != "_"]
        reached_module = target != found.module  # `from package import _module`
        if reached_module and owner.name.rpartition(".")[2].startswith("_") and owner.package != module.package:
            private.append(f"{module.relative}:{found.line} imports the private module {owner.name}")
        elif not reached_module and names and owner.package != module.package:
            private.append(f"{module.relative}:{found.line} imports {', '.join(names)} from {owner.name}")
    assert private == []


def test_no_new_pair_of_areas_imports_each_other():
    arrows = {
        (_area(module.name), _area(target))
        for module, _found, target in edges()
        if _area(module.name) and _area(target) and _area(module.name) != _area(target)
    }
    both_ways = {tuple(sorted(pair)) for pair in arrows if pair[::-1] in arrows}
    assert sorted(both_ways - set(KNOWN_TWO_WAY_AREAS)) == [], "a new pair of areas importing each other"
    assert sorted(set(KNOWN_TWO_WAY_AREAS) - both_ways) == [], "fixed: take it off KNOWN_TWO_WAY_AREAS"


def test_the_service_keeps_its_platform_in_one_package():
    """Beside the areas sit only the app factory, the command line and the demo seed; the rest is platform/."""
    loose = {
        name
        for name, module in project_modules().items()
        if name.startswith("portal.service.") and name.count(".") == 2 and not module.is_package
    }
    assert loose <= {"portal.service.__main__", "portal.service.seed"}, sorted(loose - APP_LEVEL)


def test_the_platform_imports_no_area():
    modules = project_modules()
    platform = {
        name
        for name, module in modules.items()
        if (name.startswith("portal.service.") and name.count(".") == 2 and not module.is_package)
        or name.startswith(PLATFORM_PACKAGE + ".")
    } - APP_LEVEL
    arrows = {
        (module.name, _area(target))
        for module, _found, target in edges()
        if module.name in platform and _area(target) and _area(target) not in (ENGINE, *APP_LEVEL)
    }
    assert sorted(arrows - set(KNOWN_PLATFORM_TO_AREA)) == [], "the platform must not import an area"
    assert sorted(set(KNOWN_PLATFORM_TO_AREA) - arrows) == [], "fixed: take it off KNOWN_PLATFORM_TO_AREA"


def test_the_scan_sees_a_function_level_import():
    tree = ast.parse("def view():\n    if True:\n        from portal.web import backend\n")
    assert _function_level_imports(tree) == [(3, "portal.web")]


def test_the_scan_reads_relative_imports_inside_functions_and_skips_type_checking_blocks():
    module = Module("portal.service.dgi.registry", "portal/service/dgi/registry.py", False)
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "from .errors import DgiError\n"
        "if TYPE_CHECKING:\n"
        "    from .soap import SoapRegistry\n"
        "def make():\n"
        "    from .sandbox import SandboxRegistry\n"
        "    from .. import db\n"
    )
    assert [(i.line, i.module, i.in_function) for i in imports_of(tree, module)] == [
        (2, "portal.service.dgi.errors", False),
        (6, "portal.service.dgi.sandbox", True),
        (7, "portal.service", True),
    ]


def test_the_cycle_finder_finds_a_cycle_through_a_third_module():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_every_allowed_lazy_load_still_exists():
    modules = {m.relative: m for m in project_modules().values()}
    for relative, imported in DELIBERATE_LAZY_LOADS:
        found = _function_level_imports(_tree(relative), modules[relative])
        assert imported in {m for _, m in found}, relative


def test_project_modules_are_found_by_file():
    assert Path(project_modules()["portal.service.dgi"].relative).name == "__init__.py"
