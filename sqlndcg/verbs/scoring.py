"""Scoring a run against judgments, the machinery every verb that computes metrics shares (evaluate and to_sql in
:mod:`.evaluate`, compare, explain, trec_eval): :func:`prepare` reads, checks and plans the inputs, :func:`execute`
runs the per-query statement and the summary, :func:`sql_only` renders the statement without reading rows.

The flow: inputs -> spec -> checked sources -> rendered SQL -> executed by an engine -> results.

Which engine runs it (DuckDB, PostgreSQL, Spark, ...) is decided by the connection (:mod:`sqlndcg.run.engines`); the
SQL is rendered for that engine's dialect from the same templates, checks and summary included. Every step runs in
the call's :class:`~sqlndcg.run.session.Session`: each input registered once, the tables made dropped at its end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..run import checks
from ..core import render
from ..run import sources
from ..run.engines import Engine
from ..run.progress import announce
from ..run.session import Session
from ..errors import DataError, EmptyQueryError, InputError, ResourceError, SettingError
from ..present.results import FormattedSQL, Result, Table
from ..run.sources import brief
from ..core.spec import Spec
from ..core.plan import Plan, checked
from ..stats import sample as sampling
from ..core import templates

if TYPE_CHECKING:
    import pyarrow


@dataclass
class Prepared:
    spec: Spec
    plan: Plan
    statement: str | None  # the per-query statement as shown (ordered); rendered when first read (.sql)
    run: sources.Source
    judgments: sources.Source
    facts: dict
    weights: sources.Source | None = None
    weights_plan: dict | None = None
    account: "pyarrow.Table | None" = None  # the account, when the checks computed it (execute() reads it)
    partitions: int = 1  # buckets of queries evaluated one after another (DuckDB)
    # The per-query statement once per bucket (each pass holds 1/partitions of the inputs), without its final ORDER
    # BY: the table the passes fill is read back in order.
    pass_sqls: list[str] = field(default_factory=list)
    longest_list: int | None = None  # the run's longest list, when the checks counted it (per_query.sql reads it)
    dialect: str = "duckdb"  # the engine's, which the statements are rendered for
    # Inputs whose keys a constraint the engine enforces makes unique (role -> 'PRIMARY KEY (query_id, doc_id)'):
    # their repeated keys are not counted (issue 19's decision), and the account says so.
    unique: dict[str, str] = field(default_factory=dict)
    # The SQL that reads a table made in the call's session (a TREC file read once) -> the SQL that reads the file,
    # which the statement shown has instead: it outlives the session.
    shown_inputs: dict[str, str] = field(default_factory=dict)

    @property
    def sql(self) -> str:
        """The per-query statement as shown to people and by to_sql (with its final ORDER BY); the passes run
        ``pass_sqls``, so it is rendered only when asked for."""
        if self.statement is None:
            self.statement = self.shown(templates.per_query_sql(self.plan, True, None, self.longest_list,
                                                    dialect=self.dialect))
        return self.statement

    def shown(self, sql: str) -> str:
        """``sql`` as shown to people: reading the input files, not the session's tables they were read into."""
        for used, shown in self.shown_inputs.items():
            sql = sql.replace(used, shown)
        return sql

    @property
    def sources(self) -> list[sources.Source]:
        return [s for s in (self.run, self.judgments, self.weights) if s is not None]

    def settings(self) -> dict:
        out = self.spec.settings()
        if self.plan.get("checked_within"):
            # the account counts the run's repeated pairs and unjudged documents within each list's top k
            out["checked_within"] = self.plan["checked_within"]
        if self.weights_plan and self.weights is not None:
            out["query_weights"] = {"input": self.weights.label, "weight": self.weights_plan["weight_name"]}
        return out


def _facts(ses: Session, spec: Spec, run: sources.Source, judgments: sources.Source,
           check: bool) -> tuple[Spec, dict, tuple[dict, dict] | None]:
    """Read the inputs' columns (and, with check, their rows) and settle what the SQL must assume. With check,
    also the checks each input was declared (for the repeated keys, which the account's pass counts)."""
    eng = ses.eng
    run_cols = ses.describe(run)
    judgment_cols = ses.describe(judgments)
    try:
        facts = templates.facts(spec.plain(), ses.described(run, run_cols),
                            ses.described(judgments, judgment_cols), dialect=eng.dialect)
    except InputError as exc:
        error = exc
        try:
            checks.refuse_text_numbers(eng, spec, (run, run_cols), (judgments, judgment_cols))  # shows the values
        except InputError as shown:
            error = shown
        raise sources.hinted(error, eng, run, judgments) from None  # how a file was split, when that is the cause
    spec = Spec.from_data(facts["spec"])
    declared = None
    if check:
        declared = (checks.check_run(eng, run, spec, run_cols),
                    checks.check_judgments(eng, judgments, spec, judgment_cols, list(facts["shared_groups"])))
    return spec, facts, declared


def _buckets(partitions: int) -> list[dict | None]:
    """The bucket argument of each pass (partitions > 1: each reads only its queries' rows), else one pass of all."""
    if partitions == 1:
        return [None]
    return [{"index": i, "count": partitions} for i in range(partitions)]


#: Each partition is a pass that reads every input again: past this many, the reads cost more than any sort saves
#: (a billion run rows fit in a few dozen).
MAX_PARTITIONS = 256


def _checked_partitions(eng: Engine, partitions) -> int:
    if isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1:
        raise SettingError(f"partitions must be a whole number >= 1, not {partitions!r}")
    if partitions > MAX_PARTITIONS:
        raise SettingError(f"partitions={partitions:,}: at most {MAX_PARTITIONS} (each partition is one more pass "
                           f"over every input; about one per 50M run rows is enough)")
    if partitions > 1 and eng.dialect != "duckdb":
        raise SettingError(f"partitions={partitions} splits the work of one DuckDB process into passes; {eng.name} "
                           f"({eng.dialect}) divides the work itself: leave partitions at 1")
    return partitions


def _sum_accounts(tables: list, plan: Plan):
    """The buckets' accounts added up per group: every count in the account is a sum over queries, and the
    buckets hold disjoint sets of queries (account.sql gives every group a row in every bucket)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(tables) == 1:
        return tables[0]
    whole = pa.concat_tables(tables)
    keys = [g["name"] for g in plan["groups"]]
    counts = [c for c in whole.column_names if c not in keys]
    if not keys:
        return pa.table({c: pa.array([pc.sum(whole[c]).as_py()], whole.schema.field(c).type) for c in counts})
    summed = whole.group_by(keys, use_threads=False).aggregate([(c, "sum") for c in counts])
    summed = summed.select(keys + [f"{c}_sum" for c in counts]).rename_columns(keys + counts)
    return summed.cast(whole.schema).sort_by([(k, "ascending") for k in keys])


def _account(eng: Engine, plan: Plan, partitions: int, duplicates: bool = False, each=None, unique=()):
    """The account (account.sql), one pass per bucket of queries; ``each`` sees every bucket's table first.
    ``unique``: the roles whose repeated keys a constraint rules out (not counted)."""
    tables = []
    for bucket in _buckets(partitions):
        table = eng.fetch_arrow(templates.account_sql(plan, duplicates, bucket, sorted(unique),
                                            dialect=eng.dialect), small=True)
        if each:
            each(table)
        tables.append(table)
    return _sum_accounts(tables, plan)


def _checked_account(eng: Engine, plan: Plan, run: sources.Source, judgments: sources.Source,
                     declared: tuple[dict, dict], partitions: int = 1, unique=()):
    """The account, from the same pass that counts repeated (query, document) pairs: one pass over each
    input serves both (account.sql). Repeated pairs are refused here, before any metric is computed. Also returns
    the longest list of the run (per_query.sql skips its top-k cut when no list is longer than k)."""
    longest = []

    def refuse_repeated(table):
        counted = table.select(["run_duplicate_keys", "judgment_duplicate_keys", "run_longest_list"]).to_pylist()
        found = counted[0] if counted else {}
        checks.refuse_duplicates(eng, run, declared[0], found.get("run_duplicate_keys") or 0)
        checks.refuse_duplicates(eng, judgments, declared[1], found.get("judgment_duplicate_keys") or 0)
        longest.append(found.get("run_longest_list") or 0)

    table = _account(eng, plan, partitions, True, refuse_repeated, unique)
    return table.drop_columns(["run_duplicate_keys", "judgment_duplicate_keys", "run_longest_list"]), max(longest)


def prepare(ses: Session | Engine, spec: Spec, run, judgments, *, run_format=None, judgments_format=None,
            check=True, query_weights=None, weight_column="weight", partitions=1, sample=None) -> Prepared:
    """Read, check and plan the inputs in the session ``ses`` (an engine: in a session over it), which keeps them
    registered for :func:`execute`."""
    ses = Session.of(ses)
    eng = ses.eng
    partitions = _checked_partitions(eng, partitions)
    announce("reading and checking the inputs")
    run_src = ses.resolve(run, "run", run_format)
    judgment_src = ses.resolve(judgments, "judgments", judgments_format)
    ses.register(run_src, judgment_src)
    if check:  # the checks read every row: a TREC file is read once, into a table they and the statements read
        run_src, judgment_src = [checks.read_trec_once(ses, src) for src in (run_src, judgment_src)]
    spec, facts, declared = _facts(ses, spec, run_src, judgment_src, check)
    # what the session made to read (a table, a copy of a file) -> what the statement shown reads instead
    shown = {src.sql: src.shown_sql for src in (run_src, judgment_src) if src.shown_sql}
    plan = checked(templates.plan(facts, dialect=eng.dialect))
    if eng.dialect == "duckdb" and plan["prune_k"]:
        plan = {**plan, "many_lists": bool(eng.fetch(templates.duckdb_many_lists(plan))[1][0][0])}
    if sample:  # the checks, the account and the statements all read the sampled queries: what goes in
        plan = {**plan, "sample": sample}
    prepared = Prepared(spec, plan, None, run_src, judgment_src, facts, partitions=partitions, dialect=eng.dialect,
                        shown_inputs=shown)
    passes = plan  # the plan the passes run: with the shared ranked top when the checks make it
    if check:
        assert declared is not None  # _facts reads what each input declares when check is true
        prepared.unique = {src.role: found for src, said in zip((run_src, judgment_src), declared)
                           if (found := checks.unique_by_constraint(eng, src, said["identity"]))}
        if partitions == 1 and templates.shares_top(plan, dialect=eng.dialect):
            top_table = ses.table_name("sqlndcg_run_top")
            passes = {**plan, "top_table": top_table}
            with ses.explained("could not rank the run"):
                ses.materialize(top_table, templates.run_top_sql(plan, dialect=eng.dialect), summed=False)
        prepared.account, prepared.longest_list = _checked_account(eng, passes, run_src, judgment_src, declared,
                                                                   partitions, prepared.unique)
        if sample:
            sampling.refuse_empty(sample, prepared.account)
        checks.refuse_disjoint_queries(eng, prepared.account, run_src, judgment_src,
                                       (spec.columns.query_id, spec.columns.judgments_query_id))
    prepared.pass_sqls = [templates.per_query_sql(passes, False, bucket, prepared.longest_list,
                                      dialect=eng.dialect) for bucket in _buckets(partitions)]
    if query_weights is not None:
        prepared.weights, prepared.weights_plan = _weights(ses, plan, query_weights, weight_column, check)
    return prepared


def _weights(ses: Session, plan: Plan, query_weights, weight_column: str, check: bool):
    """The query weights input, read and checked like the others (weights.sql says what is allowed)."""
    src = ses.resolve(query_weights, "query weights")
    columns = ses.describe(src)
    weights_plan = templates.weights_plan(plan, ses.described(src, columns), weight_column, dialect=ses.dialect)
    if check:
        declared = templates.weights_checks(weights_plan, dialect=ses.dialect)
        checks.check_rows(ses.eng, src, declared["identity"], declared["problems"], declared["key_meaning"],
                          declared["hint"])
    return src, weights_plan


def sql_only(spec: Spec, run, judgments, *, con=None, dialect=None, run_format=None, judgments_format=None,
             reading=None, id_type=None) -> str:
    """The per-query SQL, without reading any rows, in ``dialect`` (default: the connection's, else DuckDB's).
    Table names without a connection are taken on trust: the score column (or else the rank column) exists, ids
    hold ``id_type`` (text unless told), judgments serve every group."""
    if dialect is not None:
        render.known_dialect(dialect)
    assumed = con is None and sources.is_table_name(run) and sources.is_table_name(judgments)
    if id_type is not None and (not assumed or id_type not in ("text", "integer")):
        raise SettingError(f"id_type={id_type!r}: " + ("choose 'text' or 'integer'" if assumed else
                           "id_type describes tables sqlndcg cannot read (table names without con=); here the "
                           "column types are read from the inputs, so leave id_type out"))
    if assumed:
        dialect = dialect or "duckdb"
        facts = templates.assumed_facts(spec.plain(), sources.table_sql(run, None, dialect),
                            sources.table_sql(judgments, None, dialect), id_type or "text", dialect=dialect)
    else:
        with Session(con, reading=reading) as ses:
            prepared = prepare(ses, spec, run, judgments, run_format=run_format, judgments_format=judgments_format,
                               check=False)
        dialect = dialect or ses.dialect
        if dialect == ses.dialect:
            return render.pretty(prepared.sql, dialect)
        facts = {**prepared.facts, "spec": prepared.spec.plain()}
    plan = templates.plan(facts, dialect=dialect)
    return render.pretty(templates.per_query_sql(plan, dialect=dialect), dialect)


def _rows_where(eng: Engine, name: str, plan: Plan, columns: list[str], test: str) -> tuple[int, str] | None:
    """How many per-query rows fail `test` in any of `columns`, and a few of their (group, query) keys."""
    if not columns:
        return None
    identity = [g["output"] for g in plan["groups"]] + [plan["query_output"]]
    _, found = eng.fetch(templates.rows_where(name, identity, columns, test, checks.EMPTY_EXAMPLES,
                                     dialect=eng.dialect))
    if not found:
        return None
    keys = [r[:-1] for r in found]
    shown = ", ".join(brief(k[0]) if len(k) == 1 else "(" + ", ".join(map(brief, k)) + ")" for k in keys)
    return found[0][-1], shown


def _refuse_bad_numbers(eng: Engine, name: str, plan: Plan, spec: Spec) -> None:
    """Overflowed sums and, under empty="error", queries with nothing to find, are refused by name."""
    overflow = _rows_where(eng, name, plan, [m["column"] for m in plan["metrics"]], "not_finite")
    if overflow:
        count, shown = overflow
        raise DataError(
            f"the metrics of {count} quer(ies) are not finite numbers, e.g. {shown}: the labels or gains are too "
            "large for a double (sums overflowed). Rescale the labels or use a gain map with smaller values."
        )
    if spec.empty != "error":
        return
    empty = _rows_where(eng, name, plan, [m["column"] for m in plan["metrics"] if m["emptyable"]], "null")
    if empty:
        count, shown = empty
        raise EmptyQueryError(
            f"{count} judged quer(ies) have nothing to find (no document with a positive gain, or no "
            f"relevant document for R and AP), e.g. {shown}; empty='error' refuses them. Use empty='zero' to "
            "score them 0 (trec_eval) or empty='skip' to leave them out of the mean."
        )


#: The most per-query rows evaluate() produces unless told otherwise (each row is a group, a query id and the
#: metrics: 200M rows is several GB even as Arrow).
MAX_RESULT_ROWS = 200_000_000


def _refuse_huge_result(eng: Engine, plan: Plan, max_rows: int | None) -> None:
    """Every judged query for every group of the run is a cross product: refused before it starts when too big."""
    only = [g["name"] for g in plan["groups"] if not g["shared"]]
    if max_rows is None or not only or plan["queries"] != "judged":
        return
    groups, judged = eng.fetch(templates.result_size(plan, dialect=eng.dialect))[1][0]
    if groups * judged > max_rows:
        shared = [g["name"] for g in plan["groups"] if g["shared"]]
        per = f" (per {', '.join(shared)})" if shared else ""
        raise ResourceError(
            f"the per-query result would have {groups * judged:,} rows: {groups:,} groups ({', '.join(only)}) x "
            f"{judged:,} judged queries{per}, since queries='judged' scores every judged query in every group. Shrink "
            f"it with queries='both' (only the queries each group answered)"
            + ("" if shared else ", or give the judgments a group column so each group is judged on its own queries")
            + f"; or raise max_result_rows (now {max_rows:,})"
        )


def execute(ses: Session, prepared: Prepared, max_result_rows: int | None = MAX_RESULT_ROWS,
            per_query_table: str | None = None, summary: bool = True) -> Result:
    """Run the prepared statement into a per-query table and read the results from it. ``per_query_table``: a
    (quoted) name for that table, which then stays for a later step of the same call (the session drops it as it
    closes); without one, the table is dropped once read. ``summary=False``: the per-query rows only (a caller that
    averages them itself, as the trec_eval command does, skips the intervals' statement)."""
    spec, plan, eng = prepared.spec, prepared.plan, ses.eng
    name = per_query_table or ses.table_name("sqlndcg_per_query")
    identity = [g["output"] for g in plan["groups"]] + [plan["query_output"]]
    ses.register(*prepared.sources)
    _refuse_huge_result(eng, plan, max_result_rows)
    n = len(plan["metrics"])
    announce(f"computing {n} metric{'s' if n != 1 else ''}"
             + (f" in {prepared.partitions} passes" if prepared.partitions > 1 else ""))
    with ses.explained("could not evaluate the inputs"):
        first, *rest = prepared.pass_sqls
        ses.materialize(name, first)
        for sql in rest:
            ses.append(name, sql)
    settings = prepared.settings()
    account = Table.from_arrow(prepared.account if prepared.account is not None
                               else _account(eng, plan, prepared.partitions), settings)
    _refuse_bad_numbers(eng, name, plan, spec)
    if prepared.weights_plan:
        _refuse_missing_weights(eng, name, plan, prepared.weights_plan)
    per_query = _fetch(ses, templates.select_all(name, identity, dialect=ses.dialect), settings)
    # The per-query table is a table of our own, cheap to read twice (summary.sql: rereadable).
    if summary:
        announce("summarising")
    summarised = (_fetch(ses, templates.summary_sql(name, plan, prepared.weights_plan, True, dialect=ses.dialect),
                         settings, small=True)
                  if summary else Table([], (), settings))
    if plan["sample"] and summarised:
        settings["sample"] = sampling.recorded(plan["sample"], summarised)
    if per_query_table is None:
        ses.drop(name)
    return Result(per_query, summarised, settings, FormattedSQL(lambda: prepared.sql, eng.dialect), account,
                  dict(prepared.unique))


def _refuse_missing_weights(eng: Engine, name: str, plan: Plan, weights_plan: dict) -> None:
    _, found = eng.fetch(templates.missing_weights_sql(name, plan, weights_plan, checks.EMPTY_EXAMPLES,
                                     dialect=eng.dialect))
    if found:
        keys = [r[:-1] for r in found]
        shown = ", ".join(brief(k[0]) if len(k) == 1 else "(" + ", ".join(map(brief, k)) + ")" for k in keys)
        raise DataError(
            f"{weights_plan['label']}: {found[0][-1]} scored quer(ies) have no weight, e.g. {shown}; give every "
            "scored query a weight (0 leaves it out of the mean), or evaluate without query_weights"
        )


def _fetch(ses: Session, sql: str, settings: dict, small: bool = False) -> Table:
    """A result as the engine gives it, columnar (Arrow); ``small``: a few rows (Engine.fetch_arrow)."""
    return Table.from_arrow(ses.fetch_arrow(sql, small), settings)


def evaluate(spec: Spec, run, judgments, *, con=None, dialect=None, run_format=None, judgments_format=None,
             reading=None, query_weights=None, weight_column="weight", memory_limit=None, temp_directory=None,
             max_temp_size=None, max_result_rows=MAX_RESULT_ROWS, partitions=1, summary=True, sample=None) -> Result:
    with Session(con, dialect, reading, memory_limit=memory_limit, temp_directory=temp_directory,
                 max_temp_size=max_temp_size) as ses:
        prepared = prepare(ses, spec, run, judgments, run_format=run_format, judgments_format=judgments_format,
                           query_weights=query_weights, weight_column=weight_column, partitions=partitions,
                           sample=sample)
        return execute(ses, prepared, max_result_rows, summary=summary)
