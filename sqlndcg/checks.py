"""Refuse input that would produce a wrong number, before any number is produced.

Each problem is reported with the input, the column and a few offending rows, and what to do about it.
"""

from __future__ import annotations

import duckdb

from . import render
from .errors import DataError, InputError
from .sources import TREC_LAYOUT, Source, brief
from .spec import MAX_EXPONENTIAL_REL, Spec

EXAMPLES = 5
EMPTY_EXAMPLES = 10

_INTEGER_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
                  "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"}
_NUMERIC_TYPES = _INTEGER_TYPES | {"FLOAT", "DOUBLE", "REAL"}
_TEXT_TYPES = {"VARCHAR"}


def is_integer_type(duck_type: str) -> bool:
    return duck_type.upper() in _INTEGER_TYPES


def is_numeric_type(duck_type: str) -> bool:
    t = duck_type.upper()
    return t in _NUMERIC_TYPES or t.startswith("DECIMAL")


def check_trec_lines(con: duckdb.DuckDBPyConnection, source: Source) -> None:
    """A TREC line with the wrong number of fields, or text where a number belongs, is named with its number."""
    if not source.trec_path:
        return
    fields, integers, numbers = TREC_LAYOUT[source.trec_format]
    sql = render.call("sqlndcg_trec_bad_lines", source.trec_path, fields, integers, numbers, EXAMPLES)
    try:
        bad = con.execute(sql).fetchall()
    except duckdb.Error as exc:
        raise InputError(f"{source.label} cannot be read as a TREC file: {str(exc).splitlines()[0]}") from None
    if bad:
        layout = "query_id Q0 doc_id rank score tag" if source.trec_format == "trec_run" else "query_id 0 doc_id rel"
        shown = "; ".join(f"line {n}: {brief(line)}" for n, line, _ in bad)
        raise DataError(
            f"{source.label}: {bad[0][2]} line(s) do not have the {fields} whitespace-separated fields "
            f"'{layout}' with numbers where numbers belong: {shown}"
        )


def require_columns(source: Source, columns: dict[str, str], needed: list[tuple[str, str]]) -> None:
    """``needed`` pairs a role ("query id") with a column name that must exist."""
    for role, name in needed:
        if name not in columns:
            close = [c for c in columns if c.lower() == name.lower()]
            hint = f" (did you mean {close[0]!r}? names are case-sensitive)" if close else ""
            raise InputError(
                f"{source.label} has no {role} column {name!r}{hint}; its columns are {list(columns)}. "
                f"Name the right one with the matching setting (query_id=, doc_id=, score=, rank=, rel=, group_by=)."
            )


def require_types(source: Source, columns: dict[str, str], numeric: list[str], ids: list[str]) -> None:
    for name in numeric:
        if not is_numeric_type(columns[name]):
            raise InputError(
                f"{source.label}: column {name!r} holds {columns[name]}, but must hold numbers; "
                "convert it (or fix the rows that made it text) and try again"
            )
    for name in ids:
        t = columns[name].upper()
        if not (is_integer_type(t) or t in _TEXT_TYPES):
            raise InputError(
                f"{source.label}: id column {name!r} holds {columns[name]}; ids must be text or integers "
                "(cast it, e.g. to VARCHAR)"
            )


def _show(columns: list[str], row: tuple) -> str:
    return "(" + ", ".join(f"{c}={brief(v)}" for c, v in zip(columns, row)) + ")"


def check_rows(con: duckdb.DuckDBPyConnection, source: Source, identity: list[str],
               problems: list[tuple[dict, str]], key_meaning: str, hint: str = "") -> int:
    """Run every row check on one input in a single scan; raise on the first problem found. Returns row count."""
    checks = [c for c, _ in problems]
    counts = con.execute(render.call("sqlndcg_profile", source.sql, checks)).fetchone()
    rows = counts[0]  # never 0: Source.describe refused an input without rows before any check ran
    shown_cols = [render.quote(c) for c in identity]
    for (check, message), count in zip(problems, counts[1:]):
        if count:
            columns = shown_cols + ([check["column"]] if check["column"] not in shown_cols else [])
            examples = con.execute(
                render.call("sqlndcg_offending_rows", source.sql, check, columns, EXAMPLES)
            ).fetchall()
            names = identity + ([check["name"]] if check["name"] not in identity else [])
            shown = ", ".join(_show(names, r) for r in examples)
            raise DataError(f"{source.label}: column {check['name']!r} {message} in {count} row(s), e.g. {shown}")
    found = _duplicates(con, source, identity)
    if found:
        count, shown = found
        raise DataError(
            f"{source.label}: {count} {key_meaning} occur more than once ({', '.join(identity)}), e.g. "
            f"{shown}. Each must appear once{hint}; nothing is dropped or chosen silently."
        )
    return rows


def _duplicates(con, source: Source, keys: list[str]) -> tuple[int, str] | None:
    """How many key values occur more than once, and a few of them shown; None when all are distinct."""
    dupes = con.execute(
        render.call("sqlndcg_duplicates", source.sql, [render.quote(k) for k in keys], EXAMPLES)
    ).fetchall()
    if not dupes:
        return None
    return dupes[0][-1], ", ".join(_show(keys + ["copies"], r[:-1]) for r in dupes)


def _check(kind: str, name: str, **extra) -> dict:
    return {"kind": kind, "column": render.quote(name), "name": name, **extra}


def check_run(con, source: Source, spec: Spec, columns: dict[str, str]) -> int:
    cols = spec.columns
    identity = list(spec.group_by) + [cols.query_id, cols.doc_id]
    problems = [(_check("null", c), "is NULL") for c in identity]
    if cols.score:
        problems.append((_check("null", cols.score),
                         "is missing (NULL, or NaN in a pandas frame; every retrieved document needs a score)"))
        if not is_integer_type(columns[cols.score]):
            problems.append((_check("not_finite", cols.score), "is NaN or infinite"))
    if cols.rank:
        problems.append((_check("null", cols.rank), "is NULL (every retrieved document needs a rank)"))
        problems.append((_check("bad_rank", cols.rank), "is not a positive whole number (ranks start at 1)"))
    hint = (
        ". If the run holds several systems, days or segments, name that column with group_by"
        + ("" if spec.group_by else f" (its columns: {list(columns)})")
        + "; otherwise keep one row per document (e.g. its best score)"
    )
    rows = check_rows(con, source, identity, problems, "(query, document) pairs", hint)
    if cols.rank and spec.ties == "rank":
        found = _duplicates(con, source, list(spec.group_by) + [cols.query_id, cols.rank])
        if found:
            count, shown = found
            raise DataError(
                f"{source.label}: ties='rank' needs distinct ranks within a query, but {count} rank(s) are "
                f"shared, e.g. {shown}; use ties='doc_id' or 'average' to break or average ties by score"
            )
    return rows


def check_judgments(con, source: Source, spec: Spec, columns: dict[str, str], shared: list[str]) -> int:
    cols = spec.columns
    identity = shared + [cols.jq, cols.jd]
    problems = [(_check("null", c), "is NULL") for c in identity]
    problems.append((_check("null", cols.rel),
                     "is missing (NULL, or NaN in a pandas frame; every judgment needs a relevance label)"))
    if not is_integer_type(columns[cols.rel]):
        problems.append((_check("not_finite", cols.rel), "is NaN or infinite"))
    if spec.gain == "exponential":
        problems.append((
            _check("above", cols.rel, limit=float(MAX_EXPONENTIAL_REL)),
            f"is above {MAX_EXPONENTIAL_REL}, where the exponential gain 2^rel - 1 overflows a double "
            "(use gain='linear' or a gain map)",
        ))
    if spec.gain_map is not None:
        grades = sorted(spec.gain_map)
        problems.append((
            _check("unmapped", cols.rel, grades=grades),
            f"has a positive grade that the gain map does not cover (it maps {[f'{g:g}' for g in grades]})",
        ))
    hint = ". If judgments differ per group (say per day), add that column to both inputs and to group_by"
    return check_rows(con, source, identity, problems, "(query, document) judgments", hint)
