# SPDX-License-Identifier: Apache-2.0
"""The type stubs (tgraph.pyi beside the module) name exactly what the module has, and every
public function, class and method of the module has a docstring or a signature pybind11 wrote."""

import ast
import inspect
from pathlib import Path

import tgraph


def stub_tree():
    path = Path(tgraph.__file__).with_name("tgraph.pyi")
    assert path.exists(), f"no stubs beside {tgraph.__file__}"
    return ast.parse(path.read_text())


def public(names):
    return {n for n in names if not n.startswith("_")}


def test_stubs_name_every_public_name_of_the_module():
    tree = stub_tree()
    stub_names, stub_classes = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            stub_names.add(node.name)
        if isinstance(node, ast.ClassDef):
            stub_classes[node.name] = public(
                n.name if isinstance(n, ast.FunctionDef) else n.target.id
                for n in node.body
                if isinstance(n, ast.FunctionDef) or (isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)))
    module_names = {n for n in public(dir(tgraph)) if callable(getattr(tgraph, n))}
    assert module_names == stub_names, (module_names ^ stub_names)
    for name, members in stub_classes.items():
        cls = getattr(tgraph, name)
        have = public(dir(cls)) - public(dir(ValueError) if issubclass(cls, ValueError) else dir(object))
        if issubclass(cls, ValueError):
            have |= {"file", "place", "problem"}  # set on each instance
        assert have == members, (name, have ^ members)


def test_everything_is_documented():
    for name in public(dir(tgraph)):
        obj = getattr(tgraph, name)
        if callable(obj):
            assert inspect.getdoc(obj), name
    for cls in (tgraph.Graph, tgraph.Module, tgraph.Model, tgraph.Project, tgraph.Simulator):
        assert len(inspect.getdoc(cls)) > 40, cls
    assert "progress" in tgraph.Model.score.__doc__ and "zero-copy" in tgraph.Graph.__doc__.replace("no copy", "zero-copy")
