"""Property tests: random small runs and judgments, every metric kind and every setting.

Each example is a handful of queries (up to 4) with up to 8 documents each, graded labels -1..3 (sometimes
fractional), scores drawn from a small set so that ties are frequent, judged documents the run never retrieved,
retrieved documents nobody judged, queries only in the run and queries only in the judgments; optionally two
systems in one run (group_by="sys"). Ids are strings whose byte order differs from their "natural" order
("d10" < "d9", "" and "é"), or integers (compared numerically).

What is asserted, and why it must hold by definition (SEMANTICS.md):
- every value equals tests/reference_impl.py to 1e-9, for every combination of settings;
- ranges: NDCG, P, R, AP, RR, Hit, Judged in [0, 1]; CG, DCG, IDCG >= 0; DCG@k <= IDCG@k (the retrieved gains are a
  sub-multiset of the ideal source's, and a tie average is a mean of orderings); cumulative metrics do not
  decrease with k; NULL only where empty="skip" allows it;
- a perfect ranking (score = label) has NDCG 1 at every cutoff, and AP = RR = R = 1 where something is relevant;
- invariance, bit for bit (sums are taken in rank order), to the order of input rows, to DuckDB's thread count,
  to renaming ids with an order-preserving map, and (short_lists="pad", ideal="judgments") to appending unjudged
  documents at the bottom of a list;
- ties="average" equals the mean over every ordering of the tied documents (all orderings evaluated in one call,
  one group per ordering, with ties="doc_id");
- the same inputs give bit-identical per-query results and summaries;
- the account's counts equal counts made here in Python from the same rows.

Budget: each evaluate call is ~0.1 s, so example counts are chosen to keep the file well under 90 s.
"""

from __future__ import annotations

import os

import itertools
import math
import random
import statistics
from dataclasses import dataclass, field

import duckdb
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import sqlndcg
from reference_impl import reference_evaluate

#: Hundreds of evaluations per test: in the full run (CI, the README's command), not in the quick subset.
pytestmark = pytest.mark.slow

# ----------------------------------------------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------------------------------------------

#: String doc ids whose byte order is not their "natural" order, plus the empty string, unicode and a space.
STR_DOCS = ["d1", "d2", "d9", "d10", "d11", "D2", "é", "e", "", "d1 "]
#: Integer doc ids: compared numerically (9 < 10), including 0, a negative and a large one.
INT_DOCS = [1, 2, 9, 10, 11, 100, 0, -5, 2**40, 3]
#: Few distinct scores, so ties are frequent; includes 0 and a negative.
SCORES = [-1.0, 0.0, 0.5, 1.0, 1.0, 2.0, 3.0]
INT_LABELS = [-1, 0, 0, 1, 1, 2, 3]
FRACTIONAL_LABELS = [0.5, 1.5, 2.5]
#: An explicit gain map that is not 2^rel - 1 nor rel, so ignoring it would show.
GAIN_MAP = {1: 1.0, 2: 2.5, 3: 10.0}

KINDS = ("cg", "dcg", "idcg", "ndcg", "p", "r", "ap", "rr", "hit", "judged")
ADDITIVE = ("cg", "dcg", "idcg", "ndcg", "p", "r", "judged")
UNIT_INTERVAL = ("ndcg", "p", "r", "ap", "rr", "hit", "judged")
NON_NEGATIVE = ("cg", "dcg", "idcg")
#: Kinds whose value cannot decrease as k grows (all per-position contributions are >= 0, denominators fixed).
CUMULATIVE = ("cg", "dcg", "idcg", "r", "ap", "rr", "hit")
EMPTYABLE = ("ndcg", "r", "ap")
KS = (1, 2, 5, 10, None)
#: Per-metric thresholds on binary kinds: (kind, k, rel).
THRESHOLDED = (("p", 3, 2.0), ("r", 5, 2.0), ("ap", None, 2.0), ("rr", 10, 2.0), ("hit", 2, 1.5))

TOL = 1e-9  # against the reference
TIGHT = 1e-12  # where two different expressions compute the same number (DCG and IDCG of a perfect ranking)
EXACT = 0.0  # invariances: the package sums in rank order, so the same numbers come out bit for bit


def metric_name(kind, k, rel=None) -> str:
    """The canonical column name sqlndcg gives (kind, k, rel)."""
    threshold = "" if rel is None else f"(rel={int(rel) if float(rel).is_integer() else rel!r})"
    return f"{kind}{threshold}" + ("" if k is None else f"@{k}")


def metric_keys(ties: str, ks=KS) -> list[tuple]:
    kinds = ADDITIVE if ties == "average" else KINDS
    keys = [(kind, k, None) for kind in kinds for k in ks]
    keys += [m for m in THRESHOLDED if m[0] in kinds]
    return keys


@dataclass
class Data:
    """Rows as plain tuples: run (group, query, doc, score), judgments (query, doc, rel)."""

    run: list
    judgments: list
    grouped: bool
    int_ids: bool
    fractional: bool
    int_rel: bool = False
    extra: dict = field(default_factory=dict)

    def group_key(self, group):
        return group if self.grouped else ()


@st.composite
def datasets(draw, grouped=None, fractional=None, int_ids=None, max_queries=4, max_docs=8):
    int_ids = draw(st.booleans()) if int_ids is None else int_ids
    grouped = draw(st.booleans()) if grouped is None else grouped
    fractional = draw(st.booleans()) if fractional is None else fractional
    groups = draw(st.sampled_from([("A",), ("A", "B")])) if grouped else (None,)
    labels = INT_LABELS + (FRACTIONAL_LABELS if fractional else [])
    pool = INT_DOCS if int_ids else STR_DOCS
    run, judgments = [], []
    n_queries = draw(st.integers(1, max_queries))
    queries = [qi * 7 + 3 if int_ids else ("q" + "x" * qi if qi % 2 else f"Q{qi}") for qi in range(n_queries)]
    for q in queries:
        presence = draw(st.sampled_from(["both", "both", "both", "run only", "judgments only"]))
        if presence != "run only":
            docs = draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=max_docs))
            judgments += [(q, d, draw(st.sampled_from(labels))) for d in docs]
        if presence != "judgments only":
            for g in groups:
                docs = draw(st.lists(st.sampled_from(pool), unique=True, min_size=0, max_size=max_docs))
                run += [(g, q, d, draw(st.sampled_from(SCORES))) for d in docs]
    if not run:
        run.append((groups[0], queries[0], pool[0], 1.0))
    if not judgments:
        judgments.append((queries[-1], pool[1], 2))
    if not {r[1] for r in run} & {j[0] for j in judgments}:
        # a run and judgments without a query in common are refused (tests/test_groups_missing.py): one is judged
        judgments.append((run[0][1], run[0][2], 1))
    int_rel = not fractional and draw(st.booleans())
    return Data(run, judgments, grouped, int_ids, fractional, int_rel)


def setting_strategy(data: Data, ties=None, empty=("zero", "skip", "error")):
    gains = ["exponential", "linear"] + ([] if data.fractional else ["map"])
    return st.fixed_dictionaries(
        {
            "gain": st.sampled_from(gains),
            "ideal": st.sampled_from(["judgments", "retrieved"]),
            "ties": st.sampled_from(["doc_id", "average", "rank"]) if ties is None else st.just(ties),
            "short_lists": st.sampled_from(["pad", "truncate"]),
            "empty": st.sampled_from(list(empty)),
            "queries": st.sampled_from(["judged", "both"]),
            "threshold": st.sampled_from([1.0, 2.0, 0.5]),
        }
    )


def package_settings(s: dict) -> dict:
    out = dict(s)
    if out.get("gain") == "map":
        out["gain"] = GAIN_MAP
    return out


def reference_settings(s: dict) -> dict:
    out = package_settings(s)
    if out.get("ties") == "rank":  # the run's rank column is made from score desc, doc_id desc: the doc_id rule
        out["ties"] = "doc_id"
    return out


def with_ranks(run: list) -> list:
    """(group, query, doc, score, rank) with rank = position under score descending, doc id descending."""
    lists: dict = {}
    for g, q, d, s in run:
        lists.setdefault((g, q), []).append((d, s))
    rank = {}
    for (g, q), docs in lists.items():
        for i, (d, _s) in enumerate(sorted(docs, key=lambda x: (x[1], x[0]), reverse=True)):
            rank[(g, q, d)] = i + 1
    return [(g, q, d, s, rank[(g, q, d)]) for g, q, d, s in run]


def run_table(data: Data, rows=None, ranks=False, batch=None) -> pa.Table:
    rows = data.run if rows is None else rows
    cols = {}
    if data.grouped:
        cols["sys"] = pa.array([r[0] for r in rows], pa.string())
    id_type = pa.int64() if data.int_ids else pa.string()
    cols["query_id"] = pa.array([r[1] for r in rows], id_type)
    cols["doc_id"] = pa.array([r[2] for r in rows], id_type)
    cols["score"] = pa.array([float(r[3]) for r in rows], pa.float64())
    if ranks:
        cols["rank"] = pa.array([r[4] for r in with_ranks(rows)], pa.int64())
    table = pa.table(cols)
    if batch:
        table = pa.Table.from_batches(table.to_batches(max_chunksize=batch))
    return table


def judgments_table(data: Data, rows=None) -> pa.Table:
    rows = data.judgments if rows is None else rows
    id_type = pa.int64() if data.int_ids else pa.string()
    rel_type = pa.int64() if data.int_rel else pa.float64()
    return pa.table(
        {
            "query_id": pa.array([r[0] for r in rows], id_type),
            "doc_id": pa.array([r[1] for r in rows], id_type),
            "rel": pa.array([r[2] if data.int_rel else float(r[2]) for r in rows], rel_type),
        }
    )


def as_frame(table: pa.Table, kind: str, con=None, name=None):
    """The same rows as pyarrow, pandas, polars or a DuckDB table name."""
    if kind == "arrow":
        return table
    if kind == "pandas":
        return table.to_pandas()
    if kind == "polars":
        import polars as pl

        return pl.from_arrow(table)
    assert kind == "duckdb" and con is not None and name
    con.register("__tmp_arrow", table)
    con.execute(f'CREATE OR REPLACE TABLE "{name}" AS SELECT * FROM __tmp_arrow')
    con.unregister("__tmp_arrow")
    return name


def run_evaluate(data: Data, names, s: dict | None = None, *, run_rows=None, judgment_rows=None, con=None,
                 batch=None):
    s = package_settings(s or {})
    ranks = s.get("ties") == "rank"
    return sqlndcg.evaluate(
        run_table(data, run_rows, ranks=ranks, batch=batch),
        judgments_table(data, judgment_rows),
        names,
        group_by=["sys"] if data.grouped else [],
        con=con,
        **s,
    )


def by_key(res, data: Data) -> dict:
    """{(group, query): row dict} from a result's per-query table."""
    out = {}
    for row in res.per_query.to_dicts():
        key = (data.group_key(row.get("sys")), row["query_id"])
        assert key not in out, f"per-query row {key} appears twice"
        out[key] = row
    return out


def close(a, b, tol) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def assert_same_values(left: dict, right: dict, names, tol, what: str):
    assert left.keys() == right.keys(), f"{what}: scored (group, query) pairs differ: {left.keys() ^ right.keys()}"
    for key in left:
        for name in names:
            assert close(left[key][name], right[key][name], tol), (
                f"{what}: {name} of {key}: {left[key][name]!r} != {right[key][name]!r}"
            )


def reference_rows(data: Data, keys, s: dict) -> dict:
    run = [(data.group_key(g), q, d, score) for g, q, d, score in data.run]
    return reference_evaluate(run, data.judgments, keys, **reference_settings(s))


# Connections reused across examples: also shows that nothing an evaluation leaves behind changes the next one.
_CONNECTIONS: dict[int, duckdb.DuckDBPyConnection] = {}


def connection(threads: int) -> duckdb.DuckDBPyConnection:
    if threads not in _CONNECTIONS:
        _CONNECTIONS[threads] = duckdb.connect(config={"threads": threads})
    return _CONNECTIONS[threads]


# In CI (CI=true) the examples are derandomized: the same budget explores the same cases every run, so a landing
# never hangs on a draw; run locally, each run explores new cases.
COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
              derandomize=os.environ.get("CI", "").lower() == "true")

# ----------------------------------------------------------------------------------------------------------------
# equal to the reference implementation
# ----------------------------------------------------------------------------------------------------------------


@settings(max_examples=120, **COMMON)
@given(st.data())
def test_equals_reference_implementation(draw):
    data = draw.draw(datasets())
    s = draw.draw(setting_strategy(data))
    frame_kind = draw.draw(st.sampled_from(["arrow", "arrow", "pandas", "polars", "duckdb"]))
    keys = metric_keys(s["ties"])
    names = [metric_name(*m) for m in keys]
    try:
        expected = reference_rows(data, keys, s)
    except ValueError as exc:
        assert s["empty"] == "error" and "nothing to find" in str(exc), exc
        expected = None
    con = connection(2) if frame_kind == "duckdb" else None
    run = as_frame(run_table(data, ranks=s["ties"] == "rank"), frame_kind, con, "prop run")
    judgments = as_frame(judgments_table(data), frame_kind, con, "prop judgments")
    kwargs = dict(group_by=["sys"] if data.grouped else [], con=con, **package_settings(s))
    if expected is None:
        with pytest.raises(sqlndcg.EmptyQueryError, match="nothing to find"):
            sqlndcg.evaluate(run, judgments, names, **kwargs)
        return
    res = sqlndcg.evaluate(run, judgments, names, **kwargs)
    assert list(res.per_query.columns) == (["sys"] if data.grouped else []) + ["query_id"] + names
    got = by_key(res, data)
    want = {key: {metric_name(*m): v for m, v in values.items()} for key, values in expected.items()}
    assert_same_values(got, want, names, TOL, f"settings {s}")
    assert_summary_is_mean_of_per_query(res, data, names)


def assert_summary_is_mean_of_per_query(res, data: Data, names):
    per_group: dict = {}
    for row in res.per_query.to_dicts():
        per_group.setdefault(data.group_key(row.get("sys")), []).append(row)
    summary = {data.group_key(r.get("sys")): r for r in res.summary.to_dicts()}
    for group, rows in per_group.items():
        srow = summary[group]
        assert srow["queries"] == len(rows)
        for name in names:
            values = [r[name] for r in rows if r[name] is not None]
            assert srow[f"{name}_count"] == len(values), name
            if values:
                assert close(srow[name], statistics.fmean(values), TOL), (name, srow[name], values)
            else:
                assert srow[name] is None, name
            if len(values) >= 2:
                assert close(srow[f"{name}_std"], statistics.stdev(values), 1e-7), name
                assert srow[f"{name}_ci_low"] <= srow[name] <= srow[f"{name}_ci_high"], name


# ----------------------------------------------------------------------------------------------------------------
# ranges and monotonicity
# ----------------------------------------------------------------------------------------------------------------


def assert_ranges(rows: dict, keys, s: dict):
    eps = 1e-12
    for key, row in rows.items():
        for kind, k, rel in keys:
            v = row[metric_name(kind, k, rel)]
            where = f"{metric_name(kind, k, rel)} of {key} under {s}"
            if v is None:
                assert s["empty"] == "skip" and kind in EMPTYABLE, f"{where} is NULL"
                continue
            assert not math.isnan(v), f"{where} is NaN"
            if kind in UNIT_INTERVAL:
                assert -eps <= v <= 1 + eps, f"{where} = {v} is outside [0, 1]"
            if kind in NON_NEGATIVE:
                assert v >= 0, f"{where} = {v} < 0"
            if kind in ("hit",):
                assert v in (0.0, 1.0), f"{where} = {v}"
            if kind == "rr" and v:
                position = 1 / v
                assert abs(position - round(position)) < 1e-9 and (k is None or round(position) <= k), where
        for k in KS:
            dcg, idcg = row.get(metric_name("dcg", k)), row.get(metric_name("idcg", k))
            if dcg is not None and idcg is not None:
                assert dcg <= idcg * (1 + 1e-12) + 1e-12, f"dcg@{k} {dcg} > idcg@{k} {idcg} for {key} under {s}"
        for kind in CUMULATIVE:
            values = [row.get(metric_name(kind, k)) for k in KS]  # KS ends with None: full depth is deepest
            values = [v for v in values if v is not None]
            for a, b in zip(values, values[1:]):
                assert a <= b * (1 + 1e-12) + 1e-12, f"{kind} decreases with k for {key} under {s}: {values}"


@settings(max_examples=40, **COMMON)
@given(st.data())
def test_values_are_in_range(draw):
    data = draw.draw(datasets())
    s = draw.draw(setting_strategy(data, empty=("zero", "skip")))
    keys = metric_keys(s["ties"])
    names = [metric_name(*m) for m in keys]
    res = run_evaluate(data, names, s)
    rows = by_key(res, data)
    assert_ranges(rows, keys, s)
    if s["empty"] == "zero":
        assert all(v is not None for r in res.per_query.rows for v in r), "empty='zero' left a NULL"


# ----------------------------------------------------------------------------------------------------------------
# a perfect ranking
# ----------------------------------------------------------------------------------------------------------------


@settings(max_examples=30, **COMMON)
@given(st.data())
def test_perfect_ranking_scores_one(draw):
    """Every judged document retrieved with score = its label (unjudged extras below every positive label):
    NDCG is 1 at every cutoff for every query with a positive gain, under every setting; with ties="doc_id"
    AP, RR and full-depth R are 1 for every query with a relevant document."""
    data = draw.draw(datasets(grouped=False))
    s = draw.draw(setting_strategy(data, empty=("zero", "skip")))
    judged = {(q, d) for q, d, _ in data.judgments}
    unjudged = [(None, q, d, draw.draw(st.sampled_from([0.0, -1.0, -2.0])))
                for _, q, d, _ in data.run if (q, d) not in judged]
    perfect = Data([(None, q, d, float(r)) for q, d, r in data.judgments] + unjudged, data.judgments,
                   False, data.int_ids, data.fractional, data.int_rel)
    keys = metric_keys(s["ties"])
    names = [metric_name(*m) for m in keys]
    rows = by_key(run_evaluate(perfect, names, s), perfect)
    gain_of = (lambda r: GAIN_MAP.get(r, 0.0)) if s["gain"] == "map" else (lambda r: max(r, 0))
    for q in {q for q, _, _ in data.judgments}:
        labels = [r for qq, _, r in data.judgments if qq == q]
        row = rows[((), q)]
        if any(gain_of(r) > 0 for r in labels):
            for k in KS:
                assert close(row[metric_name("ndcg", k)], 1.0, TIGHT), (q, k, row, s)
        if any(r >= s["threshold"] for r in labels):
            assert close(row[metric_name("r", None)], 1.0, TIGHT), (q, row, s)
            if s["ties"] != "average":
                assert row[metric_name("ap", None)] == pytest.approx(1.0, abs=TIGHT), (q, row, s)
                assert row[metric_name("rr", None)] == 1.0, (q, row, s)
                assert row[metric_name("hit", 1)] == 1.0, (q, row, s)


# ----------------------------------------------------------------------------------------------------------------
# invariances
# ----------------------------------------------------------------------------------------------------------------


@settings(max_examples=25, **COMMON)
@given(st.data())
def test_invariant_to_input_row_order(draw):
    data = draw.draw(datasets())
    s = draw.draw(setting_strategy(data, empty=("zero", "skip")))
    names = [metric_name(*m) for m in metric_keys(s["ties"])]
    seed = draw.draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    run_rows, judgment_rows = list(data.run), list(data.judgments)
    rng.shuffle(run_rows)
    rng.shuffle(judgment_rows)
    before = run_evaluate(data, names, s)
    after = run_evaluate(data, names, s, run_rows=run_rows, judgment_rows=judgment_rows)
    assert_same_values(by_key(before, data), by_key(after, data), names, EXACT, "shuffled rows")
    assert before.account.rows == after.account.rows


@settings(max_examples=6, **COMMON)
@given(st.data())
def test_invariant_to_thread_count(draw):
    """The drawn data repeated for 100 systems (thousands of rows, scanned in small batches so DuckDB can split
    the work): 1, 2 and 4 threads give bit-identical per-query values, summaries and accounts."""
    base = draw.draw(datasets(grouped=False))
    s = draw.draw(setting_strategy(base, empty=("zero", "skip")))
    names = [metric_name(*m) for m in metric_keys(s["ties"], ks=(1, 3, 10, None))]
    run = [(f"sys{i:03d}", q, d, score) for i in range(100) for _, q, d, score in base.run]
    data = Data(run, base.judgments, True, base.int_ids, base.fractional, base.int_rel)
    results = [run_evaluate(data, names, s, con=connection(t), batch=256) for t in (1, 2, 4)]
    first = by_key(results[0], data)
    for threads, res in zip((2, 4), results[1:]):
        assert_same_values(first, by_key(res, data), names, EXACT, f"threads=1 vs threads={threads}")
        assert res.per_query.rows == results[0].per_query.rows
        assert res.summary.rows == results[0].summary.rows
        assert res.account.rows == results[0].account.rows


def order_preserving_map(values, int_ids: bool, prefix: str) -> dict:
    """A new id for each value, in the same order: integers to spread-out integers (compared numerically) or,
    for strings, a common hostile prefix plus a zero-padded index (byte order = index order)."""
    ordered = sorted(set(values))
    if int_ids:
        return {v: 1_000_003 + 37 * i for i, v in enumerate(ordered)}
    return {v: f"{prefix}{i:04d}" for i, v in enumerate(ordered)}


@settings(max_examples=25, **COMMON)
@given(st.data())
def test_invariant_to_order_preserving_renaming_of_ids(draw):
    data = draw.draw(datasets())
    s = draw.draw(setting_strategy(data, empty=("zero", "skip")))
    names = [metric_name(*m) for m in metric_keys(s["ties"])]
    prefix = draw.draw(st.sampled_from(["x", "é\"'; ", "\t\n", "DROP TABLE t; --", "ß\u4e00"]))
    qmap = order_preserving_map([r[1] for r in data.run] + [r[0] for r in data.judgments], data.int_ids, prefix)
    dmap = order_preserving_map([r[2] for r in data.run] + [r[1] for r in data.judgments], data.int_ids, prefix)
    renamed = Data(
        [(g, qmap[q], dmap[d], score) for g, q, d, score in data.run],
        [(qmap[q], dmap[d], rel) for q, d, rel in data.judgments],
        data.grouped, data.int_ids, data.fractional, data.int_rel,
    )
    before = by_key(run_evaluate(data, names, s), data)
    after = by_key(run_evaluate(renamed, names, s), renamed)
    back = {(g, q): row for (g, q), row in before.items()}
    mapped = {(g, next(k for k, v in qmap.items() if v == q)): row for (g, q), row in after.items()}
    assert_same_values(back, mapped, names, EXACT, f"ids renamed with prefix {prefix!r}")


@settings(max_examples=25, **COMMON)
@given(st.data())
def test_unjudged_documents_below_the_list_change_nothing_when_padded(draw):
    """short_lists="pad", ideal="judgments": documents nobody judged, appended below every document of a list,
    add gain 0 at positions whose denominators (k) and ideal do not depend on the list, so every metric with a
    cutoff, and every full-depth metric except P and Judged (divided by the list length), is unchanged."""
    data = draw.draw(datasets())
    s = draw.draw(setting_strategy(data, empty=("zero", "skip")))
    s.update(short_lists="pad", ideal="judgments")
    if s["ties"] == "rank":
        s["ties"] = "doc_id"
    keys = metric_keys(s["ties"])
    names = [metric_name(*m) for m in keys]
    unchanged = [metric_name(kind, k, rel) for kind, k, rel in keys if k is not None or kind not in ("p", "judged")]
    lists: dict = {}
    for g, q, _d, score in data.run:
        lists.setdefault((g, q), []).append(score)
    extra = []
    for (g, q), scores in lists.items():
        n = draw.draw(st.integers(0, 6))
        low = min(scores)
        extra += [(g, q, (10**6 + i) if data.int_ids else f"unjudged-{i}", low - 1 - i) for i in range(n)]
    assume(extra)
    longer = Data(data.run + extra, data.judgments, data.grouped, data.int_ids, data.fractional, data.int_rel)
    before = by_key(run_evaluate(data, names, s), data)
    after = by_key(run_evaluate(longer, names, s), longer)
    assert_same_values(before, after, unchanged, EXACT, f"{len(extra)} unjudged documents appended under {s}")


# ----------------------------------------------------------------------------------------------------------------
# ties="average" is the mean over all orderings of each tie
# ----------------------------------------------------------------------------------------------------------------


@st.composite
def tied_query(draw):
    """One query's run: tie groups of 1..4 documents at distinct integer scores (at most 8 documents and at most
    144 orderings in all), plus judgments for some retrieved and some unretrieved documents."""
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4).filter(lambda xs: sum(xs) <= 8))
    assume(math.prod(math.factorial(n) for n in sizes) <= 144)
    docs = draw(st.permutations(STR_DOCS))
    ties, i = [], 0
    for level, n in enumerate(sizes):
        ties.append((float(len(sizes) - level), docs[i:i + n]))
        i += n
    fractional = draw(st.booleans())
    labels = INT_LABELS + (FRACTIONAL_LABELS if fractional else [])
    judged_docs = draw(st.lists(st.sampled_from(STR_DOCS), unique=True, min_size=1, max_size=8))
    judgments = [("q", d, draw(st.sampled_from(labels))) for d in judged_docs]
    return ties, judgments, fractional


@settings(max_examples=25, **COMMON)
@given(st.data())
def test_average_ties_equal_mean_over_all_orderings(draw):
    ties, judgments, fractional = draw.draw(tied_query())
    base = Data([], judgments, True, False, fractional)
    s = draw.draw(setting_strategy(base, ties="average", empty=("zero", "skip")))
    s["queries"] = "judged"
    keys = metric_keys("average", ks=(1, 2, 3, 4, 5, 6, 8, None))
    names = [metric_name(*m) for m in keys]
    tied_run = [("tied", "q", d, score) for score, group in ties for d in group]
    averaged = by_key(run_evaluate(Data(tied_run, judgments, True, False, fractional), names, s), base)
    orderings = []
    for n, choice in enumerate(itertools.product(*[itertools.permutations(group) for _, group in ties])):
        for (score, _), order in zip(ties, choice):
            # the j-th document of this ordering gets score + (size - j) / 10: below the next score level up
            orderings += [(f"o{n:03d}", "q", d, score + (len(order) - j) / 10) for j, d in enumerate(order)]
    s_doc = dict(s, ties="doc_id")
    every = by_key(run_evaluate(Data(orderings, judgments, True, False, fractional), names, s_doc), base)
    count = math.prod(math.factorial(len(group)) for _, group in ties)
    assert len(every) == count
    for name in names:
        values = [row[name] for row in every.values()]
        want = None if any(v is None for v in values) else math.fsum(values) / count
        if want is None:
            assert all(v is None for v in values)
        got = averaged[("tied", "q")][name]
        assert close(got, want, TOL), f"{name}: average ties {got!r} != mean over {count} orderings {want!r} ({s})"


# ----------------------------------------------------------------------------------------------------------------
# determinism
# ----------------------------------------------------------------------------------------------------------------


@settings(max_examples=10, **COMMON)
@given(st.data())
def test_same_inputs_give_bit_identical_results(draw):
    data = draw.draw(datasets())
    s = draw.draw(setting_strategy(data, empty=("zero", "skip")))
    names = [metric_name(*m) for m in metric_keys(s["ties"])]
    con = connection(4)
    first = run_evaluate(data, names, s, con=con)
    second = run_evaluate(data, names, s, con=con)
    third = run_evaluate(data, names, s)  # a fresh connection of its own
    for other in (second, third):
        assert other.summary.rows == first.summary.rows  # ==, not approx
        assert other.per_query.rows == first.per_query.rows
        assert other.account.rows == first.account.rows


# ----------------------------------------------------------------------------------------------------------------
# the account
# ----------------------------------------------------------------------------------------------------------------


def expected_account(data: Data, queries: str, within: int | None = None) -> dict:
    """The account, counted by hand; `within`: the run's unjudged documents counted in each list's top `within`
    (score descending, ties by doc_id descending), as the checks count them when every metric has a cutoff."""
    judged_queries = {q for q, _, _ in data.judgments}
    judged_docs = {(q, d) for q, d, rel in data.judgments if rel >= 0}
    out = {}
    for g in dict.fromkeys(r[0] for r in data.run):
        rows = [r for r in data.run if r[0] == g]
        counted = rows
        if within is not None:
            counted = []
            for q in dict.fromkeys(r[1] for r in rows):
                ranked = sorted((r for r in rows if r[1] == q), key=lambda r: (r[3], r[2]), reverse=True)
                counted += ranked[:within]
        run_queries = {q for _, q, _, _ in rows}
        answered = run_queries & judged_queries
        out[data.group_key(g)] = {
            "run_rows": len(rows),
            "run_queries": len(run_queries),
            "run_queries_without_judgments": len(run_queries - judged_queries),
            "judgments": len(data.judgments),
            "judged_queries": len(judged_queries),
            "judged_queries_missing_from_run": len(judged_queries - run_queries),
            "retrieved_unjudged": sum(1 for _, q, d, _ in counted if (q, d) not in judged_docs),
            "scored_queries": len(judged_queries) if queries == "judged" else len(answered),
        }
    return out


@settings(max_examples=40, **COMMON)
@given(st.data())
def test_account_counts_every_row(draw):
    data = draw.draw(datasets())
    queries = draw.draw(st.sampled_from(["judged", "both"]))
    checks = draw.draw(st.sampled_from(["full", "depth"]))
    res = run_evaluate(data, ["ndcg@5"], {"queries": queries, "checks": checks})
    got = {data.group_key(r.get("sys")): {k: v for k, v in r.items() if k != "sys"} for r in res.account.to_dicts()}
    assert got == expected_account(data, queries, 5 if checks == "depth" else None)
    # the account agrees with what was scored
    for group, row in got.items():
        scored = [r for r in res.per_query.to_dicts() if data.group_key(r.get("sys")) == group]
        assert row["scored_queries"] == len(scored)
