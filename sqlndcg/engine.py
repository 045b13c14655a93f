"""The flow: inputs -> spec -> checked sources -> rendered SQL -> executed in DuckDB -> results."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from dataclasses import dataclass

import duckdb

from . import checks, render, sources
from .errors import DataError, EmptyQueryError, InputError, SettingError
from .results import Result, Table
from .sources import brief
from .spec import Spec

@dataclass
class Prepared:
    spec: Spec
    plan: dict
    sql: str
    run: sources.Source
    judgments: sources.Source
    facts: dict


@contextmanager
def _registered(con, *srcs):
    for s in srcs:
        s.register(con)
    try:
        yield
    finally:
        for s in srcs:
            s.unregister(con)


def _described(source: sources.Source, columns: dict[str, str]) -> dict:
    """An input as the plan templates take it: its SQL, a label for messages, its columns and their classes."""
    return {
        "sql": source.sql,
        "label": source.label,
        "columns": [{"name": n, "type": t, "class": checks.column_class(t)} for n, t in columns.items()],
    }


def _facts(con, spec: Spec, run: sources.Source, judgments: sources.Source, check: bool,
           own_connection: bool) -> tuple[Spec, dict]:
    """Read the inputs' columns (and, with check, their rows) and settle what the SQL must assume."""
    if check:
        checks.check_trec_lines(con, run)
        checks.check_trec_lines(con, judgments)
    run_cols = run.describe(con, own_connection)
    judgment_cols = judgments.describe(con, own_connection)
    facts = render.call("facts", spec.plain(), _described(run, run_cols), _described(judgments, judgment_cols))
    spec = Spec.from_data(facts["spec"])
    if check:
        checks.check_run(con, run, spec, run_cols)
        checks.check_judgments(con, judgments, spec, judgment_cols, list(facts["shared_groups"]))
    return spec, facts


def prepare(con, spec: Spec, run, judgments, *, run_format=None, judgments_format=None, check=True,
            own_connection=False) -> Prepared:
    run_src = sources.resolve(run, "run", con, run_format)
    judgment_src = sources.resolve(judgments, "judgments", con, judgments_format)
    with _registered(con, run_src, judgment_src):
        spec, facts = _facts(con, spec, run_src, judgment_src, check, own_connection)
    plan = render.call("plan", facts)
    sql = render.pretty(render.call("per_query_sql", plan))
    return Prepared(spec, plan, sql, run_src, judgment_src, facts)


def sql_only(spec: Spec, run, judgments, *, con=None, dialect="duckdb", run_format=None, judgments_format=None) -> str:
    """The per-query SQL, without reading any rows. Table names without a connection are taken on trust:
    the score column (or else the rank column) exists, ids compare as they are, judgments serve every group."""
    render.known_dialect(dialect)
    if con is None and sources.is_table_name(run) and sources.is_table_name(judgments):
        facts = render.call("assumed_facts", spec.plain(), sources.table_sql(run, None, dialect),
                            sources.table_sql(judgments, None, dialect), dialect=dialect)
    else:
        prepared = prepare(con or duckdb.connect(), spec, run, judgments, run_format=run_format,
                           judgments_format=judgments_format, check=False, own_connection=con is None)
        if dialect == "duckdb":
            return prepared.sql
        facts = {**prepared.facts, "spec": prepared.spec.plain()}
    plan = render.call("plan", facts, dialect=dialect)
    return render.pretty(render.call("per_query_sql", plan, dialect=dialect), dialect)


def _summary(con, name: str, plan: dict, spec: Spec) -> Table:
    """Mean, count, std and the 95% interval per group and metric, all computed by the summary template."""
    return _fetch(con, render.call("summary_sql", name, plan), spec)


def _rows_where(con, name: str, plan: dict, columns: list[str], test: str) -> tuple[int, str] | None:
    """How many per-query rows fail `test` in any of `columns`, and a few of their (group, query) keys."""
    if not columns:
        return None
    identity = [g["output"] for g in plan["groups"]] + [plan["query_output"]]
    found = con.execute(
        render.call("rows_where", name, identity, columns, test, checks.EMPTY_EXAMPLES)
    ).fetchall()
    if not found:
        return None
    keys = [r[:-1] for r in found]
    shown = ", ".join(brief(k[0]) if len(k) == 1 else "(" + ", ".join(map(brief, k)) + ")" for k in keys)
    return found[0][-1], shown


def _refuse_bad_numbers(con, name: str, plan: dict, spec: Spec) -> None:
    """Overflowed sums and, under empty="error", queries with nothing to find, are refused by name."""
    overflow = _rows_where(con, name, plan, [m["column"] for m in plan["metrics"]], "not_finite")
    if overflow:
        count, shown = overflow
        raise DataError(
            f"the metrics of {count} quer(ies) are not finite numbers, e.g. {shown}: the labels or gains are too "
            "large for a double (sums overflowed). Rescale the labels or use a gain map with smaller values."
        )
    if spec.empty != "error":
        return
    empty = _rows_where(con, name, plan, [m["column"] for m in plan["metrics"] if m["emptyable"]], "null")
    if empty:
        count, shown = empty
        raise EmptyQueryError(
            f"{count} judged quer(ies) have nothing to find (no document with a positive gain, or no "
            f"relevant document for R and AP), e.g. {shown}; empty='error' refuses them. Use empty='zero' to "
            "score them 0 (trec_eval) or empty='skip' to leave them out of the mean."
        )


def execute(con, prepared: Prepared) -> Result:
    spec, plan = prepared.spec, prepared.plan
    name = render.quote(f"sqlndcg_per_query_{uuid.uuid4().hex[:12]}")
    try:
        with _registered(con, prepared.run, prepared.judgments):
            try:
                con.execute(render.call("sqlndcg_materialize", name, prepared.sql))
            except duckdb.Error as exc:
                raise InputError(f"DuckDB could not evaluate the inputs: {str(exc).strip()}") from None
            account = _fetch(con, render.call("account_sql", plan), spec)
        _refuse_bad_numbers(con, name, plan, spec)
        per_query = _fetch(con, render.call("sqlndcg_select_all", name), spec)
        summary = _summary(con, name, plan, spec)
    finally:
        con.execute(render.call("sqlndcg_drop", name))
    return Result(per_query, summary, spec.settings(), prepared.sql, account)


def _fetch(con, sql: str, spec: Spec) -> Table:
    cur = con.execute(sql)
    return Table(tuple(d[0] for d in cur.description), tuple(cur.fetchall()), spec.settings())


def evaluate(spec: Spec, run, judgments, *, con=None, run_format=None, judgments_format=None) -> Result:
    if con is not None and not isinstance(con, duckdb.DuckDBPyConnection):
        raise SettingError(f"con must be a duckdb connection, got {type(con).__name__}")
    own = con is None
    con = con or duckdb.connect()
    try:
        prepared = prepare(con, spec, run, judgments, run_format=run_format, judgments_format=judgments_format,
                           own_connection=own)
        return execute(con, prepared)
    finally:
        if own:
            con.close()
