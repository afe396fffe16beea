"""Imports of the project's own modules sit at the top of each module: a function-level import would hide
an import cycle (fix the cycle instead: move the shared piece down a layer, or pass a callback). The few
deliberate lazy loads of heavy optional modules are listed here with their reason."""

from __future__ import annotations

import ast

from portal import paths

PORTAL = paths.PROJECT_ROOT / "portal"
DELIBERATE_LAZY_LOADS = {
    ("portal/service/envios/receptions.py", "portal.service.envios.soap_reception"): (
        "zeep and DGI's WSDL load only where the real ws_efactura is used"
    ),
}


def _function_level_imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if in_function and isinstance(child, ast.ImportFrom) and (child.module or "").startswith("portal"):
                found.append((child.lineno, child.module))
            elif in_function and isinstance(child, ast.Import):
                found.extend((child.lineno, a.name) for a in child.names if a.name.startswith("portal"))
            visit(child, inside)

    visit(tree, False)
    return found


def test_the_projects_modules_are_imported_at_the_top():
    hidden = []
    for path in sorted(PORTAL.rglob("*.py")):
        relative = path.relative_to(paths.PROJECT_ROOT).as_posix()
        for line, module in _function_level_imports(ast.parse(path.read_text(), filename=relative)):
            if (relative, module) not in DELIBERATE_LAZY_LOADS:
                hidden.append(f"{relative}:{line} imports {module} inside a function")
    assert hidden == []


def test_the_scan_sees_a_function_level_import():
    tree = ast.parse("def view():\n    if True:\n        from portal.web import backend\n")
    assert _function_level_imports(tree) == [(3, "portal.web")]


def test_every_allowed_lazy_load_still_exists():
    for relative, module in DELIBERATE_LAZY_LOADS:
        tree = ast.parse((paths.PROJECT_ROOT / relative).read_text())
        assert module in {m for _, m in _function_level_imports(tree)}, relative
