"""Refuse input that would produce a wrong number, before any number is produced.

Each problem is reported with the input, the column and a few offending rows, and what to do about it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import cast

from ..core import render
from ..errors import DataError, InputError
from .sources import TREC_LAYOUT, Source, brief
from ..core.spec import Spec
from ..core import templates

EXAMPLES = 5
EMPTY_EXAMPLES = 10

def read_trec_once(ses, source: Source) -> Source:
    """A TREC file read once into a table of the session ``ses`` (every statement of an evaluation would split each
    of its lines again), its lines checked there: the source to read from then on. Other inputs as they are. A file
    mixing CRLF and LF line ends is read from a copy with LF ones (Source.use_lf_copy)."""
    if not source.trec_path:
        return source
    try:
        return _read_trec_once(ses, source)
    except InputError:
        if not source.use_lf_copy(ses.eng):
            raise
    return _read_trec_once(ses, source)


def _read_trec_once(ses, source: Source) -> Source:
    kind = cast(str, source.trec_format)  # set with trec_path (Source.read_from)
    fields, integers, numbers = TREC_LAYOUT[kind]
    trailing = kind == "trec_run"  # trec_eval ignores fields after a run line's tag
    lines, table = ses.table_name(f"sqlndcg_{source.role}_lines"), ses.table_name(f"sqlndcg_{source.role}_rows")
    try:
        ses.materialize(lines, templates.read_lines(source.trec_path))
        ses.materialize(table, templates.trec_table(lines, kind, fields, integers, numbers, trailing))
        ses.drop(lines)
        misread = ses.fetch(templates.trec_misread_count(table))[1][0][0]
    except ses.eng.errors as exc:
        raise InputError(f"{source.label} cannot be read as a TREC file: {str(exc).splitlines()[0]}") from None
    if misread:  # the file is read again, to show the lines
        check_trec_lines(ses.eng, source)
    return replace(source, sql=templates.trec_table_rows(table), rereadable=True,
                   shown_sql=source.shown_sql or source.sql)


def check_trec_lines(eng, source: Source) -> None:
    """A TREC line with the wrong number of fields, or text where a number belongs, is named with its number."""
    if not source.trec_path:
        return
    fields, integers, numbers = TREC_LAYOUT[cast(str, source.trec_format)]  # set with trec_path
    trailing = source.trec_format == "trec_run"  # trec_eval ignores fields after a run line's tag
    sql = templates.trec_bad_lines(source.trec_path, fields, integers, numbers, EXAMPLES, trailing)
    try:
        bad = eng.fetch(sql)[1]
    except eng.errors as exc:
        raise InputError(f"{source.label} cannot be read as a TREC file: {str(exc).splitlines()[0]}") from None
    if bad:
        layout = "query_id Q0 doc_id rank score tag" if source.trec_format == "trec_run" else "query_id 0 doc_id rel"
        shown = "; ".join(f"line {n}: {brief(line)}" for n, line, _ in bad)
        raise DataError(
            f"{source.label}: {bad[0][2]} line(s) do not have the {'at least ' if trailing else ''}{fields} "
            "whitespace-separated fields "
            f"'{layout}' with numbers where numbers belong: {shown}"
        )


def refuse_text_numbers(eng, spec: Spec, *inputs: tuple[Source, dict[str, str]]) -> None:
    """A score, rank or label column that reads as text (plan.sql refuses it by its type) is refused with its first
    rows that are not numbers, so the user sees the values that made it text; nothing is raised when every value
    reads as a number (the caller's type message stands) or the engine cannot tell."""
    plain = spec.plain()
    cols = plain["columns"]
    wanted = {"run": ([*plain["group_by"], cols["query_id"], cols["doc_id"]], (cols["score"], cols["rank"])),
              "judgments": ([cols["judgments_query_id"], cols["judgments_doc_id"]], (cols["rel"],))}
    for source, columns in inputs:
        identity, numbers = wanted[source.role]
        for name in numbers:
            if not name or name not in columns or eng.column_class(columns[name]) != "text":
                continue
            names = [n for n in identity if n in columns] + [name]
            try:
                rows = eng.fetch(templates.not_numbers(source.sql, render.quote(name, eng.dialect),
                                             [render.quote(n, eng.dialect) for n in names], EXAMPLES,
                                             dialect=eng.dialect))[1]
            except eng.errors:
                continue
            if rows:
                shown = ", ".join(show_row(names, r[:-1]) for r in rows)
                raise InputError(f"{source.label}: column {name!r} holds {columns[name]}, but must hold numbers; "
                                 f"{rows[0][-1]} row(s) are not numbers, e.g. {shown}: fix those rows (or convert "
                                 "the column) and try again")


def show_row(columns: list[str], row: tuple) -> str:
    """A row as messages show it: (column=value, ...), each value cut short."""
    return "(" + ", ".join(f"{c}={brief(v)}" for c, v in zip(columns, row)) + ")"


def refuse_problems(eng, source: Source, identity: list[str], checks: list[dict],
                    macros: tuple = (templates.profile, templates.offending_rows)) -> int:
    """Count every declared row check ({kind, column, name, message, ...}) in one scan of the input; the first
    that fails is refused, naming the input, the column and a few offending rows with their ``identity`` columns.
    Returns the input's row count. ``macros`` (two functions of core/templates.py) count and show the failing
    rows: evaluate's (checks.sql) or the judgment tools' (judgments/common.sql)."""
    # counts, whatever numeric type the engine hands them back as (fakesnow: a float)
    counts = [int(c or 0) for c in eng.fetch(macros[0](source.sql, checks, dialect=eng.dialect))[1][0]]
    for check, count in zip(checks, counts[1:]):
        if count:
            names = identity + ([check["name"]] if check["name"] not in identity else [])
            columns = [render.quote(n, eng.dialect) for n in names]
            examples = eng.fetch(macros[1](source.sql, check, columns, EXAMPLES, dialect=eng.dialect))[1]
            shown = ", ".join(show_row(names, r) for r in examples)
            raise DataError(f"{source.label}: column {check['name']!r} {check['message']} in {count} row(s), "
                            f"e.g. {shown}")
    return counts[0]


def check_rows(eng, source: Source, identity: list[str], checks: list[dict], key_meaning: str, hint: str = "",
               duplicates: bool = True) -> int:
    """Run every row check on one input in a single scan; raise on the first problem found. Returns row count
    (never 0: Source.describe refused an input without rows before any check ran). With duplicates=False the
    caller counts repeated keys elsewhere (the run and judgments: in the account's pass, see
    :func:`refuse_duplicates`)."""
    rows = refuse_problems(eng, source, identity, checks)
    if duplicates:
        found = repeated_keys(eng, source, identity)
        if found:
            _refuse_repeated_keys(source, identity, key_meaning, hint, *found)
    return rows


def _refuse_repeated_keys(source: Source, identity: list[str], key_meaning: str, hint: str, count: int,
                          shown: str) -> None:
    raise DataError(
        f"{source.label}: {count} {key_meaning} occur more than once ({', '.join(identity)}), e.g. "
        f"{shown}. Each must appear once{hint}; nothing is dropped or chosen silently."
    )


def refuse_duplicates(eng, source: Source, declared: dict, counted: int) -> None:
    """An input whose keys the account found repeated (`counted` keys) is refused, with a few of them shown."""
    if counted:
        found = repeated_keys(eng, source, declared["identity"])
        shown = found[1] if found else "(not found again: did the input change?)"
        _refuse_repeated_keys(source, declared["identity"], declared["key_meaning"], declared["hint"], counted,
                              shown)


def unique_by_constraint(eng, source: Source, identity: list[str]) -> str | None:
    """The constraint the engine enforces that makes ``identity`` unique in ``source`` (a PRIMARY KEY or UNIQUE on
    some of its columns: the checks refuse a NULL in any of them), as it reads: 'PRIMARY KEY (query_id, doc_id)';
    None when there is none, and the pairs are counted."""
    if not source.table:
        return None
    for kind, columns in eng.unique_keys(source.table):
        if columns and set(columns) <= set(identity):
            return f"{kind} ({', '.join(columns)})"
    return None


def repeated_keys(eng, source: Source, keys: list[str]) -> tuple[int, str] | None:
    """How many key values occur more than once, and a few of them shown; None when all are distinct."""
    dupes = eng.fetch(templates.duplicates(source.sql, [render.quote(k, eng.dialect) for k in keys], EXAMPLES,
                                  dialect=eng.dialect))[1]
    if not dupes:
        return None
    return dupes[0][-1], ", ".join(show_row(keys + ["copies"], r[:-1]) for r in dupes)


def _check_input(eng, source: Source, role: str, spec: Spec, columns: dict[str, str], shared: list[str]) -> dict:
    """Run the row checks the templates declare for this input (checks.sql, input_checks); raise on the first
    problem. Repeated keys are counted later, in the account's pass; the declaration is returned for that."""
    described = [{"name": n, "type": t, "class": eng.column_class(t)} for n, t in columns.items()]
    declared = templates.input_checks(role, spec.plain(), described, shared, dialect=eng.dialect)
    check_rows(eng, source, declared["identity"], declared["problems"], declared["key_meaning"], declared["hint"],
               duplicates=False)
    refuse_order_conflict(eng, source, declared.get("order_conflict"))
    if declared["unique_ranks"]:
        found = repeated_keys(eng, source, declared["unique_ranks"])
        if found:
            count, shown = found
            raise DataError(
                f"{source.label}: ties='rank' needs distinct ranks within a query, but {count} rank(s) are "
                f"shared, e.g. {shown}; use ties='doc_id' or 'average' to break or average ties by score"
            )
    return declared


def refuse_order_conflict(eng, source: Source, conflict: dict | None) -> None:
    """A run with a score and a rank column, neither named by the caller, is ranked by the score only where the two
    agree; where some query's rank column puts a better-scored document below another (beyond ties), which one
    ranks is the caller's to say, so it is refused naming one such query and both columns."""
    if not conflict:
        return
    found = eng.fetch(templates.order_conflicts(source.sql, conflict, 1, dialect=eng.dialect))[1]
    if not found:
        return
    *key, rank, score, above, count = found[0]
    better = "lower (lower_is_better=True)" if conflict["lower_is_better"] else "higher"
    s, r = conflict["score"], conflict["rank"]
    raise DataError(
        f"{source.label}: its score column {s!r} and rank column {r!r} order the documents differently in {count} "
        f"quer(ies), e.g. {show_row(conflict['identity'], key)}: the document at rank {brief(rank)} has score "
        f"{brief(score)}, {better} than the score {brief(above)} of a document ranked above it. Say which column "
        f"ranks: give score={s!r} (the rank column is then ignored) or rank={r!r} (the score column is ignored)"
    )


def check_run(eng, source: Source, spec: Spec, columns: dict[str, str]) -> dict:
    return _check_input(eng, source, "run", spec, columns, [])


def check_judgments(eng, source: Source, spec: Spec, columns: dict[str, str], shared: list[str]) -> dict:
    return _check_input(eng, source, "judgments", spec, columns, shared)


def refuse_disjoint_queries(eng, account, run: Source, judgments: Source, query_columns: tuple[str, str]) -> None:
    """A run and judgments that share no query id would score every judged query 0 (or nothing): almost always ids
    written two ways (integer 1 against text '001', a prefix, blanks) or the wrong files. Refused, with a few ids
    of each side and what their types say."""
    rows = account.select(["run_queries", "run_queries_without_judgments"]).to_pylist()
    if sum((r["run_queries"] or 0) - (r["run_queries_without_judgments"] or 0) for r in rows):
        return
    shown, kinds = [], []
    for source, column in zip((run, judgments), query_columns):
        quoted = render.quote(column, eng.dialect)
        ids = [r[0] for r in eng.fetch(templates.some_values(source.sql, quoted, EXAMPLES,
                                                    dialect=eng.dialect))[1]]
        kind = eng.column_class(eng.columns(source.sql)[column])
        kinds.append(kind)
        shown.append(f"{source.label} has {column!r} ({kind}) {', '.join(brief(i) for i in ids)}"
                     + (", ..." if len(ids) == EXAMPLES else ""))
    cause = ("integer ids are compared with text ids as text, so 1 does not match '001' or 'q1': convert one side"
             if set(kinds) == {"integer", "text"} else
             "the ids are written differently on the two sides (a prefix, leading zeros, blanks, case), or these "
             "are not the same collection's files; check the query id columns (query_id=, judgments_query_id=)")
    raise DataError(f"the run and the judgments share no query id: {'; '.join(shown)}. Likely cause: {cause}")
