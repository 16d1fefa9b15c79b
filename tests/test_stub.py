"""The stub ``src/broadphase/_core.pyi`` declares exactly what ``broadphase._core`` exports.

Read with ``ast`` (no type checker needed): every public name of the
compiled module is in the stub and every stub name is in the module; each
class's methods and attributes likewise; and where a compiled function or
method carries a ``__text_signature__``, the stub's parameters have the
same names, in the same order, of the same kinds, with defaults on the same
ones.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from broadphase import _core

STUB = Path(_core.__file__).with_name("_core.pyi")
#: Dunders a stub declares when the class has them (the protocols typing sees).
PROTOCOLS = {"__len__", "__contains__", "__iter__", "__getitem__", "__call__", "__bool__"}


def _params(fn: ast.FunctionDef, *, method: bool) -> list[tuple[str, str, bool]]:
    """``(name, kind, has_default)`` of each parameter, as ``inspect`` names kinds."""
    a = fn.args
    positional = [(p, "POSITIONAL_ONLY") for p in a.posonlyargs] + [
        (p, "POSITIONAL_OR_KEYWORD") for p in a.args]
    defaults = [False] * (len(positional) - len(a.defaults)) + [True] * len(a.defaults)
    out = [(p.arg, kind, d) for (p, kind), d in zip(positional, defaults, strict=True)]
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", False))
    kwonly = zip(a.kwonlyargs, a.kw_defaults, strict=True)
    out += [(p.arg, "KEYWORD_ONLY", d is not None) for p, d in kwonly]
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", False))
    return out[1:] if method else out


def _runtime_params(obj) -> list[tuple[str, str, bool]] | None:
    """As :func:`_params`, from the compiled object's text signature (``None``: it has none)."""
    if getattr(obj, "__text_signature__", None) is None:
        return None
    sig = inspect.signature(obj)
    return [(p.name, p.kind.name, p.default is not p.empty) for p in sig.parameters.values()
            if p.name not in ("self", "$self")]


def _stub():
    """``(top-level names, functions, classes)`` of the stub; a class maps each
    member to its ``FunctionDef``, or to ``None`` for an attribute or property."""
    tree = ast.parse(STUB.read_text())
    names, functions, classes = set(), {}, {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
            functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            members = {}
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    is_property = any(isinstance(d, ast.Name) and d.id == "property"
                                      or isinstance(d, ast.Attribute) and d.attr == "setter"
                                      for d in item.decorator_list)
                    if is_property or item.name not in members:
                        members[item.name] = None if is_property else item
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members[item.target.id] = None
            classes[node.name] = members
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if not node.target.id.startswith("_"):
                names.add(node.target.id)
    return names, functions, classes


NAMES, FUNCTIONS, CLASSES = _stub()
RUNTIME = {k for k in vars(_core) if not k.startswith("_")}


def test_the_stub_declares_every_name_of_the_module_and_no_other():
    assert NAMES - RUNTIME == set(), "in the stub, not in the module"
    assert RUNTIME - NAMES == set(), "in the module, not in the stub"
    for name in ("Tree", "TreeStats", "BadRow", "BadHandle", "PairMemory", "TREE_MAX_DEPTH",
                 "TREE_IN_USE", "MAX_DEPTH", "HANDLE_UNKNOWN", "morton_linear_index"):
        assert name in NAMES


def test_the_stub_says_what_each_name_is():
    for name in NAMES:
        obj = getattr(_core, name)
        if name in FUNCTIONS:
            assert callable(obj) and not isinstance(obj, type), name
        elif name in CLASSES:
            assert isinstance(obj, type), name
        else:
            assert not callable(obj), name


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_stub_of_each_function_has_its_parameters(name):
    got = _runtime_params(getattr(_core, name))
    if got is not None:
        assert _params(FUNCTIONS[name], method=False) == got


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_the_stub_of_each_class_has_its_members(name):
    cls, stub = getattr(_core, name), CLASSES[name]
    runtime = {k for k in dir(cls) if not k.startswith("_")}
    runtime |= {k for k in vars(cls) if k in PROTOCOLS}
    public = {k for k in stub if not k.startswith("__") or k in PROTOCOLS}
    assert public - runtime == set(), "in the stub, not in the class"
    assert runtime - public == set(), "in the class, not in the stub"
    for member, fn in stub.items():
        obj = inspect.getattr_static(cls, member)
        if fn is None:  # an attribute: a descriptor of the compiled class, not a method
            assert inspect.isdatadescriptor(obj), member
            continue
        if member == "__new__":
            got = _runtime_params(cls)
        else:
            assert callable(obj), member
            got = _runtime_params(obj)
        if got is not None:
            assert _params(fn, method=True) == got, member


def test_the_checks_see_a_wrong_stub():
    # the comparison itself can fail: a renamed or missing parameter is seen
    wrong = ast.parse("def f(boxes, method, *, circles=None): ...").body[0]
    assert _params(wrong, method=False) != _runtime_params(_core.find_pairs)
    assert _params(ast.parse("def f(ix, iy): ...").body[0], method=False) == _runtime_params(
        _core.morton_encode)
