"""The type stubs (sluice/*.pyi) against the runtime modules: every public
name, class member and parameter has a stub entry, every stub entry exists,
and every public callable has a docstring, so the stubs and the help()
texts can't silently fall behind the code."""

import ast
import dataclasses
import importlib
import inspect
import os
import types

import pytest

import sluice

PACKAGE = os.path.dirname(sluice.__file__)
# Each public module and its stub.
MODULES = {"sluice": "__init__.pyi", "sluice.fn": "fn.pyi", "sluice.profiler": "profiler.pyi", "sluice.torch": "torch.pyi"}
# Dunders a type checker needs to know about when a class defines them.
PROTOCOL_DUNDERS = {"__init__", "__iter__", "__next__", "__len__", "__enter__", "__exit__"}


class Stub:
    """One .pyi file: its top-level entries, and the members of its classes
    (with those of their bases from the stubs)."""

    def __init__(self, filename):
        with open(os.path.join(PACKAGE, filename), encoding="utf-8") as f:
            self.tree = ast.parse(f.read(), filename)
        self.entries = {}   # name -> ast node (a list for overloads)
        self.aliases = {}   # local name -> (module, name) of an import
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                self.entries.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                self.entries[node.target.id] = [node]
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.entries[target.id] = [node]
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    local = alias.asname or alias.name
                    self.aliases[local] = (node.module, alias.name)
                    if alias.asname == alias.name:  # "import x as x": a re-export
                        self.entries[local] = [node]

    def public_names(self):
        return {name for name in self.entries if not name.startswith("_") and name != "__all__"}

    def class_members(self, name, stubs):
        """{member: [nodes]} of class `name`, with its stub bases' members."""
        if name in self.aliases and not any(isinstance(n, ast.ClassDef) for n in self.entries.get(name, [])):
            module, original = self.aliases[name]  # from .profiler import ProfileReport as ProfileReport
            return stubs["sluice" + ("." + module if module else "")].class_members(original, stubs)
        (cls,) = [n for n in self.entries[name] if isinstance(n, ast.ClassDef)]
        members = {}
        for base in cls.bases:
            if isinstance(base, ast.Name):
                base_stub, base_name = self, base.id
                if base.id in self.aliases:  # from . import Iterator as _SluiceIterator
                    module, base_name = self.aliases[base.id]
                    base_stub = stubs.get("sluice" + ("." + module if module else ""))
                if base_stub is not None and base_name in base_stub.entries:
                    members.update(base_stub.class_members(base_name, stubs))
        for node in cls.body:
            if isinstance(node, ast.FunctionDef):
                members.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                members[node.target.id] = [node]
        return members


def load_module(name):
    if name == "sluice.torch":
        if not os.path.exists(os.path.join(PACKAGE, "torch.py")):
            pytest.skip("sluice.torch is not in this build")
        pytest.importorskip("torch")
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def stubs():
    return {name: Stub(filename) for name, filename in MODULES.items()}


def runtime_public_names(module):
    """The public names a module defines (or lists in __all__), without the
    modules and the names it imports from elsewhere."""
    if hasattr(module, "__all__"):
        names = set(module.__all__)
    else:
        names = set()
        for name, value in vars(module).items():
            if name.startswith("_") or isinstance(value, types.ModuleType):
                continue
            if getattr(value, "__module__", module.__name__) == module.__name__ or not callable(value):
                names.add(name)
    if module.__name__ == "sluice.profiler":
        names.add("DEFAULT_SECONDS")
    return names


def runtime_members(cls):
    """{name: value} of a class's public members and protocol dunders, from
    Sluice's classes in its MRO (not object's or torch's)."""
    members = {}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("sluice"):
            continue
        for name, value in vars(klass).items():
            if not name.startswith("_") or name in PROTOCOL_DUNDERS:
                members[name] = value
    if dataclasses.is_dataclass(cls):
        for field in dataclasses.fields(cls):
            members[field.name] = field
    init = members.get("__init__")
    if inspect.isfunction(init) and not runtime_parameters(init):
        del members["__init__"]  # made by the module, not by users (Dataset)
    return members


def stub_parameters(node):
    a = node.args
    params = []
    positional = a.posonlyargs + a.args
    first_default = len(positional) - len(a.defaults)
    for i, arg in enumerate(positional):
        params.append((arg.arg, "positional", i >= first_default))
    if a.vararg:
        params.append((a.vararg.arg, "*args", False))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        params.append((arg.arg, "keyword", default is not None))
    if a.kwarg:
        params.append((a.kwarg.arg, "**kwargs", False))
    return [p for p in params if p[0] not in ("self", "cls") and not p[0].startswith("_")]


def runtime_parameters(fn):
    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: "positional",
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
        inspect.Parameter.VAR_POSITIONAL: "*args",
        inspect.Parameter.KEYWORD_ONLY: "keyword",
        inspect.Parameter.VAR_KEYWORD: "**kwargs",
    }
    params = [
        (p.name, kinds[p.kind], p.default is not inspect.Parameter.empty)
        for p in inspect.signature(fn).parameters.values()
    ]
    return [p for p in params if p[0] not in ("self", "cls") and not p[0].startswith("_")]


def check_signature(what, fn, nodes):
    functions = [n for n in nodes if isinstance(n, ast.FunctionDef)]
    if not functions or not inspect.isfunction(fn):
        return  # an attribute, or a C++ method (pybind11 gives no signature)
    runtime = runtime_parameters(fn)
    if len(functions) == 1:
        assert stub_parameters(functions[0]) == runtime, what
    else:  # @overload: the names and kinds agree, the defaults differ by case
        for overload in functions:
            assert [p[:2] for p in stub_parameters(overload)] == [p[:2] for p in runtime], what


def unwrap(value):
    if isinstance(value, (staticmethod, classmethod)):
        return value.__func__
    if isinstance(value, property):
        return value.fget
    return value


@pytest.mark.parametrize("module_name", sorted(MODULES))
def test_every_public_name_has_a_stub_entry_and_back(stubs, module_name):
    module = load_module(module_name)
    stub = stubs[module_name]
    runtime = runtime_public_names(module)
    assert sorted(runtime - stub.public_names()) == [], f"{module_name}: names without a stub entry"
    missing_at_runtime = {name for name in stub.public_names() if not hasattr(module, name)}
    assert sorted(missing_at_runtime) == [], f"{MODULES[module_name]}: entries that {module_name} lacks"
    for name in runtime:
        value = getattr(module, name)
        if isinstance(value, types.FunctionType):
            check_signature(f"{module_name}.{name}", value, stub.entries[name])


@pytest.mark.parametrize("module_name", sorted(MODULES))
def test_every_class_member_and_parameter_has_a_stub_entry(stubs, module_name):
    module = load_module(module_name)
    stub = stubs[module_name]
    for name in sorted(runtime_public_names(module)):
        cls = getattr(module, name)
        if not isinstance(cls, type) or issubclass(cls, BaseException):
            continue
        members = stub.class_members(name, stubs)
        runtime = runtime_members(cls)
        assert sorted(set(runtime) - set(members)) == [], f"{module_name}.{name}: members without a stub entry"
        # Methods and properties only: annotated attributes may be set per
        # instance (FixedLenFeature.shape), out of sight of the class.
        stub_methods = {m for m, nodes in members.items() if isinstance(nodes[0], ast.FunctionDef)}
        stale = {m for m in stub_methods if not m.startswith("_")} - set(dir(cls))
        assert sorted(stale) == [], f"{module_name}.{name}: stub methods the class lacks"
        for member, value in runtime.items():
            if member == "__exit__":
                continue  # (self, *exc) and the stub's three parameters are both right
            check_signature(f"{module_name}.{name}.{member}", unwrap(value), members[member])


def test_sluice_all_lists_every_public_name():
    public = {
        name for name, value in vars(sluice).items() if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert sorted(public - set(sluice.__all__)) == []
    assert {"fn", "profiler"} <= set(sluice.__all__)


@pytest.mark.parametrize("module_name", sorted(MODULES))
def test_every_public_callable_has_a_docstring(module_name):
    module = load_module(module_name)
    assert (module.__doc__ or "").strip(), module_name
    undocumented = []
    for name in sorted(runtime_public_names(module)):
        value = getattr(module, name)
        if not callable(value):
            continue  # constants
        if not (value.__doc__ or "").strip():
            undocumented.append(name)
        if isinstance(value, type) and not issubclass(value, BaseException):
            for member, attr in runtime_members(value).items():
                if member.startswith("_") or isinstance(attr, (dataclasses.Field, types.MemberDescriptorType)):
                    continue  # fields and slots: the class's docstring describes them
                if not (getattr(attr, "__doc__", None) or "").strip():
                    undocumented.append(f"{name}.{member}")
    assert undocumented == [], f"{module_name}: no docstring"


def test_the_package_is_marked_typed():
    assert os.path.exists(os.path.join(PACKAGE, "py.typed"))
