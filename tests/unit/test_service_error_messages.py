"""Every error the service answers a person with says its message from the one catalogue (platform/i18n.py): the
message an error class is given is a `_()` call (or a value that already is one), never a plain Spanish literal
or an f-string, which an English client would get in Spanish.

The guard reads the service's source with `ast`: the error classes are the API's (`platform.errors.ApiError` and
its subclasses), the CFE engine's (`cfe.errors.CfeError`'s), the DGI lookups' (`dgi.errors.DgiError`'s), DGI
reception's (`envios.adapter.DgiReceptionError`'s, whose message an envelope's error and DGI's outage record keep),
ws_consultas' (`envios.consultas.DirectoryUnavailable`, kept the same way) and the exchange's refusals of a document
(`intercambio.answers.AnswerRejected`, `recibidos.annulments.NoticeRefused`), each subclass found wherever it is
declared, and both `FieldError`s. For each call of one of them (and each
`super().__init__` inside one), the argument bound to the parameter `message` must not be a str literal, an
f-string, a concatenation or a `.format` of one; neither may the parameter's default.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "portal/service"
ROOTS = {
    "ApiError",
    "CfeError",
    "DgiError",
    "DgiReceptionError",
    "DirectoryUnavailable",
    "AnswerRejected",
    "NoticeRefused",
}
DATACLASSES = {"FieldError"}  # (field, code, message), in platform.errors and cfe.errors alike

# file (relative to portal/service) and class called -> why a plain text is right there. Keep it short.
ALLOWED: dict[tuple[str, str], str] = {
    # The generated XML breaking DGI's XSD is our defect, answered as a 500 with the support code, never shown;
    # its text is for the log.
    ("cfe/errors.py", "CfeError"): "CfeSchemaError's message is for the log (a 500), not for a person",
}


@dataclass(frozen=True)
class Found:
    where: str
    called: str
    text: str

    def __str__(self) -> str:
        return f"{self.where}: {self.called}({self.text})"


def _modules() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(SERVICE)): ast.parse(path.read_text(encoding="utf-8"), str(path))
        for path in sorted(SERVICE.rglob("*.py"))
        if "migrations" not in path.parts
    }


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _classes(modules: dict[str, ast.Module]) -> dict[str, ast.ClassDef]:
    """The guarded classes by name: the roots, every class that derives from one (transitively), FieldError."""
    declared = [node for tree in modules.values() for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    guarded: dict[str, ast.ClassDef] = {c.name: c for c in declared if c.name in ROOTS | DATACLASSES}
    grew = True
    while grew:
        grew = False
        for cls in declared:
            if cls.name not in guarded and any(_name(b) in guarded for b in cls.bases):
                guarded[cls.name], grew = cls, True
    return guarded


def _parameters(cls: ast.ClassDef, guarded: dict[str, ast.ClassDef]) -> ast.arguments | list[str]:
    """The class's constructor parameters (without self), its own or the nearest guarded base's; a dataclass's
    fields in order."""
    for item in cls.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            return item.args
    if cls.name in DATACLASSES:
        return [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    for base in cls.bases:
        if (name := _name(base)) in guarded:
            return _parameters(guarded[name], guarded)
    return ["message"]  # a root with Exception's constructor: the message comes first


def _message_argument(call: ast.Call, parameters: ast.arguments | list[str]) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == "message":
            return keyword.value
    if isinstance(parameters, list):
        names = parameters
    else:
        names = [a.arg for a in parameters.posonlyargs + parameters.args][1:]  # without self
    if "message" in names and (at := names.index("message")) < len(call.args):
        return call.args[at]
    return None


def _plain(node: ast.expr | None) -> bool:
    """A text that cannot be a catalogue message: a str literal, an f-string, or one joined or formatted."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _plain(node.left) or _plain(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _plain(node.func.value)
    return False


def plain_messages() -> list[Found]:
    modules = _modules()
    guarded = _classes(modules)
    found: list[Found] = []
    for module, tree in modules.items():
        for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name in guarded]:
            for init in [f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"]:
                parameters = init.args.posonlyargs + init.args.args
                defaults = dict(
                    zip(parameters[len(parameters) - len(init.args.defaults) :], init.args.defaults, strict=True)
                )
                defaults |= {
                    a: d for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults, strict=True) if d is not None
                }
                for parameter, default in defaults.items():
                    if parameter.arg == "message" and _plain(default):
                        found.append(Found(f"{module}:{default.lineno}", cls.name, "message=" + ast.unparse(default)))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            called = _name(node.func)
            if called == "__init__" and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call):
                called = _enclosing_base(tree, node, guarded)  # super().__init__(...) inside a guarded class
            if called not in guarded or (module, called) in ALLOWED:
                continue
            argument = _message_argument(node, _parameters(guarded[called], guarded))
            if _plain(argument):
                found.append(Found(f"{module}:{node.lineno}", called, ast.unparse(argument)))
    return found


def _enclosing_base(tree: ast.Module, call: ast.Call, guarded: dict[str, ast.ClassDef]) -> str | None:
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef) and cls.name in guarded and any(n is call for n in ast.walk(cls)):
            return next((name for b in cls.bases if (name := _name(b)) in guarded), None)
    return None


def test_the_guard_knows_the_error_classes_and_their_message_parameter():
    guarded = _classes(_modules())
    assert {"ApiError", "NotFound", "Conflict", "ValidationFailed", "DatabaseBusy", "FieldError"} <= guarded.keys()
    assert {"XmlInputError", "XmlIntakeBusy", "CaeError", "DgiUnavailable", "DgiInvalidInput"} <= guarded.keys()
    assert {"DgiTransientError", "DgiPermanentError", "DirectoryUnavailable", "AnswerRejected"} <= guarded.keys()
    call = ast.parse('NoticeRefused(f"Texto {x}.")').body[0].value  # type: ignore[attr-defined]
    assert _plain(_message_argument(call, _parameters(guarded["NoticeRefused"], guarded)))
    call = ast.parse('ValidationFailed([], "Texto.")').body[0].value  # type: ignore[attr-defined]
    parameters = _parameters(guarded["ValidationFailed"], guarded)
    assert _plain(_message_argument(call, parameters))
    call = ast.parse('FieldError("campo", "codigo", f"Texto {x}.")').body[0].value  # type: ignore[attr-defined]
    parameters = _parameters(guarded["FieldError"], guarded)
    assert _plain(_message_argument(call, parameters))
    assert not _plain(ast.parse('_("Texto {x}.", x=x)').body[0].value)  # type: ignore[attr-defined]


def test_every_error_message_is_a_catalogue_message():
    assert [str(f) for f in plain_messages()] == []
