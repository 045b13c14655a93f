"""The package's layers, as its folders show them, and the rule that keeps them readable: a module imports only
from its own layer or the layers below, and module-level imports have no cycle. A new module in a new folder
must be given a layer here (the test says so)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sqlndcg"

#: Bottom first. cli -> verbs -> stats -> present -> run -> core -> errors.
LAYERS = ["errors", "core", "run", "present", "stats", "verbs", "cli"]
#: Modules beside sqlndcg/__init__.py that are the public face too (``import sqlndcg.plots``, as the docs write it).
PUBLIC = {"plots"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1] in PUBLIC):
        return None  # sqlndcg itself (and sqlndcg.plots): the public face, above everything
    name = parts[1]
    if name == "__main__":
        return len(LAYERS)
    assert name in LAYERS, f"{module}: which layer is {name!r}? add it to LAYERS in tests/test_layers.py"
    return LAYERS.index(name)


def imports(path: Path) -> list[tuple[str, bool]]:
    """(imported module, at module level?) for every import of the package's own modules in ``path``."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("sqlndcg"):
                continue
            for alias in node.names:  # `from . import x` imports the module sqlndcg...x when there is one
                sub = f"{target}.{alias.name}"
                found = (PACKAGE.parent / Path(*sub.split("."))).with_suffix(".py").exists() or \
                    (PACKAGE.parent / Path(*sub.split(".")) / "__init__.py").exists()
                out.append((sub if found else target, id(node) in top))
        elif isinstance(node, ast.Import):
            out += [(a.name, id(node) in top) for a in node.names if a.name.startswith("sqlndcg")]
    return out


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_import_points_down(module):
    mine = layer(module)
    if mine is None:
        return
    upward = [t for t, _ in imports(MODULES[module]) if layer(t) is not None and layer(t) > mine]
    assert not upward, f"{module} (layer {LAYERS[mine] if mine < len(LAYERS) else '__main__'}) imports from above: {upward}"


def test_no_import_cycle():
    graph = {m: sorted({t for t, top in imports(p) if top and t in MODULES and t != m}) for m, p in MODULES.items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m):
        state[m] = 1
        path.append(m)
        for t in graph[m]:
            if state.get(t) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(t):] + [t]))
            if not state.get(t):
                visit(t)
        path.pop()
        state[m] = 2

    for m in graph:
        if not state.get(m):
            visit(m)


def test_the_layers_are_the_folders():
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert folders == sorted(set(LAYERS) - {"errors"})
