"""The SQL package as dbt loads it: rules dbt enforces (or needs) that plain Jinja would let pass."""

from __future__ import annotations

from pathlib import Path

import jinja2
import jinja2.nodes
import pytest

from sqlndcg.core import render

MACROS = sorted((render.SQL_DIR / "macros").rglob("*.sql"))
PACKAGE_MACROS = set()
for _path in MACROS:
    if "generic_tests" not in _path.parts:
        for _node in render.environment().parse(_path.read_text(encoding="utf-8")).find_all(jinja2.nodes.Macro):
            PACKAGE_MACROS.add(_node.name)


def _calls(path: Path):
    env = render.environment()
    if "generic_tests" in path.parts:  # dbt's {% test %} blocks: read them as macros
        text = path.read_text(encoding="utf-8").replace("{%- test ", "{%- macro ").replace("{%- endtest", "{%- endmacro")
    else:
        text = path.read_text(encoding="utf-8")
    return env.parse(text).find_all(jinja2.nodes.Call)


@pytest.mark.parametrize("path", MACROS, ids=lambda p: str(p.relative_to(render.SQL_DIR)))
def test_adapter_dispatch_names_are_literal(path):
    """dbt reads every adapter.dispatch(...) call when it parses a project, and fails on a computed name."""
    for call in _calls(path):
        node = call.node
        if isinstance(node, jinja2.nodes.Getattr) and isinstance(node.node, jinja2.nodes.Name) \
                and node.node.name == "adapter" and node.attr == "dispatch":
            assert isinstance(call.args[0], jinja2.nodes.Const), f"{path}: adapter.dispatch with a computed name"
            assert isinstance(call.args[1], jinja2.nodes.Const) and call.args[1].value == "sqlndcg"


@pytest.mark.parametrize("path", MACROS, ids=lambda p: str(p.relative_to(render.SQL_DIR)))
def test_package_macros_call_each_other_through_the_package_namespace(path):
    """A bare call to a sibling macro is undefined when the package is installed in another project."""
    for call in _calls(path):
        if isinstance(call.node, jinja2.nodes.Name):
            assert call.node.name not in PACKAGE_MACROS, f"{path}: call {call.node.name}() as sqlndcg.{call.node.name}()"


def test_the_dbt_project_loads_only_the_dbt_macros():
    repo = Path(__file__).resolve().parent.parent
    assert 'macro-paths: ["sql/macros"]' in (repo / "dbt_project.yml").read_text()
    assert list((repo / "sql" / "local").glob("*.sql")), "the Python-only helpers live outside the macro path"


def test_development_tools_live_outside_the_package():
    """Generators run by hand (the t quantile's constants, the docs' measure table) are in tools/, not in the
    wheel: the package holds what runs."""
    package = Path(__file__).resolve().parents[1] / "sqlndcg"
    tools = Path(__file__).resolve().parents[1] / "tools"
    assert (tools / "t975_generator.py").exists() and (tools / "measure_docs.py").exists()
    names = {p.stem for p in package.rglob("*.py")}
    assert not names & {"t975_generator", "measure_docs"}
    assert not [p for p in package.rglob("*.py") if "_generator" in p.stem or "_t_quantile_expansion" in p.read_text()]
