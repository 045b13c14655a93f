"""Exposure fairness (sqlndcg.exposure, sql/macros/fairness/) against a NumPy reference written from the papers'
equations (Singh & Joachims, KDD 2018; Diaz et al., CIKM 2020 and their expeval program; Sapiezynski et al. 2019
and TREC Fair Ranking 2021-2022's AWRF), on seeded data with ties, short lists, several samples per query,
systems, text and integer ids; the hand-computed example of docs/fairness.md; properties; the errors; the CLI; and
every engine the tests run giving DuckDB's numbers (marked engine)."""

from __future__ import annotations

import math
import random
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sqlndcg
from sqlndcg.cli import main

DOCS = Path(__file__).resolve().parents[1] / "docs" / "fairness.md"


# -- the reference ------------------------------------------------------------------------------------------------

def weight(r: int, browsing: str, p: float, k: int | None) -> float:
    """The browsing model's weight of rank r (from 1): RBP p^(r-1), DCG 1/log2(r+1), TREC Fair 1/log2(max(r,2))."""
    if k is not None and r > k:
        return 0.0
    if browsing == "rbp":
        return p ** (r - 1)
    if browsing == "dcg":
        return 1 / math.log2(r + 1)
    return 1 / math.log2(max(r, 2))


def ideal_target(rels: dict, browsing: str, p: float, k: int | None) -> dict:
    """Diaz et al.'s target exposure: the documents of a grade share the positions the grade occupies in the
    ideal ranking (grades descending, rel > 0); with RBP and no cutoff, expeval's closed form
    (p^b - p^(b+m)) / (m (1 - p))."""
    levels = sorted({r for r in rels.values() if r > 0}, reverse=True)
    out, b = {}, 0
    for g in levels:
        docs = [d for d, r in rels.items() if r == g]
        m = len(docs)
        if browsing == "rbp" and k is None:
            t = (p ** b - p ** (b + m)) / (m * (1 - p))
        else:
            t = sum(weight(i, browsing, p, k) for i in range(b + 1, b + m + 1)) / m
        out.update({d: t for d in docs})
        b += m
    return out


def jsd2(a: np.ndarray, t: np.ndarray) -> float:
    """Jensen-Shannon divergence in base 2, 0 log 0 = 0."""
    m = (a + t) / 2
    def kl(x):
        nz = x > 0
        return float(np.sum(x[nz] * np.log2(x[nz] / m[nz])))
    return (kl(a) + kl(t)) / 2


def reference(run: pd.DataFrame, items: pd.DataFrame, *, browsing="rbp", p=0.5, k=None, judgments=None,
              target="items", group_by=(), sample=None, group_column="provider", ties="doc_id", lower_is_better=False,
              id_order="native"):
    """{(group_by..., query): measures} and {(group_by..., query, group): (documents, exposure, share)}."""
    group_of = dict(zip(items["doc_id"], items[group_column].astype(str)))
    if isinstance(target, pd.DataFrame):
        tgt = dict(zip(target[group_column].astype(str), target["share"]))
    else:
        counts = items[group_column].astype(str).value_counts()
        tgt = {g: (1 / len(counts) if target == "uniform" else c / len(items)) for g, c in counts.items()}
    qrels: dict = {}
    if judgments is not None:
        for q, d, r in judgments[["query_id", "doc_id", "rel"]].itertuples(index=False):
            qrels.setdefault(q, {})[d] = r
    out, groups = {}, {}
    keys = list(group_by) + ["query_id"]
    for key, lists in run.groupby(keys, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        samples = [lists] if sample is None else [s for _, s in lists.groupby(sample)]
        e: dict = {}
        for ranking in samples:
            sign = -1 if lower_is_better else 1
            tie = str if id_order == "text" else (lambda d: d)
            ordered = sorted(zip(sign * ranking["score"], ranking["doc_id"]), key=lambda x: (x[0], tie(x[1])), reverse=True)
            w = [weight(r, browsing, p, k) for r in range(1, len(ordered) + 1)]
            if ties == "average":  # equal scores share the mean weight of the positions they occupy
                w = [np.mean([w[j] for j, (t, _) in enumerate(ordered) if t == x]) for x, _ in ordered]
            for (_, d), x in zip(ordered, w):
                e[d] = e.get(d, 0.0) + x / len(samples)
        by_group: dict = {}
        for d, x in e.items():
            n, s = by_group.get(group_of[d], (0, 0.0))
            by_group[group_of[d]] = (n + 1, s + x)
        total = sum(s for _, s in by_group.values())
        means = [s / n for n, s in by_group.values()]
        names = sorted(set(by_group) | set(tgt))
        a = np.array([by_group.get(g, (0, 0.0))[1] / total for g in names])
        t = np.array([tgt.get(g, 0.0) for g in names])
        row = {"samples": len(samples), "documents": len(e), "groups": len(by_group), "exposure": total,
               "disparity_difference": max(means) - min(means), "disparity_ratio": min(means) / max(means),
               "awrf": 1 - jsd2(a, t)}
        if judgments is not None:
            star = ideal_target(qrels.get(key[-1], {}), browsing, p, k)
            docs = set(e) | set(star)
            row["relevant"] = len(star)
            if star:
                row["ee_d"] = sum(x * x for x in e.values())
                row["ee_r"] = sum(e.get(d, 0.0) * star.get(d, 0.0) for d in docs)
                row["ee_l"] = sum((e.get(d, 0.0) - star.get(d, 0.0)) ** 2 for d in docs)
                assert math.isclose(row["ee_l"], row["ee_d"] - 2 * row["ee_r"] + sum(v * v for v in star.values()),
                                    abs_tol=1e-12)
            else:
                row.update(ee_d=None, ee_r=None, ee_l=None)
        out[key] = row
        for g, (n, s) in by_group.items():
            groups[key + (g,)] = (n, s, s / total)
    return out, groups


def make_data(seed: int, integer_ids: bool = False):
    """Runs of two systems over 6 queries with 1 to 3 samples each, lists of 1 to 9 documents from a pool of 12
    (scores 0-3: ties), items in 4 groups, judgments with grades 0-3 (judged documents no list holds, a query
    without relevant documents, one judged only)."""
    rnd = random.Random(seed)
    doc = (lambda i: i * 7 + 1) if integer_ids else (lambda i: rnd.choice(["d", "D", "x"]) + str(i))
    pool = list(dict.fromkeys(doc(i) for i in range(12)))
    qid = (lambda q: q) if integer_ids else (lambda q: f"q{q}")
    rows, judged = [], []
    for system in ("bm25", "dense"):
        for q in range(1, 7):
            for s in range(rnd.randint(1, 3)):
                for d in rnd.sample(pool, rnd.randint(1, 9)):
                    rows.append((system, qid(q), s, d, float(rnd.randint(0, 3))))
    for q in range(1, 8):
        for d in rnd.sample(pool, rnd.randint(1, 8)):
            judged.append((qid(q), d, 0 if q == 2 else rnd.randint(0, 3)))
    run = pd.DataFrame(rows, columns=["system", "query_id", "sample", "doc_id", "score"])
    items = pd.DataFrame({"doc_id": pool, "provider": [f"p{rnd.randint(0, 3)}" for _ in pool]})
    return run, items, pd.DataFrame(judged, columns=["query_id", "doc_id", "rel"])


def assert_rows(got, want: dict, nkeys: int) -> None:
    rows = got.to_dicts()
    assert len(rows) == len(want)
    for row in rows:
        values = list(row.values())
        key = tuple(values[:nkeys])
        for name, w in want[key].items():
            g = row[name]
            if w is None:
                assert g is None, (key, name)
            else:
                assert g == pytest.approx(w, rel=1e-12, abs=1e-12), (key, name, g, w)


# -- against the reference ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("browsing, p, k", [("rbp", 0.5, None), ("rbp", 0.8, 4), ("dcg", 0.5, None),
                                            ("dcg", 0.5, 3), ("trec_fair", 0.5, None)])
@pytest.mark.parametrize("integer_ids", [False, True])
def test_sampled_rankings_per_system_match_the_reference(browsing, p, k, integer_ids):
    run, items, judged = make_data(7, integer_ids)
    got = sqlndcg.exposure(run, items, browsing=browsing, p=p, k=k, judgments=judged, group_by="system",
                           sample="sample")
    want, groups = reference(run, items, browsing=browsing, p=p, k=k, judgments=judged, group_by=["system"],
                             sample="sample")
    assert_rows(got.per_query, want, 2)
    assert [(r["system"], r["query_id"], r["provider"]) for r in got.groups.to_dicts()] == sorted(groups)
    for r in got.groups.to_dicts():
        n, s, share = groups[(r["system"], r["query_id"], r["provider"])]
        assert (r["documents"], r["exposure"], r["share"], r["mean_exposure"]) == pytest.approx((n, s, share, s / n), rel=1e-12)


@pytest.mark.parametrize("given", [{"ties": "average"}, {"ties": "average", "k": 3, "browsing": "dcg"},
                                   {"lower_is_better": True}, {"id_order": "text"}])
def test_ties_averaged_lower_is_better_and_ids_as_text_match_the_reference(given):
    run, items, judged = make_data(13, integer_ids=True)
    got = sqlndcg.exposure(run, items, judgments=judged, group_by="system", sample="sample", **given)
    want, _ = reference(run, items, judgments=judged, group_by=["system"], sample="sample", **given)
    assert_rows(got.per_query, want, 2)


def test_averaged_ties_give_equal_scores_equal_exposure():
    run = pd.DataFrame({"query_id": 1, "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 0.0]})
    items = pd.DataFrame({"doc_id": ["a", "b", "c"], "provider": ["x", "y", "z"]})
    got = {r["provider"]: r["exposure"] for r in sqlndcg.exposure(run, items, ties="average").groups.to_dicts()}
    assert got == {"x": 0.75, "y": 0.75, "z": 0.25}


def test_one_ranking_per_query_uniform_target_and_the_summary():
    run, items, _ = make_data(3)
    run = run[(run["sample"] == 0) & (run["system"] == "bm25")].drop(columns=["sample", "system"])
    got = sqlndcg.exposure(run, items, target="uniform", browsing="dcg")
    want, _ = reference(run, items, target="uniform", browsing="dcg")
    assert_rows(got.per_query, want, 1)
    summary = {r["measure"]: r for r in got.summary.to_dicts()}
    assert list(summary) == ["exposure", "disparity_difference", "disparity_ratio", "awrf"]
    values = np.array([w["awrf"] for w in want.values()])
    n, mean, std = len(values), values.mean(), values.std(ddof=1)
    from scipy import stats
    half = stats.t.ppf(0.975, n - 1) * std / math.sqrt(n)
    assert (summary["awrf"]["queries"], summary["awrf"]["mean"], summary["awrf"]["std"]) == pytest.approx((n, mean, std), rel=1e-12)
    assert (summary["awrf"]["ci_low"], summary["awrf"]["ci_high"]) == pytest.approx((mean - half, mean + half), rel=1e-9)


def test_a_target_table_and_ee_means_leave_out_queries_without_relevant_documents():
    run, items, judged = make_data(11)
    target = pd.DataFrame({"provider": ["p0", "p1", "p2", "p3", "p9"], "share": [0.4, 0.3, 0.2, 0.05, 0.05]})
    got = sqlndcg.exposure(run, items, target=target, judgments=judged, group_by="system", sample="sample")
    want, _ = reference(run, items, target=target, judgments=judged, group_by=["system"], sample="sample")
    assert_rows(got.per_query, want, 2)
    ee = [r for r in got.summary.to_dicts() if r["measure"] == "ee_l" and r["system"] == "bm25"][0]
    values = [w["ee_l"] for key, w in want.items() if key[0] == "bm25" and w["ee_l"] is not None]
    assert ee["queries"] == len(values) == 5 and ee["mean"] == pytest.approx(np.mean(values), rel=1e-12)
    assert got.account.to_dicts() == [{"lists": 12, "rankings": int(run.groupby(["system", "query_id"])["sample"].nunique().sum()),
                                       "run_rows": len(run), "documents_without_item": 0, "judged_queries_not_in_run": 1}]


# -- the hand-computed example (docs/fairness.md) -----------------------------------------------------------------

EXAMPLE_RUN = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0]})
EXAMPLE_ITEMS = pd.DataFrame({"doc_id": ["a", "b", "c", "d"], "provider": ["x", "y", "x", "y"]})
EXAMPLE_QRELS = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "c"], "rel": [1, 2]})


def test_the_hand_computed_example_of_the_docs():
    res = sqlndcg.exposure(EXAMPLE_RUN, EXAMPLE_ITEMS, judgments=EXAMPLE_QRELS)
    row = res.per_query.to_dicts()[0]
    # weights 1, 1/2, 1/4, 1/8; x = a + c = 1.25, y = b + d = 0.625; shares 2/3, 1/3; means 0.625, 0.3125
    assert (row["exposure"], row["disparity_difference"], row["disparity_ratio"]) == (1.875, 0.3125, 0.5)
    p, t = np.array([2 / 3, 1 / 3]), np.array([0.5, 0.5])
    m = (p + t) / 2
    assert row["awrf"] == pytest.approx(1 - (np.sum(p * np.log2(p / m)) + np.sum(t * np.log2(t / m))) / 2, rel=1e-14)
    # target: c (rel 2) takes position 1 (1), a (rel 1) position 2 (1/2)
    assert (row["ee_d"], row["ee_r"], row["ee_l"]) == (1.328125, 0.75, 1.078125)
    text = DOCS.read_text(encoding="utf-8")
    for shown in ("1.875", "0.3125", "0.5", "0.979279", "1.328125", "0.75", "1.078125"):
        assert shown in text, shown
    assert round(row["awrf"], 6) == 0.979279


# -- properties ---------------------------------------------------------------------------------------------------

def test_a_ranking_alternating_groups_gives_them_near_equal_exposure():
    docs = [f"d{i:03d}" for i in range(200)]
    run = pd.DataFrame({"query_id": 1, "doc_id": docs, "score": [float(200 - i) for i in range(200)]})
    items = pd.DataFrame({"doc_id": docs, "provider": ["x", "y"] * 100})
    res = sqlndcg.exposure(run, items, p=0.99)
    shares = {r["provider"]: r["share"] for r in res.groups.to_dicts()}
    assert shares["x"] == pytest.approx(1 / 1.99, rel=1e-9) and abs(shares["x"] - 0.5) < 0.003
    assert res.per_query.to_dicts()[0]["disparity_ratio"] > 0.98
    assert res.per_query.to_dicts()[0]["awrf"] > 0.9999


def test_awrf_is_1_when_the_attention_matches_the_target():
    target = pd.DataFrame({"provider": ["x", "y"], "share": [1.25 / 1.875, 0.625 / 1.875]})
    row = sqlndcg.exposure(EXAMPLE_RUN, EXAMPLE_ITEMS, target=target).per_query.to_dicts()[0]
    assert row["awrf"] == pytest.approx(1, abs=1e-12)


def test_ee_l_is_0_for_the_ideal_stochastic_policy():
    # two equally relevant documents, each first in half the samples: both get (1 + p) / 2, the target
    run = pd.DataFrame({"query_id": 1, "sample": [1, 1, 2, 2], "doc_id": ["a", "b", "b", "a"], "score": [2.0, 1.0] * 2})
    items = pd.DataFrame({"doc_id": ["a", "b", "c"], "provider": ["x", "y", "y"]})
    qrels = pd.DataFrame({"query_id": 1, "doc_id": ["a", "b", "c"], "rel": [1, 1, 0]})
    row = sqlndcg.exposure(run, items, judgments=qrels, sample="sample", p=0.7).per_query.to_dicts()[0]
    assert row["ee_l"] == pytest.approx(0, abs=1e-15)
    assert row["ee_r"] == pytest.approx(row["ee_d"], rel=1e-14) == pytest.approx(2 * 0.85 ** 2, rel=1e-14)
    static = sqlndcg.exposure(run[run["sample"] == 1], items, judgments=qrels, p=0.7).per_query.to_dicts()[0]
    assert static["ee_l"] == pytest.approx(2 * 0.15 ** 2, rel=1e-12) and static["ee_d"] > row["ee_d"]


# -- errors -------------------------------------------------------------------------------------------------------

def test_a_run_document_without_an_item_is_an_error_or_unknown():
    items = EXAMPLE_ITEMS[EXAMPLE_ITEMS["doc_id"] != "d"]
    with pytest.raises(sqlndcg.DataError, match=r"1 document\(s\) of the run have no row \(e.g. 'd'\).*missing='unknown'"):
        sqlndcg.exposure(EXAMPLE_RUN, items)
    res = sqlndcg.exposure(EXAMPLE_RUN, items, missing="unknown")
    assert [(r["provider"], r["documents"], r["target_share"]) for r in res.groups.to_dicts()] == [
        ("(unknown)", 1, 0), ("x", 2, 2 / 3), ("y", 1, 1 / 3)]
    assert res.account.to_dicts()[0]["documents_without_item"] == 1


@pytest.mark.parametrize("given, match", [
    ({"p": 0}, "strictly between 0 and 1"), ({"p": 1}, "strictly between 0 and 1"), ({"p": True}, "p \\(the RBP"),
    ({"browsing": "cascade"}, "browsing must be"), ({"k": 0}, "k \\(the cutoff\\)"), ({"missing": "drop"}, "missing must"),
    ({"ties": "rank"}, "ties must be"), ({"id_order": "bytes"}, "id_order must"),
    ({"target": "population"}, "target"), ({"group_column": "owner"}, "items .*no group column 'owner'"),
    ({"sample": "draw"}, "run .*no sample column 'draw'"), ({"colour": 1}, "unexpected keyword argument 'colour'"),
])
def test_bad_settings_are_refused(given, match):
    with pytest.raises((sqlndcg.SettingError, sqlndcg.InputError, TypeError), match=match):
        sqlndcg.exposure(EXAMPLE_RUN, EXAMPLE_ITEMS, **given)


def test_bad_inputs_are_refused():
    with pytest.raises(sqlndcg.DataError, match="sum to 1, they sum to 0.9"):
        sqlndcg.exposure(EXAMPLE_RUN, EXAMPLE_ITEMS, target=pd.DataFrame({"provider": ["x", "y"], "share": [0.5, 0.4]}))
    with pytest.raises(sqlndcg.DataError, match="0 or more"):
        sqlndcg.exposure(EXAMPLE_RUN, EXAMPLE_ITEMS, target=pd.DataFrame({"provider": ["x", "y"], "share": [1.5, -0.5]}))
    with pytest.raises(sqlndcg.DataError, match="documents occur more than once"):
        sqlndcg.exposure(EXAMPLE_RUN, pd.concat([EXAMPLE_ITEMS, EXAMPLE_ITEMS.head(1)]))
    with pytest.raises(sqlndcg.DataError, match="once"):
        sqlndcg.exposure(pd.concat([EXAMPLE_RUN, EXAMPLE_RUN.head(1)]), EXAMPLE_ITEMS)
    with pytest.raises(sqlndcg.DataError, match="NULL"):
        sqlndcg.exposure(EXAMPLE_RUN, EXAMPLE_ITEMS.assign(provider=["x", None, "x", "y"]))


# -- the command line ---------------------------------------------------------------------------------------------

def test_the_cli_prints_what_the_verb_returns(tmp_path, capsys):
    run, items, judged = make_data(5)
    run.to_csv(tmp_path / "run.csv", index=False)
    items.to_csv(tmp_path / "items.csv", index=False)
    judged.to_csv(tmp_path / "qrels.csv", index=False)
    assert main(["exposure", "--run", str(tmp_path / "run.csv"), "--items", str(tmp_path / "items.csv"),
                 "--judgments", str(tmp_path / "qrels.csv"), "--sample-column", "sample", "--group-by", "system",
                 "--browsing", "dcg", "-k", "5", "--table", "summary", "--format", "csv"]) == 0
    got = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    want = sqlndcg.exposure(run, items, judgments=judged, sample="sample", group_by="system", browsing="dcg", k=5)
    assert len(got) == len(want.summary.rows) == 14
    assert got["mean"].tolist() == pytest.approx([r["mean"] for r in want.summary.to_dicts()], rel=1e-12)
    assert main(["exposure", "--run", str(tmp_path / "run.csv"), "--items", str(tmp_path / "items.csv"),
                 "--p", "1.5"]) == 2
    assert "strictly between 0 and 1" in capsys.readouterr().err


# -- every engine ---------------------------------------------------------------------------------------------------

def _calls(run, items, judged, target, **kw):
    both = dict(judgments=judged, group_by="system", sample="sample", **kw)
    return {
        "rbp": lambda: sqlndcg.exposure(run, items, **both),
        "dcg@3 target": lambda: sqlndcg.exposure(run, items, browsing="dcg", k=3, target=target, ties="average", **both),
        "trec_fair uniform": lambda: sqlndcg.exposure(run, items, browsing="trec_fair", target="uniform", **both),
    }


def check_engine(con, load, label: str) -> None:
    import test_click_engines as ce

    target = pd.DataFrame({"provider": ["p0", "p1", "p2", "p3"], "share": [0.25, 0.25, 0.25, 0.25]})
    for integer_ids in (False, True):
        run, items, judged = make_data(9, integer_ids)
        ids = "int" if integer_ids else "text"
        there = [load(con, f"exp_{name}_{ids}", frame) for name, frame in
                 (("run", run), ("items", items), ("judged", judged), ("target", target))]
        here = _calls(run, items, judged, target)
        for name, call in _calls(*there, con=con).items():
            got, want = call(), here[name]()
            for table in ("per_query", "groups", "summary", "account"):
                ce.assert_same(getattr(got, table), getattr(want, table), f"{label} {ids} ids, {name}, {table}")


def test_sqlite_equals_duckdb():
    check_engine(sqlite3.connect(":memory:"), lambda con, name, frame: frame, "SQLite")


def test_clickhouse_equals_duckdb():
    from chdb import dbapi

    import test_click_engines as ce

    check_engine(dbapi.connect(), ce.load_clickhouse, "ClickHouse")


def test_datafusion_equals_duckdb():
    import datafusion

    check_engine(datafusion.SessionContext(), lambda con, name, frame: frame, "DataFusion")


def test_postgres_equals_duckdb(postgres):
    with postgres.connect() as con:
        check_engine(con, lambda con, name, frame: frame, "PostgreSQL")


def test_spark_equals_duckdb(spark):
    def load(con, name, frame):
        spark.createDataFrame(frame).createOrReplaceTempView(name)
        return name

    check_engine(spark, load, "Spark")


def test_mariadb_equals_duckdb(mariadb):
    con = mariadb.connect()
    try:
        check_engine(con, lambda con, name, frame: frame, "MariaDB")
    finally:
        con.close()


def test_snowflake_on_fakesnow_equals_duckdb(fakesnow):
    from snowflake_tables import load_snowflake

    check_engine(fakesnow, load_snowflake, "Snowflake (fakesnow)")
