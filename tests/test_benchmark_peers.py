"""The benchmarks' hand-written peers (benchmarks/compare_peers.py: lazy polars, DuckDB SQL) compute sqlndcg's
default definitions on the cases a random data set never has, so a speed ratio against them compares equal work."""

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import compare_peers  # noqa: E402

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
import sqlndcg  # noqa: E402

# (query, doc, score): q1 has tied scores (broken by doc id descending) and 12 documents; q3 has no judgments;
# q5 is a list of 3. Judgments: q1 graded 0..3 with a negative label and an unretrieved relevant document; q2 is
# judged but missing from the run (scores 0); q4 is judged all 0 (IDCG 0: scores 0).
RUN = ([(1, d, s) for d, s in [(101, 0.9), (102, 0.9), (103, 0.8), (104, 0.8), (105, 0.7), (106, 0.6), (107, 0.5),
                               (108, 0.4), (109, 0.3), (110, 0.2), (111, 0.1), (112, 0.05)]]
       + [(3, 301, 0.5), (3, 302, 0.4), (4, 401, 0.3), (4, 402, 0.2)]
       + [(5, 501, 0.9), (5, 502, 0.5), (5, 503, 0.1)])
JUDGMENTS = ([(1, 101, 1), (1, 102, 3), (1, 104, 2), (1, 105, -1), (1, 111, 2), (1, 199, 3)]
             + [(2, 201, 2), (4, 401, 0)] + [(5, 501, 2), (5, 502, 0), (5, 503, 1), (5, 599, 3)])
METRICS = ["ndcg@10", "ndcg@3", "p@5", "ap", "rr", "p@1"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    where = tmp_path_factory.mktemp("peers")
    run, judgments = where / "run.parquet", where / "judgments.parquet"
    q, d, s = zip(*RUN)
    pq.write_table(pa.table({"query_id": pa.array(q, pa.int64()), "doc_id": pa.array(d, pa.int64()),
                             "score": pa.array(s, pa.float64())}), run)
    q, d, r = zip(*JUDGMENTS)
    pq.write_table(pa.table({"query_id": pa.array(q, pa.int64()), "doc_id": pa.array(d, pa.int64()),
                             "rel": pa.array(r, pa.int32())}), judgments)
    return str(run), str(judgments)


def _by_query(table, metrics):
    rows = table.to_pylist()
    return {row["query_id"]: {m: row[m] for m in metrics} for row in rows}


@pytest.fixture(scope="module")
def reference(files):
    return _by_query(sqlndcg.evaluate(*files, METRICS).per_query.to_arrow(), METRICS)


def test_the_reference_holds_the_hand_computed_values(reference):
    """q5: gains 3, 0, 1 at positions 1-3; the ideal 7, 3, 1 (the unretrieved grade 3 first)."""
    idcg = 7 + 3 / math.log2(3) + 1 / 2
    assert reference[5]["ndcg@10"] == pytest.approx((3 + 1 / 2) / idcg, abs=1e-15)
    assert reference[5]["p@5"] == pytest.approx(0.4) and reference[5]["rr"] == 1.0
    assert reference[5]["ap"] == pytest.approx((1 + 2 / 3) / 3, abs=1e-15)
    assert reference[2] == {m: 0.0 for m in METRICS} and reference[4] == {m: 0.0 for m in METRICS}
    assert set(reference) == {1, 2, 4, 5}  # q3 has no judgments: not scored


def test_the_polars_peer_equals_sqlndcg_on_every_query(files, reference):
    got = _by_query(compare_peers.polars_frame(*files, METRICS).collect().to_arrow(), METRICS)
    assert got.keys() == reference.keys()
    for query, values in reference.items():
        assert got[query] == pytest.approx(values, abs=1e-12), query


def test_the_duckdb_peer_equals_sqlndcg_on_every_query(files, reference):
    cutoffs = ["ndcg@10", "ndcg@3", "p@5", "p@1"]
    sql = compare_peers.duckdb_sql(*files, cutoffs)
    got = _by_query(duckdb.connect().sql(sql).to_arrow_table(), cutoffs)
    assert got.keys() == reference.keys()
    for query, values in reference.items():
        assert got[query] == pytest.approx({m: values[m] for m in cutoffs}, abs=1e-12), query


def test_the_duckdb_peer_refuses_what_it_does_not_compute(files):
    with pytest.raises(SystemExit, match="ndcg@k and p@k only"):
        compare_peers.duckdb_sql(*files, ["ndcg@10", "ap"])
