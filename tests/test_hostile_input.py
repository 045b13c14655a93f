"""Hostile input: every one either gives numbers that are exactly right, or a clear sqlndcg error.

"Clear" means: a subclass of sqlndcg.SqlndcgError (never a raw duckdb, sqlglot or Python exception from deep
inside), a message that names the input and the column, for row problems an offending value, and stays short
even when the offending value is a 10,000-character id. Names that look like SQL never run as SQL: a canary
table must still exist, with its rows, after every evaluation that saw them.
"""

from __future__ import annotations

import math
import random
import re

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

import sqlndcg
from reference_impl import reference_evaluate
from sqlndcg import DataError, EmptyQueryError, InputError, Metric, MetricError, SettingError, SqlndcgError

TOL = 1e-9
SHORT = 1000  # characters an error message may take, whatever the input
LONG_ID = "x" * 9_990 + "-long-id"  # 10,000 characters
CANARY_ROWS = [(1, "tweet"), (2, "chirp"), (3, "song")]
INJECTION = 'x"; DROP TABLE canary; --'


# ----------------------------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------------------------


def q(name: str) -> str:
    """A DuckDB identifier, quoted by hand (independently of the package's quoting)."""
    return '"' + name.replace('"', '""') + '"'


@pytest.fixture
def con():
    """A connection holding a canary table that no evaluation may touch."""
    c = duckdb.connect()
    c.execute("CREATE TABLE canary (id INTEGER, note VARCHAR)")
    c.executemany("INSERT INTO canary VALUES (?, ?)", CANARY_ROWS)
    yield c
    c.close()


def assert_canary_alive(c):
    assert c.execute("SELECT id, note FROM canary ORDER BY id").fetchall() == CANARY_ROWS


def create_table(c, name: str, columns: dict[str, str], rows: list[tuple]):
    c.execute(f"CREATE TABLE {q(name)} ({', '.join(f'{q(col)} {typ}' for col, typ in columns.items())})")
    if rows:
        c.executemany(f"INSERT INTO {q(name)} VALUES ({', '.join('?' for _ in columns)})", rows)


def run_frame(rows, score_type=None, id_type=None):
    """rows: (query, doc, score)."""
    score_type = pa.float64() if score_type is None else score_type
    id_type = pa.string() if id_type is None else id_type
    return pa.table({
        "query_id": pa.array([r[0] for r in rows], id_type),
        "doc_id": pa.array([r[1] for r in rows], id_type),
        "score": pa.array([r[2] for r in rows], score_type),
    })


def judgment_frame(rows, rel_type=None, id_type=None):
    """rows: (query, doc, rel)."""
    rel_type = pa.float64() if rel_type is None else rel_type
    id_type = pa.string() if id_type is None else id_type
    return pa.table({
        "query_id": pa.array([r[0] for r in rows], id_type),
        "doc_id": pa.array([r[1] for r in rows], id_type),
        "rel": pa.array([r[2] for r in rows], rel_type),
    })


def name_of(kind, k=None):
    return kind if k is None else f"{kind}@{k}"


def assert_reference(res, run_rows, judgment_rows, keys, *, query_col="query_id", group_col=None, **settings):
    """res's per-query values equal the reference's for (group, query, doc, score) run rows, to 1e-9."""
    want = reference_evaluate(run_rows, judgment_rows, keys, **settings)
    got = {}
    for row in res.per_query.to_dicts():
        got[(row[group_col] if group_col else (), row[query_col])] = row
    assert got.keys() == want.keys()
    for key, values in want.items():
        for (kind, k, _rel), v in values.items():
            g = got[key][name_of(kind, k)]
            assert (g is None and v is None) or math.isclose(g, v, rel_tol=TOL, abs_tol=TOL), (key, kind, k, g, v)


def error_of(call, kind=SqlndcgError):
    """The error `call` raises: must be the given sqlndcg error type (and so never a raw library exception)."""
    with pytest.raises(Exception) as info:
        call()
    err = info.value
    assert isinstance(err, SqlndcgError), f"raw {type(err).__module__}.{type(err).__name__} escaped: {err}"
    assert isinstance(err, kind), f"expected {kind.__name__}, got {type(err).__name__}: {err}"
    return str(err)


ALL_KEYS = [(kind, k, None) for kind in ("ndcg", "dcg", "idcg", "cg", "p", "r", "ap", "rr", "hit", "judged")
            for k in (1, 2, 3, 5, None)]
ALL_NAMES = [name_of(kind, k) for kind, k, _ in ALL_KEYS]
ADDITIVE_KEYS = [m for m in ALL_KEYS if m[0] not in ("ap", "rr", "hit")]
ADDITIVE_NAMES = [name_of(kind, k) for kind, k, _ in ADDITIVE_KEYS]


# ----------------------------------------------------------------------------------------------------------------
# table and column names
# ----------------------------------------------------------------------------------------------------------------

RUN_ROWS = [("q1", "a", 3.0, "sys 1"), ("q1", "b", 2.0, "sys 1"), ("q1", "c", 2.0, "sys 1"), ("q1", "d", 1.0, "sys 1"),
            ("q2", "a", 1.0, "sys 1"), ("q1", "c", 5.0, "sys'2"), ("q1", "a", 4.0, "sys'2"), ("q3", "z", 1.0, "sys'2")]
JUDGMENT_ROWS = [("q1", "a", 1.0), ("q1", "b", 0.0), ("q1", "c", 3.0), ("q1", "e", 2.0), ("q2", "b", 1.0),
                 ("q4", "a", 2.0)]

NAME_CASES = {
    "injection": (INJECTION, "j'; DROP TABLE canary; --",
                  dict(query_id="select", doc_id='doc"id', score="scöre", rel="rel; DROP TABLE canary; --",
                       group_by="from")),
    "keywords": ("SELECT", "from",
                 dict(query_id="where", doc_id="order", score="group", rel="table", group_by="by")),
    "spaces and unicode": ("my run table", "tàblé ü 表",
                           dict(query_id=" query id ", doc_id="doc id\t", score="scöre ✓", rel="rél",
                                group_by="sys tem")),
    "quotes only": ('"', "'", dict(query_id='"', doc_id="'", score='""', rel="''", group_by='"\'"')),
    "dots and comments": ("a.b", "c.d.e", dict(query_id="--", doc_id="/*", score="*/", rel="a.b", group_by=";")),
}


@pytest.mark.parametrize("case", list(NAME_CASES))
def test_hostile_table_and_column_names_give_right_numbers_and_run_nothing(con, case):
    run_name, judgments_name, cols = NAME_CASES[case]
    create_table(con, run_name, {cols["query_id"]: "VARCHAR", cols["doc_id"]: "VARCHAR", cols["score"]: "DOUBLE",
                                 cols["group_by"]: "VARCHAR"}, RUN_ROWS)
    create_table(con, judgments_name, {cols["query_id"]: "VARCHAR", cols["doc_id"]: "VARCHAR",
                                       cols["rel"]: "DOUBLE"}, JUDGMENT_ROWS)
    res = sqlndcg.evaluate(run_name, judgments_name, ALL_NAMES, con=con, **cols)
    assert list(res.per_query.columns[:2]) == [cols["group_by"], cols["query_id"]]
    assert_reference(res, [(g, qq, d, s) for qq, d, s, g in RUN_ROWS], JUDGMENT_ROWS, ALL_KEYS,
                     query_col=cols["query_id"], group_col=cols["group_by"])
    assert [a["run_rows"] for a in res.account.to_dicts()] == [5, 3]
    assert_canary_alive(con)
    # the inputs are untouched, and the SQL to_sql gives for the same names runs to the same numbers
    assert con.execute(f"SELECT COUNT(*) FROM {q(run_name)}").fetchone() == (len(RUN_ROWS),)
    assert con.execute(f"SELECT COUNT(*) FROM {q(judgments_name)}").fetchone() == (len(JUDGMENT_ROWS),)
    sql = sqlndcg.to_sql(run_name, judgments_name, ALL_NAMES, con=con, **cols)
    cur = con.execute(sql)
    assert [tuple(r) for r in cur.fetchall()] == [tuple(r) for r in res.per_query.rows]
    assert_canary_alive(con)


def test_hostile_column_names_in_a_data_frame(con):
    run = pd.DataFrame({"select": [r[0] for r in RUN_ROWS], 'doc"id': [r[1] for r in RUN_ROWS],
                        "scöre": [r[2] for r in RUN_ROWS], INJECTION: [r[3] for r in RUN_ROWS]})
    judgments = pd.DataFrame({"from": [r[0] for r in JUDGMENT_ROWS], "doc'id": [r[1] for r in JUDGMENT_ROWS],
                              "rel; --": [r[2] for r in JUDGMENT_ROWS]})
    res = sqlndcg.evaluate(run, judgments, ALL_NAMES, query_id="select", doc_id='doc"id', score="scöre",
                           rel="rel; --", judgments_query_id="from", judgments_doc_id="doc'id",
                           group_by=[INJECTION], con=con)
    assert_reference(res, [(g, qq, d, s) for qq, d, s, g in RUN_ROWS], JUDGMENT_ROWS, ALL_KEYS,
                     query_col="select", group_col=INJECTION)
    assert_canary_alive(con)


def test_hostile_group_values_and_hostile_file_paths(con, tmp_path):
    folder = tmp_path / "it's a \"dir\"; DROP TABLE canary; --"
    folder.mkdir()
    run_csv = folder / "run'); DROP TABLE canary; --.csv"
    run_csv.write_text("query_id,doc_id,score\nq1,a,1.0\nq1,b,2.0\nq1,c,0.5\n")
    qrels = folder / "qrels'\"; --.qrels"
    qrels.write_text("q1 0 a 2\nq1 0 c 1\n")
    res = sqlndcg.evaluate(str(run_csv), str(qrels), ALL_NAMES, con=con)
    assert_reference(res, [((), "q1", "a", 1.0), ((), "q1", "b", 2.0), ((), "q1", "c", 0.5)],
                     [("q1", "a", 2), ("q1", "c", 1)], ALL_KEYS)
    parquet = folder / "x'.parquet"
    con.execute(f"COPY (SELECT * FROM read_csv('{str(run_csv).replace(chr(39), chr(39) * 2)}')) TO "
                f"'{str(parquet).replace(chr(39), chr(39) * 2)}' (FORMAT parquet)")
    res2 = sqlndcg.evaluate(parquet, str(qrels), ALL_NAMES, con=con)
    assert res2.per_query.rows == res.per_query.rows
    assert_canary_alive(con)


def test_table_name_that_exists_nowhere_is_a_clear_error(con):
    msg = error_of(lambda: sqlndcg.evaluate(INJECTION, "also missing", ["ndcg@3"], con=con), InputError)
    assert INJECTION in msg and "run" in msg
    assert_canary_alive(con)


# ----------------------------------------------------------------------------------------------------------------
# ids
# ----------------------------------------------------------------------------------------------------------------

HOSTILE_IDS = ["it's", 'say "hi"', "tab\there", "new\nline", "cr\rlf", "", " ", "a", "a ", "A", "é", "e\u0301",
               "NULL", "null", "back\\slash", "semi;colon -- comment", "\x00nul", "🙂", LONG_ID, LONG_ID + "2"]


@pytest.mark.parametrize("ties", ["doc_id", "average"])
@pytest.mark.parametrize("short_lists", ["pad", "truncate"])
def test_hostile_ids_give_the_reference_numbers(ties, short_lists):
    """Quotes, tabs, newlines, NUL, empty and blank strings, case and accent variants, 10,000-character ids:
    all kept apart, matched exactly, and tie-broken in byte order (scores come in ties of up to 4)."""
    rng = random.Random(7)
    queries = ["", "q'\"\n", LONG_ID]
    run, judgments = [], []
    for qi, query in enumerate(queries):
        for i, doc in enumerate(HOSTILE_IDS):
            if (i + qi) % 5 != 4:
                run.append(((), query, doc, float((i * 7 + qi) % 5)))
            if (i + qi) % 3 != 2:
                judgments.append((query, doc, rng.choice([-1, 0, 1, 2, 3])))
    keys = ALL_KEYS if ties == "doc_id" else ADDITIVE_KEYS
    names = ALL_NAMES if ties == "doc_id" else ADDITIVE_NAMES
    res = sqlndcg.evaluate(run_frame([r[1:] for r in run]), judgment_frame(judgments), names, ties=ties,
                           short_lists=short_lists)
    assert_reference(res, run, judgments, keys, ties=ties, short_lists=short_lists)
    assert sorted(res.per_query.column("query_id")) == sorted(queries)


def test_hostile_ids_through_a_duckdb_table_and_a_pandas_frame(con):
    run = [("q\t1", d, float(i % 3)) for i, d in enumerate(HOSTILE_IDS)]
    judgments = [("q\t1", d, float(i % 4) - 1) for i, d in enumerate(HOSTILE_IDS) if i % 2 == 0]
    create_table(con, "hostile run", {"query_id": "VARCHAR", "doc_id": "VARCHAR", "score": "DOUBLE"}, run)
    from_table = sqlndcg.evaluate("hostile run", pd.DataFrame(judgments, columns=["query_id", "doc_id", "rel"]),
                                  ALL_NAMES, con=con)
    assert_reference(from_table, [((),) + r for r in run], judgments, ALL_KEYS)
    assert_canary_alive(con)


def test_integer_ids_tie_break_numerically_even_at_the_int64_extremes():
    docs = [-2**63, -1, 0, 9, 10, 2**53 + 1, 2**63 - 1]
    run = [(2**63 - 1, d, 1.0) for d in docs]  # one big tie: doc id descending, numerically
    judgments = [(2**63 - 1, 9, 3.0), (2**63 - 1, 2**63 - 1, 1.0), (2**63 - 1, -2**63, 2.0)]
    res = sqlndcg.evaluate(run_frame(run, id_type=pa.int64()), judgment_frame(judgments, id_type=pa.int64()),
                           ALL_NAMES)
    assert_reference(res, [((),) + r for r in run], judgments, ALL_KEYS)
    assert res.per_query.column("rr@1") == [1.0]  # 2**63 - 1 is first, and it is relevant
    assert res.per_query.column("query_id") == [2**63 - 1]


def test_integer_ids_against_text_ids_join_as_text_and_tie_in_the_runs_own_order():
    """Run ids are integers, judgment ids text: they are joined as text, so 1 matches '1'; in a tie the run's
    integer doc ids keep their own (numeric) order, 10 above 9, as SEMANTICS.md says (issue 28: each id column's
    order follows its own type)."""
    run = run_frame([(1, 9, 1.0), (1, 10, 1.0)], id_type=pa.int64())
    judgments = judgment_frame([("1", "10", 1.0)])
    res = sqlndcg.evaluate(run, judgments, ["rr", "ndcg@1", "p@2"])
    assert res.per_query.to_dicts() == [{"query_id": "1", "rr": 1.0, "ndcg@1": 1.0, "p@2": 0.5}]
    trec = sqlndcg.evaluate(run, judgments, ["rr", "ndcg@1", "p@2"], preset="trec_eval")
    assert trec.per_query.to_dicts() == [{"query_id": "1", "rr": 0.5, "ndcg@1": 0.0, "p@2": 0.5}]


# ----------------------------------------------------------------------------------------------------------------
# scores
# ----------------------------------------------------------------------------------------------------------------

JUDGED = [("q", "a", 1.0), ("q", "b", 2.0), ("q", "c", 3.0)]


def test_nan_score_in_pandas_is_a_clear_error():
    run = pd.DataFrame({"query_id": ["q", "q", "q"], "doc_id": ["a", "bad-doc", "c"], "score": [1.0, math.nan, 0.0]})
    msg = error_of(lambda: sqlndcg.evaluate(run, judgment_frame(JUDGED), ["ndcg@3"]), DataError)
    assert msg.startswith("run") and "'score'" in msg and "'bad-doc'" in msg and "NaN" in msg


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf], ids=["nan", "+inf", "-inf"])
def test_non_finite_score_is_a_clear_error(bad):
    run = run_frame([("q", "a", 1.0), ("q", "bad-doc", bad), ("q", "c", 0.0)])
    msg = error_of(lambda: sqlndcg.evaluate(run, judgment_frame(JUDGED), ["ndcg@3"]), DataError)
    assert msg.startswith("run") and "'score'" in msg and "'bad-doc'" in msg
    assert ("nan" if math.isnan(bad) else repr(bad)) in msg  # the offending value itself


def test_null_score_in_a_duckdb_table_is_a_clear_error(con):
    create_table(con, "run", {"query_id": "VARCHAR", "doc_id": "VARCHAR", "score": "DOUBLE"},
                 [("q", "a", 1.0), ("q", "no-score", None)])
    msg = error_of(lambda: sqlndcg.evaluate("run", judgment_frame(JUDGED), ["ndcg@3"], con=con), DataError)
    assert "run table 'run'" in msg and "'score'" in msg and "'no-score'" in msg


@pytest.mark.parametrize(
    "scores",
    [
        [1e308, 1.7976931348623157e308, -1e308, -1.7976931348623157e308],
        [5e-324, 0.0, -5e-324, 1e-320],
        [1e308, 5e-324, -5e-324, -1e308],
        [1.0, 1.0 + 2**-52, 1.0 - 2**-53, 1.0],  # neighbours one ulp apart, and a tie
        [0.0, -0.0, 0.0, 1.0],  # -0.0 == 0.0: a tie, broken by doc id
    ],
    ids=["huge", "tiny", "huge and tiny", "one ulp", "signed zero"],
)
@pytest.mark.parametrize("ties", ["doc_id", "average"])
def test_extreme_score_magnitudes_rank_exactly(scores, ties):
    run = [((), "q", d, s) for d, s in zip("abcd", scores)]
    judgments = [("q", "a", 1.0), ("q", "b", 3.0), ("q", "c", 2.0), ("q", "d", 0.5)]
    keys = ALL_KEYS if ties == "doc_id" else ADDITIVE_KEYS
    names = ALL_NAMES if ties == "doc_id" else ADDITIVE_NAMES
    res = sqlndcg.evaluate(run_frame([r[1:] for r in run]), judgment_frame(judgments), names, ties=ties)
    assert_reference(res, run, judgments, keys, ties=ties)


def test_huge_integer_scores_keep_their_order():
    """int64 scores above 2**53 are distinct numbers; casting them to DOUBLE makes 2**53 + 1 and 2**53 equal and
    hands the order to the doc-id tie-break. The document with the higher score must come first."""
    run = run_frame([("q", "a", 2**53 + 1), ("q", "b", 2**53)], score_type=pa.int64())
    judgments = judgment_frame([("q", "a", 1.0)])
    res = sqlndcg.evaluate(run, judgments, ["rr", "ndcg@1", "p@1"])
    assert res.per_query.to_dicts() == [{"query_id": "q", "rr": 1.0, "ndcg@1": 1.0, "p@1": 1.0}]


# ----------------------------------------------------------------------------------------------------------------
# labels
# ----------------------------------------------------------------------------------------------------------------

ORDER = [("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0), ("q", "d", 0.0)]  # run order a, b, c, d


def _dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


@pytest.mark.parametrize("gain", ["exponential", "linear"])
def test_fractional_labels(gain):
    labels = {"a": 0.5, "b": 2.5, "c": 1.5, "e": 0.25}  # e: judged, not retrieved
    g = (lambda r: 2.0 ** r - 1) if gain == "exponential" else (lambda r: r)
    res = sqlndcg.evaluate(run_frame(ORDER), judgment_frame([("q", d, r) for d, r in labels.items()]),
                           ["dcg@3", "idcg@3", "ndcg@3", "cg@3", "p@3", "r@3", "ap", "rr"], gain=gain)
    row = res.per_query.to_dicts()[0]
    dcg = _dcg([g(0.5), g(2.5), g(1.5)])
    idcg = _dcg([g(2.5), g(1.5), g(0.5)])
    assert row["dcg@3"] == pytest.approx(dcg, abs=TOL)
    assert row["idcg@3"] == pytest.approx(idcg, abs=TOL)
    assert row["ndcg@3"] == pytest.approx(dcg / idcg, abs=TOL)
    assert row["cg@3"] == pytest.approx(4.5, abs=TOL)
    assert row["p@3"] == pytest.approx(2 / 3, abs=TOL)  # b and c are >= 1 (the default threshold)
    assert row["r@3"] == pytest.approx(1.0, abs=TOL)
    assert row["ap"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=TOL)
    assert row["rr"] == pytest.approx(0.5, abs=TOL)


def test_a_decimal_label_that_a_double_rounds_is_refused_not_read_as_relevant():
    """Issue 28: a DECIMAL(38,30) label 0.999... (30 nines) was cast to DOUBLE first, read 1.0, and counted as
    relevant at threshold 1. Labels a double changes are refused by name; decimals a double keeps are read."""
    con = duckdb.connect()
    con.execute("CREATE TABLE run AS SELECT 'q' AS query_id, 'a' AS doc_id, 1.0 AS score")
    con.execute("CREATE TABLE qrels (query_id VARCHAR, doc_id VARCHAR, rel DECIMAL(38,30))")
    con.execute("INSERT INTO qrels VALUES ('q', 'a', 0.999999999999999999999999999999)")
    with pytest.raises(sqlndcg.DataError, match=r"judgments table 'qrels': column 'rel' is a DECIMAL\(38,30\) that a "
                                                 r"double rounds to another number .* in 1 row\(s\), e.g. \(query_id='q'"):
        sqlndcg.evaluate("run", "qrels", ["p@1"], con=con)
    con.execute("CREATE TABLE qrels_kept (query_id VARCHAR, doc_id VARCHAR, rel DECIMAL(4,1))")
    con.execute("INSERT INTO qrels_kept VALUES ('q', 'a', 0.9), ('q', 'b', 2.5)")
    row = sqlndcg.evaluate("run", "qrels_kept", ["p@1", "dcg@2"], con=con, gain="linear").per_query.to_dicts()[0]
    assert row == {"query_id": "q", "p@1": 0.0, "dcg@2": pytest.approx(0.9, abs=TOL)}


@pytest.mark.parametrize("gain", ["exponential", "linear"])
def test_negative_labels_have_no_gain_and_are_not_judged(gain):
    labels = [("q", "a", -1.0), ("q", "b", 2.0), ("q", "c", -2.5), ("q", "e", -1.0), ("only-negative", "a", -1.0)]
    run = run_frame(ORDER + [("only-negative", "a", 1.0)])
    res = sqlndcg.evaluate(run, judgment_frame(labels), ["dcg@3", "idcg@3", "ndcg@3", "cg@3", "p@3", "judged@3",
                                                         "ap", "rr"], gain=gain, empty="skip")
    rows = {r["query_id"]: r for r in res.per_query.to_dicts()}
    g2 = 3.0 if gain == "exponential" else 2.0
    assert rows["q"] == pytest.approx({"query_id": "q", "dcg@3": g2 / math.log2(3), "idcg@3": g2,
                                       "ndcg@3": 1 / math.log2(3), "cg@3": 2.0, "p@3": 1 / 3, "judged@3": 1 / 3,
                                       "ap": 0.5, "rr": 0.5}, abs=TOL)
    assert rows["only-negative"] == {"query_id": "only-negative", "dcg@3": 0.0, "idcg@3": 0.0, "ndcg@3": None,
                                     "cg@3": 0.0, "p@3": 0.0, "judged@3": 0.0, "ap": None, "rr": 0.0}
    account = res.account.to_dicts()[0]
    assert account["retrieved_unjudged"] == 4  # a and c judged -1/-2.5, d unjudged, a of "only-negative"


def test_label_2000_with_exponential_gain_is_a_clear_error():
    judgments = judgment_frame([("q", "a", 1.0), ("q", "huge-label", 2000.0)])
    msg = error_of(lambda: sqlndcg.evaluate(run_frame(ORDER), judgments, ["ndcg@3"]), DataError)
    assert msg.startswith("judgments") and "'rel'" in msg and "'huge-label'" in msg and "2000" in msg
    assert "exponential" in msg or "2^rel" in msg


def test_label_2000_with_linear_gain_is_fine():
    judgments = [("q", "a", 1.0), ("q", "b", 2000.0), ("q", "e", 3.0)]
    res = sqlndcg.evaluate(run_frame(ORDER), judgment_frame(judgments), ["dcg@3", "idcg@3", "ndcg@3", "cg@3"],
                           gain="linear")
    row = res.per_query.to_dicts()[0]
    assert row["dcg@3"] == pytest.approx(1 + 2000 / math.log2(3), abs=TOL)
    assert row["idcg@3"] == pytest.approx(2000 + 3 / math.log2(3) + 1 / 2, abs=TOL)
    assert row["ndcg@3"] == pytest.approx(row["dcg@3"] / row["idcg@3"], abs=TOL)
    assert row["cg@3"] == 2001.0


def test_label_1000_is_the_exponential_limit_and_exact():
    judgments = [("q", "a", 1000.0), ("q", "b", 999.0), ("q", "c", 1000.0)]
    res = sqlndcg.evaluate(run_frame(ORDER), judgment_frame(judgments), ["dcg@3", "idcg@3", "ndcg@3"])
    row = res.per_query.to_dicts()[0]
    big, less = 2.0 ** 1000 - 1, 2.0 ** 999 - 1
    assert row["dcg@3"] == pytest.approx(_dcg([big, less, big]), rel=TOL)
    assert row["idcg@3"] == pytest.approx(_dcg([big, big, less]), rel=TOL)
    assert row["ndcg@3"] == pytest.approx(_dcg([big, less, big]) / _dcg([big, big, less]), rel=TOL)


@pytest.mark.parametrize(
    "gain, labels",
    [("linear", [1e308, 1e308, 1e308]), ({1: 1e308, 2: 1e308}, [1, 2, 2])],
    ids=["linear 1e308", "gain map 1e308"],
)
def test_gains_whose_sum_overflows_are_an_error_not_nan(gain, labels):
    """Each gain is finite, but their (discounted) sum is not: the numbers cannot be right, so they must not be
    returned as inf or NaN; a clear error is the only acceptable outcome."""
    judgments = judgment_frame([("q", d, float(r)) for d, r in zip("abc", labels)])
    names = ["ndcg@3", "dcg@3", "idcg@3", "cg@3"]
    try:
        res = sqlndcg.evaluate(run_frame(ORDER), judgments, names, gain=gain)
    except SqlndcgError as err:
        assert "'rel'" in str(err) or "gain" in str(err)
        return
    bad = {n: v for n, v in res.per_query.to_dicts()[0].items() if isinstance(v, float) and not math.isfinite(v)}
    assert not bad, f"non-finite numbers returned instead of an error: {bad}"


def test_fractional_label_outside_a_gain_map_is_a_clear_error():
    judgments = judgment_frame([("q", "a", 1.0), ("q", "half-grade", 1.5)])
    msg = error_of(lambda: sqlndcg.evaluate(run_frame(ORDER), judgments, ["ndcg@3"], gain={1: 1, 2: 3}), DataError)
    assert msg.startswith("judgments") and "'rel'" in msg and "'half-grade'" in msg and "1.5" in msg


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf], ids=["nan", "+inf", "-inf"])
def test_non_finite_label_is_a_clear_error(bad):
    judgments = judgment_frame([("q", "a", 1.0), ("q", "bad-label", bad)])
    msg = error_of(lambda: sqlndcg.evaluate(run_frame(ORDER), judgments, ["ndcg@3"], gain="linear"), DataError)
    assert msg.startswith("judgments") and "'rel'" in msg and "'bad-label'" in msg


def test_text_labels_are_a_clear_error():
    judgments = pa.table({"query_id": ["q"], "doc_id": ["a"], "rel": ["relevant"]})
    msg = error_of(lambda: sqlndcg.evaluate(run_frame(ORDER), judgments, ["ndcg@3"]), InputError)
    assert msg.startswith("judgments") and "'rel'" in msg and "VARCHAR" in msg


# ----------------------------------------------------------------------------------------------------------------
# cutoffs
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["ndcg@0", "p@-1", "ap@-2147483648", f"ndcg@{2**31}", f"rr@{2**64}",
                                  "ndcg@99999999999999999999999999"])
def test_bad_cutoff_is_an_error_naming_the_metric(text):
    msg = error_of(lambda: sqlndcg.evaluate(run_frame(ORDER), judgment_frame(JUDGED), [text]), MetricError)
    assert repr(text) in msg
    assert len(msg) < SHORT


def test_largest_cutoff_works_and_equals_full_depth():
    k = 2**31 - 1
    names = [f"{kind}@{k}" for kind in ("ndcg", "dcg", "idcg", "cg", "r", "ap", "rr", "hit", "p", "judged")]
    res = sqlndcg.evaluate(run_frame(ORDER), judgment_frame(JUDGED + [("q", "e", 2.0)]),
                           names + ["ndcg", "dcg", "idcg", "cg", "r", "ap", "rr"])
    row = res.per_query.to_dicts()[0]
    for kind in ("ndcg", "dcg", "idcg", "cg", "r", "ap", "rr"):
        assert row[f"{kind}@{k}"] == pytest.approx(row[kind], abs=TOL), kind
    assert row[f"hit@{k}"] == 1.0
    assert row[f"p@{k}"] == pytest.approx(3 / k, rel=TOL)  # padded: 3 relevant of k positions
    assert row[f"judged@{k}"] == pytest.approx(3 / k, rel=TOL)


@pytest.mark.parametrize(
    "metric",
    [Metric("ndcg", 0), Metric("ndcg", -1), Metric("p", 2**31), Metric("ndcg", 2.5), Metric("ndcg", True),
     Metric("ndcg", "1; DROP TABLE canary; --"), Metric("bogus", 3), Metric("p", 2, -1.0),
     Metric("p", 1, "1 AS DOUBLE)); DROP TABLE canary; --")],
    ids=repr,
)
def test_metric_objects_are_validated_like_metric_names(con, metric):
    """sqlndcg.Metric is public, and evaluate accepts it in place of a name; a Metric that its name could not
    describe (k of 0, negative, fractional, too large, not a number; unknown kind; threshold <= 0) must be the
    same clear MetricError, never a number, a raw parser error or text pasted into SQL."""
    msg = error_of(lambda: sqlndcg.evaluate(run_frame(ORDER), judgment_frame(JUDGED), [metric], con=con),
                   MetricError)
    assert len(msg) < SHORT
    assert_canary_alive(con)


# ----------------------------------------------------------------------------------------------------------------
# files
# ----------------------------------------------------------------------------------------------------------------

GOOD_RUN = "q1 Q0 a 1 3.0 sys\nq1 Q0 b 2 2.0 sys\nq1 Q0 c 3 1.0 sys\n"
GOOD_QRELS = "q1 0 a 1\nq1 0 b 2\n"


@pytest.fixture
def good_files(tmp_path):
    run, qrels = tmp_path / "good.run", tmp_path / "good.qrels"
    run.write_text(GOOD_RUN)
    qrels.write_text(GOOD_QRELS)
    return run, qrels


@pytest.mark.parametrize("suffix", [".run", ".qrels", ".csv", ".tsv", ".parquet", ".txt", ""])
@pytest.mark.parametrize("role", ["run", "judgments"])
def test_empty_file_is_a_clear_error(tmp_path, good_files, suffix, role):
    empty = tmp_path / f"empty{suffix}"
    empty.write_bytes(b"")
    args = (str(empty), str(good_files[1])) if role == "run" else (str(good_files[0]), str(empty))
    msg = error_of(lambda: sqlndcg.evaluate(*args, ["ndcg@3"]), InputError)
    assert msg.startswith(f"{role} file") and str(empty) in msg and "empty" in msg


def test_blank_lines_only_is_a_clear_error(tmp_path, good_files):
    blank = tmp_path / "blank.run"
    blank.write_text("\n   \n\n")
    msg = error_of(lambda: sqlndcg.evaluate(str(blank), str(good_files[1]), ["ndcg@3"], queries="both"), InputError)
    assert str(blank) in msg and "no rows" in msg


@pytest.mark.parametrize(
    "layout",
    ["crlf", "tab separated", "trailing space", "trailing tab", "leading tab", "tab-only line", "no final newline"],
)
def test_trec_whitespace_variants_read_like_plain_spaces(tmp_path, good_files, layout):
    """TREC files are whitespace-separated (trec_eval splits on any blank): tabs and CR/LF are whitespace
    wherever they are, and a line of only whitespace is a blank line."""
    lines = GOOD_RUN.splitlines()
    text = {
        "crlf": "\r\n".join(lines) + "\r\n",
        "tab separated": "\n".join(line.replace(" ", "\t") for line in lines) + "\n",
        "trailing space": "\n".join(line + "  " for line in lines) + "\n",
        "trailing tab": "\n".join(line + "\t" for line in lines) + "\n",
        "leading tab": "\n".join("\t" + line for line in lines) + "\n",
        "tab-only line": "\n".join(lines[:1] + ["\t"] + lines[1:]) + "\n",
        "no final newline": "\n".join(lines),
    }[layout]
    run = tmp_path / "variant.run"
    run.write_bytes(text.encode())
    qrels = tmp_path / "variant.qrels"
    qrels.write_bytes(GOOD_QRELS.replace(" ", "\t" if "tab" in layout else " ").encode())
    expected = sqlndcg.evaluate(str(good_files[0]), str(good_files[1]), ALL_NAMES)
    res = sqlndcg.evaluate(str(run), str(qrels), ALL_NAMES)
    assert res.per_query.rows == expected.per_query.rows
    assert res.account.rows == expected.account.rows


@pytest.mark.parametrize("cut", ["q1 Q0 d", "q1 Q0 d 4", "q1 Q0 d 4 0.", "q1 Q"])
def test_truncated_trec_run_names_the_line(tmp_path, good_files, cut):
    run = tmp_path / "cut.run"
    run.write_text(GOOD_RUN + cut)  # the last line cut in the middle (no newline at the end, as a cut-off copy)
    msg = error_of(lambda: sqlndcg.evaluate(str(run), str(good_files[1]), ["ndcg@3"]), DataError)
    assert msg.startswith(f"run file '{run}'") and "line 4" in msg
    if cut != "q1 Q0 d 4 0.":
        assert repr(cut) in msg


def test_truncated_trec_qrels_names_the_line(tmp_path, good_files):
    qrels = tmp_path / "cut.qrels"
    qrels.write_text(GOOD_QRELS + "q1 0 c")
    msg = error_of(lambda: sqlndcg.evaluate(str(good_files[0]), str(qrels), ["ndcg@3"]), DataError)
    assert msg.startswith(f"judgments file '{qrels}'") and "line 3" in msg and "'q1 0 c'" in msg


@pytest.mark.parametrize("suffix", [".run", ".qrels", ".csv", ".tsv", ".parquet", ".txt", ".gz", ""])
@pytest.mark.parametrize("seed", [0, 1])
def test_binary_garbage_is_a_clear_error(tmp_path, good_files, suffix, seed):
    garbage = tmp_path / f"garbage{suffix}"
    garbage.write_bytes(bytes(random.Random(seed).randrange(256) for _ in range(5000)))
    for args, role in (((str(garbage), str(good_files[1])), "run"), ((str(good_files[0]), str(garbage)), "judgments")):
        msg = error_of(lambda args=args: sqlndcg.evaluate(*args, ["ndcg@3"]))
        assert msg.startswith(f"{role} file '{garbage}'"), msg
        assert len(msg) < SHORT


def test_parquet_file_that_does_not_exist(tmp_path, good_files):
    missing = tmp_path / "no such dir" / "run.parquet"
    msg = error_of(lambda: sqlndcg.evaluate(str(missing), str(good_files[1]), ["ndcg@3"]), InputError)
    assert msg.startswith(f"run file '{missing}'") and "does not exist" in msg
    msg = error_of(lambda: sqlndcg.evaluate(missing, str(good_files[1]), ["ndcg@3"]), InputError)  # a Path too
    assert "does not exist" in msg


def test_csv_without_the_score_column_names_it(tmp_path, good_files):
    run = tmp_path / "noscore.csv"
    run.write_text("query_id,doc_id,points\nq1,a,1.0\nq1,b,2.0\n")
    msg = error_of(lambda: sqlndcg.evaluate(str(run), str(good_files[1]), ["ndcg@3"]), InputError)
    assert str(run) in msg and "'score'" in msg and "'points'" in msg


@pytest.mark.parametrize("column, header", [("doc_id", "query_id,document,score"), ("query_id", "qid,doc_id,score")])
def test_csv_without_an_id_column_names_it(tmp_path, good_files, column, header):
    run = tmp_path / "noid.csv"
    run.write_text(f"{header}\nq1,a,1.0\nq1,b,2.0\n")
    msg = error_of(lambda: sqlndcg.evaluate(str(run), str(good_files[1]), ["ndcg@3"]), InputError)
    assert str(run) in msg and repr(column) in msg


def test_judgments_csv_without_rel_names_it(tmp_path, good_files):
    judgments = tmp_path / "norel.csv"
    judgments.write_text("query_id,doc_id,relevance\nq1,a,1\n")
    msg = error_of(lambda: sqlndcg.evaluate(str(good_files[0]), str(judgments), ["ndcg@3"]), InputError)
    assert msg.startswith(f"judgments file '{judgments}'") and "'rel'" in msg and "'relevance'" in msg


def test_csv_with_text_in_the_score_column_names_it(tmp_path, good_files):
    run = tmp_path / "textscore.csv"
    run.write_text("query_id,doc_id,score\nq1,a,1.0\nq1,b,high\n")
    msg = error_of(lambda: sqlndcg.evaluate(str(run), str(good_files[1]), ["ndcg@3"]), InputError)
    assert str(run) in msg and "'score'" in msg


@pytest.mark.parametrize("bad_line", ["q1,b", "q1,b,2.0,extra"], ids=["too few", "too many"])
@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".tsv", "\t")])
def test_csv_row_with_the_wrong_number_of_columns_names_the_line(tmp_path, good_files, bad_line, suffix, sep):
    """The header has query_id, doc_id, score; line 3 has a field too few or too many. The error must say so
    (which line), not claim that the file has no score column."""
    run = tmp_path / f"ragged{suffix}"
    run.write_text(sep.join(["query_id", "doc_id", "score"]) + "\n" + sep.join(["q1", "a", "1.0"]) + "\n"
                   + bad_line.replace(",", sep) + "\n" + sep.join(["q1", "c", "3.0"]) + "\n")
    msg = error_of(lambda: sqlndcg.evaluate(str(run), str(good_files[1]), ["ndcg@3"]))
    assert msg.startswith(f"run file '{run}'")
    assert re.search(r"\bline:? ?3\b", msg, re.IGNORECASE), f"the ragged line is not named: {msg}"
    assert "neither a score column" not in msg


def test_csv_ids_with_quotes_read_exactly_and_a_line_break_is_refused(tmp_path):
    """Quoted delimiters and doubled quotes read as CSV reads them. A quoted line break makes one row of two
    lines, which a quote left open does too, silently (issue 28): a CSV's rows are its lines, else the line is
    named (ids with line breaks: Parquet or a data frame, as the frame judgments below)."""
    run = tmp_path / "quoted.csv"
    run.write_text('query_id,doc_id,score\n"q,1","a b",1.0\n"q,1","c""d",2.0\n"q,1","\'",1.0\n')
    judgments = pd.DataFrame({"query_id": ["q,1", "q,1"], "doc_id": ["a b", "'"], "rel": [1, 2]})
    res = sqlndcg.evaluate(str(run), judgments, ALL_NAMES)
    assert_reference(res, [((), "q,1", "a b", 1.0), ((), "q,1", 'c"d', 2.0), ((), "q,1", "'", 1.0)],
                     [("q,1", "a b", 1), ("q,1", "'", 2)], ALL_KEYS)
    run.write_text('query_id,doc_id,score\n"q,1","a\nb",1.0\n"q,1","c""d",2.0\n"q,1","\'",1.0\n')
    with pytest.raises(InputError, match=r"quoted.csv', line 2: a quote opens a field in '\"q,1\",\"a' that runs on "
                                         r"to line 3, so 4 lines were read as 3 rows.*Parquet file or a data frame"):
        sqlndcg.evaluate(str(run), judgments, ALL_NAMES)


def test_csv_empty_id_is_read_as_empty_or_refused_by_name(tmp_path):
    """An empty id in a CSV ("" or nothing between commas) is an empty string or a missing value, depending on the
    reader; either the numbers treat it as the id "" or the error names the doc_id column. Never a lost row."""
    run = tmp_path / "empty_id.csv"
    run.write_text('query_id,doc_id,score\nq,"",2.0\nq,a,1.0\n')
    judgments = pd.DataFrame({"query_id": ["q"], "doc_id": [""], "rel": [1]})
    try:
        res = sqlndcg.evaluate(str(run), judgments, ["rr", "p@2"])
    except SqlndcgError as err:
        assert isinstance(err, DataError) and "'doc_id'" in str(err) and "NULL" in str(err), err
        return
    assert res.per_query.to_dicts() == [{"query_id": "q", "rr": 1.0, "p@2": 0.5}]


# ----------------------------------------------------------------------------------------------------------------
# long values stay out of messages
# ----------------------------------------------------------------------------------------------------------------


def test_long_id_in_duplicate_rows_gives_a_short_message():
    run = run_frame([(LONG_ID, LONG_ID, 1.0), (LONG_ID, LONG_ID, 2.0), (LONG_ID, "b", 3.0)])
    msg = error_of(lambda: sqlndcg.evaluate(run, judgment_frame([(LONG_ID, "b", 1.0)]), ["ndcg@3"]), DataError)
    assert len(msg) < SHORT and msg.startswith("run") and "more than once" in msg and "xxxx" in msg


def test_long_id_in_duplicate_judgments_gives_a_short_message():
    judgments = judgment_frame([(LONG_ID, LONG_ID, 1.0), (LONG_ID, LONG_ID, 2.0)])
    msg = error_of(lambda: sqlndcg.evaluate(run_frame([(LONG_ID, "b", 3.0)]), judgments, ["ndcg@3"]), DataError)
    assert len(msg) < SHORT and msg.startswith("judgments") and "more than once" in msg


def test_long_id_with_a_null_score_gives_a_short_message():
    run = pd.DataFrame({"query_id": [LONG_ID], "doc_id": [LONG_ID], "score": [math.nan]})
    msg = error_of(lambda: sqlndcg.evaluate(run, judgment_frame([(LONG_ID, "b", 1.0)]), ["ndcg@3"]), DataError)
    assert len(msg) < SHORT and "'score'" in msg


def test_long_id_with_a_label_out_of_range_gives_a_short_message():
    judgments = judgment_frame([(LONG_ID, LONG_ID, 5000.0)])
    msg = error_of(lambda: sqlndcg.evaluate(run_frame([(LONG_ID, "b", 3.0)]), judgments, ["ndcg@3"]), DataError)
    assert len(msg) < SHORT and "'rel'" in msg and "5000" in msg


def test_long_query_id_with_nothing_to_find_gives_a_short_message():
    judgments = judgment_frame([(LONG_ID, "a", 0.0)])
    msg = error_of(lambda: sqlndcg.evaluate(run_frame([(LONG_ID, "a", 3.0)]), judgments, ["ndcg@3"],
                                            empty="error"), EmptyQueryError)
    assert "nothing to find" in msg
    assert len(msg) < SHORT, f"message is {len(msg)} characters long"


def test_long_id_on_a_bad_trec_line_gives_a_short_message(tmp_path, good_files):
    run = tmp_path / "long.run"
    run.write_text(f"q1 Q0 {LONG_ID} 1 2.0 sys\nq1 Q0 {LONG_ID}-2 2\n")
    msg = error_of(lambda: sqlndcg.evaluate(str(run), str(good_files[1]), ["ndcg@3"]), DataError)
    assert "line 2" in msg
    assert len(msg) < SHORT, f"message is {len(msg)} characters long"


def test_long_id_duplicated_in_a_trec_run_gives_a_short_message(tmp_path, good_files):
    run = tmp_path / "dup.run"
    run.write_text(f"q1 Q0 {LONG_ID} 1 2.0 sys\nq1 Q0 {LONG_ID} 2 1.0 sys\n")
    msg = error_of(lambda: sqlndcg.evaluate(str(run), str(good_files[1]), ["ndcg@3"]), DataError)
    assert len(msg) < SHORT and "more than once" in msg


# ----------------------------------------------------------------------------------------------------------------
# anything else: still a sqlndcg error
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "run, kwargs, kind, fragment",
    [
        (42, {}, InputError, "int"),
        (None, {}, InputError, "no run"),
        ("", {"con": "use-a-connection"}, SettingError, "con"),
        (run_frame([]), {"queries": "both"}, InputError, "no rows"),
        (pa.table({"query_id": [1.5], "doc_id": ["a"], "score": [1.0]}), {}, InputError, "'query_id'"),
        (pa.table({"query_id": ["q"], "doc_id": ["a"], "score": [True]}), {}, InputError, "'score'"),
        (run_frame(ORDER), {"threshold": math.nan}, SettingError, "threshold"),
        (run_frame(ORDER), {"gain": {1: math.inf}}, SettingError, "gain"),
        (run_frame(ORDER), {"ties": "DROP TABLE canary"}, SettingError, "ties"),
        (run_frame(ORDER), {"group_by": ["nope"]}, InputError, "'nope'"),
        (run_frame(ORDER), {"score": "nope", "rank": None}, InputError, "'nope'"),
    ],
    ids=["int", "None", "not a connection", "no rows", "float ids", "bool scores", "nan threshold", "inf gain",
         "unknown ties", "missing group column", "missing score column"],
)
def test_other_bad_arguments_are_sqlndcg_errors(run, kwargs, kind, fragment):
    msg = error_of(lambda: sqlndcg.evaluate(run, judgment_frame(JUDGED), ["ndcg@3"], **kwargs), kind)
    assert fragment in msg
