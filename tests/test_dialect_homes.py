"""One home per dialect: every difference of an engine's SQL is in that engine's file, its facts with it.

The rules, precisely:

- A *variant* is a macro named ``<adapter>__<rule>`` with an adapter other than ``default``. Every variant lives in
  ``sql/macros/dialects/<adapter>.sql``, or, for a rule only Python uses (``sql/local``, which dbt never sees), in
  the mirror ``sql/local/dialects/<adapter>.sql``; those files define nothing else. No other file names an adapter.
  Beside them, ``sql/macros/dialects/rules.sql`` lists the rules: each dispatcher, with what it decides.
- A *dialect rule* is a dispatch family whose name is written literally in an ``adapter.dispatch('<rule>', ...)``
  call (``double``, ``byte_order``, ``text_literal``, ``sqlndcg_frame_type``, ...). Its portable form
  ``default__<rule>`` lives in ``sql/macros/dialects/default.sql`` (``sql/local/dialects/default.sql`` for a
  ``sql/local`` rule), which defines nothing else.
- Dispatch families whose name is computed (``_dispatched('value_' ~ kind)``: the measure registry's
  ``measure_<kind>``, ``aggregates_<kind>`` and ``value_<kind>``, and a measure's shared aggregate
  ``shared_<need>``) are not dialect rules: a measure keeps its
  ``default__`` macros in its own file and branches on a capability flag (``rank_folds()``) instead of having
  variants. They are the only ``default__`` macros outside the dialect folders.
- Every ``sql/macros/dialects/<adapter>.sql`` declares ``<adapter>__dialect_facts()``; every adapter the facts
  name (``inherits``) has a file; render.py reads its tables from them (no ADAPTERS or _NEAREST of its own).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sqlndcg.core import render

ROOT = Path(__file__).resolve().parent.parent
SQL = ROOT / "sql"
DEFINED = re.compile(r"{%-?\s*macro\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(")
LITERAL_DISPATCH = re.compile(r"adapter\.dispatch\(\s*'([a-z0-9_]+)'")
COMMENT = re.compile(r"{#.*?#}", re.S)
REGISTRY_FAMILIES = ("measure_", "aggregates_", "value_", "shared_")
HOMES = ("macros/dialects", "local/dialects")
#: Not an adapter: the dialect rules themselves, each a dispatcher with what it decides (sql/macros/dialects/rules.sql).
RULES = "rules"


def _definitions() -> list[tuple[str, Path]]:
    return [(name, path) for path in sorted(SQL.rglob("*.sql"))
            for name in DEFINED.findall(path.read_text(encoding="utf-8"))]


def _home(path: Path) -> str | None:
    """'macros/dialects' or 'local/dialects' for a file in a dialect folder, else None."""
    relative = path.relative_to(SQL).parent.as_posix()
    return relative if relative in HOMES else None


def test_every_variant_lives_in_its_dialects_file():
    misplaced = [f"{name} ({path.relative_to(ROOT)})" for name, path in _definitions()
                 if "__" in name.lstrip("_") and not name.startswith("default__")
                 and not (_home(path) and path.stem == name.split("__", 1)[0])]
    assert not misplaced, ("a variant <adapter>__name belongs in sql/macros/dialects/<adapter>.sql (or "
                           "sql/local/dialects/<adapter>.sql for a Python-only rule): " + ", ".join(misplaced))


def test_a_dialects_file_defines_only_its_own_adapters_macros():
    strangers = [f"{name} ({path.relative_to(ROOT)})" for name, path in _definitions()
                 if _home(path) and path.stem != RULES and not name.startswith(path.stem + "__")]
    assert not strangers, strangers


def test_every_dialect_rules_portable_form_is_in_default_sql():
    rules = {rule for path in SQL.rglob("*.sql")
             for rule in LITERAL_DISPATCH.findall(COMMENT.sub("", path.read_text(encoding="utf-8")))}
    assert {"double", "byte_order", "is_finite", "md5_hex", "log2", "whole", "text_literal", "null_double",
            "try_double", "sqlndcg_frame_type"} <= rules
    where = {name: path for name, path in _definitions()}
    missing = sorted(rule for rule in rules if f"default__{rule}" not in where)
    assert not missing, f"dialect rules without a portable form: {missing}"
    misplaced = sorted(f"default__{rule} ({where[f'default__{rule}'].relative_to(ROOT)})" for rule in rules
                       if where[f"default__{rule}"].relative_to(SQL).as_posix() not in
                       ("macros/dialects/default.sql", "local/dialects/default.sql"))
    assert not misplaced, misplaced


def test_only_the_measure_registrys_families_keep_default_macros_elsewhere():
    others = [f"{name} ({path.relative_to(ROOT)})" for name, path in _definitions()
              if name.startswith("default__") and not _home(path)
              and not name[len("default__"):].startswith(REGISTRY_FAMILIES)]
    assert not others, ("default__ macros outside sql/macros/dialects/default.sql that are not the measure "
                        "registry's: " + ", ".join(others))


def test_every_dialects_file_declares_its_facts_and_every_adapter_named_has_a_file():
    files = {path.stem for path in (SQL / "macros" / "dialects").glob("*.sql")} - {"default", RULES}
    facts = render.dialect_facts()
    assert set(facts) == files, "each sql/macros/dialects/<adapter>.sql declares <adapter>__dialect_facts()"
    named = {said["inherits"] for said in facts.values() if said["inherits"]}
    assert named <= files, f"adapters inherited from without a file: {sorted(named - files)}"
    mirrored = {path.stem for path in (SQL / "local" / "dialects").glob("*.sql")} - {"default"}
    assert mirrored <= files, f"sql/local/dialects files without an adapter: {sorted(mirrored - files)}"
    names = [name for said in facts.values() for name in said["dialects"]]
    assert len(names) == len(set(names)), "a dialect name renders with one adapter"
    assert [a for a, said in facts.items() if said["transpiles_from"]] == ["transpiled"]


def test_render_reads_its_dialect_tables_from_the_files():
    source = (ROOT / "sqlndcg" / "core" / "render.py").read_text(encoding="utf-8")
    assert "ADAPTERS" not in source and "_NEAREST" not in source
    assert not hasattr(render, "ADAPTERS")


# dialect name -> the adapters its macros are dispatched through (dbt's order), as the facts make them.
CHAINS = [
    ("duckdb", ("duckdb",)), ("postgres", ("postgres",)), ("redshift", ("redshift", "postgres")),
    ("spark", ("spark",)), ("hive", ("spark",)), ("databricks", ("databricks", "spark")),
    ("tsql", ("sqlserver",)), ("fabric", ("fabric", "sqlserver")), ("presto", ("trino",)),
    ("athena", ("athena", "trino")), ("datafusion", ("datafusion",)),
    ("oracle", ("transpiled",)), ("teradata", ("transpiled",)),
]


@pytest.mark.parametrize("dialect, chain", CHAINS)
def test_a_dialect_dispatches_through_the_adapters_its_facts_name(dialect, chain):
    assert render._chain(dialect) == chain


# dialect name -> the sqlglot dialect its SQL is written in (and read back in)
SQLGLOT = [("datafusion", "postgres"), ("duckdb", "duckdb"), ("tsql", "tsql"), ("oracle", "oracle")]


@pytest.mark.parametrize("dialect, written", SQLGLOT)
def test_a_dialects_sql_is_written_in_its_sqlglot_dialect(dialect, written):
    assert render.sqlglot_dialect(dialect) == written
