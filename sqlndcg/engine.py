"""The flow: inputs -> spec -> checked sources -> rendered SQL -> executed in DuckDB -> results."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from dataclasses import dataclass

import duckdb

from . import checks, render, sources, stats
from .errors import DataError, EmptyQueryError, InputError, SettingError
from .plan import InputFacts, build_plan
from .results import Result, Table
from .sources import brief
from .spec import Spec, with_order

#: Metrics that `empty` can leave NULL.
EMPTYABLE = ("ndcg", "r", "ap")


@dataclass
class Prepared:
    spec: Spec
    plan: dict
    sql: str
    run: sources.Source
    judgments: sources.Source


@contextmanager
def _registered(con, *srcs):
    for s in srcs:
        s.register(con)
    try:
        yield
    finally:
        for s in srcs:
            s.unregister(con)


def _facts(con, spec: Spec, run: sources.Source, judgments: sources.Source, check: bool,
           own_connection: bool) -> tuple[Spec, InputFacts]:
    """Read the inputs' columns (and, with check, their rows) and settle what the SQL must assume."""
    if check:
        checks.check_trec_lines(con, run)
        checks.check_trec_lines(con, judgments)
    run_cols = run.describe(con, own_connection)
    judgment_cols = judgments.describe(con, own_connection)
    cols = spec.columns
    has_score = bool(cols.score) and cols.score in run_cols
    has_rank = bool(cols.rank) and cols.rank in run_cols
    if spec.ties == "rank" and not has_rank:
        checks.require_columns(run, run_cols, [("rank", cols.rank)])
    if not has_score and not has_rank:
        wanted = " or ".join(repr(c) for c in (cols.score, cols.rank) if c)
        raise InputError(
            f"{run.label} has neither a score column nor a rank column ({wanted}); its columns are "
            f"{list(run_cols)}. Name one with score= (higher is better) or rank= (1 is best)."
        )
    spec = with_order(spec, has_score=has_score, has_rank=has_rank)
    cols = spec.columns
    needed_run = [("query id", cols.query_id), ("document id", cols.doc_id)] + [("group_by", g) for g in spec.group_by]
    checks.require_columns(run, run_cols, needed_run)
    checks.require_columns(judgments, judgment_cols, [("query id", cols.jq), ("document id", cols.jd), ("rel", cols.rel)])
    order_col = cols.score or cols.rank
    checks.require_types(run, run_cols, [order_col], [cols.query_id, cols.doc_id])
    checks.require_types(judgments, judgment_cols, [cols.rel], [cols.jq, cols.jd])
    shared = [g for g in spec.group_by if g in judgment_cols]
    id_types = [run_cols[cols.query_id], run_cols[cols.doc_id], judgment_cols[cols.jq], judgment_cols[cols.jd]]
    ids_as_text = not all(checks.is_integer_type(t) for t in id_types)
    if check:
        checks.check_run(con, run, spec, run_cols)
        checks.check_judgments(con, judgments, spec, judgment_cols, shared)
    return spec, InputFacts(run.sql, judgments.sql, ids_as_text=ids_as_text, shared_groups=tuple(shared))


def prepare(con, spec: Spec, run, judgments, *, run_format=None, judgments_format=None, check=True,
            own_connection=False) -> Prepared:
    run_src = sources.resolve(run, "run", con, run_format)
    judgment_src = sources.resolve(judgments, "judgments", con, judgments_format)
    with _registered(con, run_src, judgment_src):
        spec, facts = _facts(con, spec, run_src, judgment_src, check, own_connection)
    plan = build_plan(spec, facts)
    sql = render.pretty(render.call("sqlndcg_per_query", plan))
    return Prepared(spec, plan, sql, run_src, judgment_src)


def sql_only(spec: Spec, run, judgments, *, con=None, dialect="duckdb", run_format=None, judgments_format=None) -> str:
    """The per-query SQL, without reading any rows. Table names without a connection are taken on trust:
    the score column (or else the rank column) exists, ids compare as they are, judgments serve every group."""
    if con is None and sources.is_table_name(run) and sources.is_table_name(judgments):
        spec = with_order(spec, has_score=bool(spec.columns.score), has_rank=bool(spec.columns.rank))
        facts = InputFacts(sources.resolve(run, "run", None).sql, sources.resolve(judgments, "judgments", None).sql)
        return render.pretty(render.call("sqlndcg_per_query", build_plan(spec, facts)), dialect)
    prepared = prepare(con or duckdb.connect(), spec, run, judgments, run_format=run_format,
                       judgments_format=judgments_format, check=False, own_connection=con is None)
    return prepared.sql if dialect == "duckdb" else render.pretty(prepared.sql, dialect)


def _summary(con, name: str, plan: dict, spec: Spec) -> Table:
    cur = con.execute(render.call("sqlndcg_summary", name, plan))
    names = [d[0] for d in cur.description]
    raw = cur.fetchall()
    groups = list(spec.group_by)
    columns = groups + ["queries"]
    for m in spec.metrics:
        columns += [m.name, f"{m.name}_count", f"{m.name}_std", f"{m.name}_ci_low", f"{m.name}_ci_high"]
    rows = []
    for r in raw:
        values = dict(zip(names, r))
        row = [values[g] for g in groups] + [values["queries"]]
        for m in spec.metrics:
            mean, n, std = values[m.name], values[f"{m.name}_count"], values[f"{m.name}_std"]
            low, high = stats.mean_interval(mean, std, n)
            row += [mean, n, std, low, high]
        rows.append(tuple(row))
    return Table(tuple(columns), tuple(rows), spec.settings())


def _rows_where(con, name: str, plan: dict, columns: list[str], test: str) -> tuple[int, str] | None:
    """How many per-query rows fail `test` in any of `columns`, and a few of their (group, query) keys."""
    if not columns:
        return None
    identity = [g["output"] for g in plan["groups"]] + [plan["query_output"]]
    found = con.execute(
        render.call("sqlndcg_rows_where", name, identity, columns, test, checks.EMPTY_EXAMPLES)
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
    empty = _rows_where(con, name, plan, [m["column"] for m in plan["metrics"] if m["kind"] in EMPTYABLE], "null")
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
            account = _fetch(con, render.call("sqlndcg_account", plan), spec)
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
