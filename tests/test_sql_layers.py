"""The SQL half's layers, as the folders of sql/macros show them, and the rule that keeps them readable (the Python
half's, tests/test_layers.py): a macro calls (``sqlndcg.name(...)``, ``adapter.dispatch('name', ...)``) only macros
of its own folder or of the folders below, so no two folders call each other. A new folder must be given a layer
here (the test says so). ``sql/local`` (Python's own macros, off dbt's path) sits above them all: nothing in
``sql/macros`` may call it, as dbt would not find it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SQL = Path(__file__).resolve().parents[1] / "sql"
MACROS = SQL / "macros"

#: Bottom first. Each layer is a folder of sql/macros.
LAYERS = [
    "dialects",       # each engine's fragments and the portable functions dispatched per engine
    "stats",          # the t quantile (t975): numbers, no statement
    "measures",       # the registry and one file per measure, with the shared aggregates a measure declares
    "outputs",        # the columns of every table sqlndcg writes, from a spec alone
    "spec",           # the settings' declaration, metric names, the validated spec
    "plan",           # the plan (spec + the inputs' facts), input relations as dbt names them
    "checks",         # the input checks' declaration and statements
    "statements",     # per-query, summary, account, run_top, compare, explain, weights
    "judgments",      # the judgment tools: labels, agreement, positions, system_order
    "diversity",      # intent-aware measures from judgments with an intent column (ndeval's), a statement of their own
    "fairness",       # exposure fairness of rankings over the items' groups (exposure, AWRF, expected exposure)
    "online",         # click logs: the impression log's plan and checks, propensities, click labels, interleaving
    "beyond",         # tools beyond accuracy: overlap between systems' rankings; catalog measures from an items table
    "ppi",            # prediction-powered metrics: model-labelled per-query values corrected by a human audit
    "entry",          # dbt's entry points: per_query, summary, account, compare
    "generic_tests",  # dbt's generic tests on inputs and results
    "local",          # sql/local: Python's own macros (readers, sessions, frames), which dbt never sees
]

_DEFINED = re.compile(r"\{%-?\s*(?:macro|test)\s+(\w+)\s*\(")
_CALLED = re.compile(r"\bsqlndcg\.(\w+)\s*\(|adapter\.dispatch\(\s*['\"](\w+)['\"]")
_COMMENT = re.compile(r"\{#.*?#\}", re.S)


def layer_of(path: Path) -> str:
    """The layer of a template file: its folder under sql/macros, or local."""
    if path.is_relative_to(SQL / "local"):
        return "local"
    parts = path.relative_to(MACROS).parts
    assert len(parts) > 1, f"sql/macros/{parts[0]}: put it in a folder, one of {LAYERS}"
    assert parts[0] in LAYERS, (f"sql/macros/{parts[0]}/: which layer is it? give it a place in LAYERS in "
                                f"tests/test_sql_layers.py")
    return parts[0]


FILES = sorted(p for p in SQL.rglob("*.sql"))
DEFINED = {name: path for path in FILES for name in _DEFINED.findall(path.read_text(encoding="utf-8"))}


def calls(path: Path) -> list[tuple[str, Path]]:
    """(name as called, the file defining it) for every call of a package macro in ``path`` outside Jinja comments:
    a dispatch counts as a call of its default__ implementation (the engines' variants belong to the dialects
    layer)."""
    out = []
    for match in _CALLED.finditer(_COMMENT.sub("", path.read_text(encoding="utf-8"))):
        name = match.group(1) or "default__" + match.group(2)
        if name in DEFINED:
            out.append((name.removeprefix("default__"), DEFINED[name]))
    return out


def test_the_calls_are_found():
    edges = {(layer_of(p), layer_of(t)) for p in FILES for _, t in calls(p)}
    assert ("statements", "measures") in edges and ("entry", "statements") in edges
    assert {layer_of(p) for p in FILES} == set(LAYERS)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SQL)))
def test_every_call_points_down(path):
    mine = LAYERS.index(layer_of(path))
    upward = sorted({f"{name} ({target.relative_to(SQL)})" for name, target in calls(path)
                     if LAYERS.index(layer_of(target)) > mine})
    assert not upward, (f"{path.relative_to(SQL)} (layer {LAYERS[mine]}) calls macros of the layers above it: "
                        f"{upward}; move the called macro down (or this one up)")


def test_no_cycle_between_folders():
    graph: dict[str, set[str]] = {}
    for path in FILES:
        for _, target in calls(path):
            if layer_of(target) != layer_of(path):
                graph.setdefault(layer_of(path), set()).add(layer_of(target))
    state: dict[str, int] = {}
    trail: list[str] = []

    def visit(folder: str) -> None:
        state[folder] = 1
        trail.append(folder)
        for below in sorted(graph.get(folder, ())):
            if state.get(below) == 1:
                raise AssertionError("folders calling each other: " + " -> ".join(trail[trail.index(below):] + [below]))
            if not state.get(below):
                visit(below)
        trail.pop()
        state[folder] = 2

    for folder in sorted(graph):
        if not state.get(folder):
            visit(folder)
