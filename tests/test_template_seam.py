"""One seam between Python and the SQL templates (sqlndcg/core/templates.py): no other module of the package calls a
macro by name, every function of the seam names a macro that exists, and each is used."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sqlndcg"
SEAM = PACKAGE / "core" / "templates.py"
RENDER = PACKAGE / "core" / "render.py"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p not in (SEAM, RENDER))
MACROS = {m.group(1) for p in (ROOT / "sql").rglob("*.sql")
          for m in re.finditer(r"\{%-?\s*macro\s+(\w+)", p.read_text())}


def _calls_into_templates(path: Path) -> list[str]:
    """Each call of ``render.call`` or of a ``.render`` method, as ``line: text``."""
    src = path.read_text()
    found = []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = ast.get_source_segment(src, node.func.value)
            if (node.func.attr == "call" and owner == "render") or node.func.attr == "render":
                found.append(f"{node.lineno}: {ast.get_source_segment(src, node)[:80]}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_but_the_seam_calls_a_macro(path):
    calls = _calls_into_templates(path)
    assert not calls, f"{path.relative_to(ROOT)} calls the templates directly; add a function to core/templates.py: {calls}"


def _seam_functions() -> dict[str, str]:
    """Each function of the seam -> the macro it renders."""
    tree = ast.parse(SEAM.read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names = [c.args[0].value for c in ast.walk(node) if isinstance(c, ast.Call) and c.args
                     and isinstance(c.args[0], ast.Constant) and isinstance(c.args[0].value, str)]
            assert len(names) == 1, f"{node.name} renders {names}: one macro per function"
            out[node.name] = names[0]
    return out


def test_every_seam_function_renders_a_macro_that_exists():
    functions = _seam_functions()
    assert len(functions) > 90
    missing = {f: m for f, m in functions.items() if m not in MACROS}
    assert not missing


def test_every_seam_function_is_used_by_the_package():
    used = set()
    for path in MODULES:
        used |= set(re.findall(r"templates\.(\w+)", path.read_text()))
    unused = sorted(set(_seam_functions()) - used)
    assert not unused, f"functions of core/templates.py no module calls: {unused}"


def test_every_seam_function_says_what_it_returns():
    tree = ast.parse(SEAM.read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            assert node.returns is not None and ast.get_docstring(node), node.name
