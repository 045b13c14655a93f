"""Every setting value on a case small enough to check by hand.

Each expected number is worked out in the comment next to it (D(i) = 1 / log2(i + 1) is the discount at position
i: D(1) = 1, D(2) = 0.6309297535714575, D(3) = 0.5); none is produced by calling sqlndcg.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
import scipy.stats

import sqlndcg
from sqlndcg.stats import distributions as stats


def D(i: int) -> float:
    """The discount at position i: 1 / log2(i + 1)."""
    return 1.0 / math.log2(i + 1)


def run_frame(rows, with_rank: bool = False) -> pd.DataFrame:
    """(query_id, doc_id, score) or (query_id, doc_id, score, rank) tuples as a run."""
    cols = ["query_id", "doc_id", "score"] + (["rank"] if with_rank else [])
    return pd.DataFrame(rows, columns=cols)


def judgment_frame(rows) -> pd.DataFrame:
    """(query_id, doc_id, rel) tuples as judgments."""
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "rel"])


def by_query(res, metric: str) -> dict:
    """{query_id: value} of one per-query metric column."""
    return dict(zip(res.per_query.column("query_id"), res.per_query.column(metric)))


def one(res, metric: str) -> float:
    """The value of a metric for the only query of a one-query evaluation."""
    values = res.per_query.column(metric)
    assert len(values) == 1
    return values[0]


# ---------------------------------------------------------------------------------------------------------------
# gain
# ---------------------------------------------------------------------------------------------------------------

# One query; run order a, b, c; labels a=1, b=0, c=2.
GAIN_RUN = run_frame([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0)])
GAIN_JUDGMENTS = judgment_frame([("q", "a", 1), ("q", "b", 0), ("q", "c", 2)])
GAIN_METRICS = ["dcg@3", "idcg@3", "ndcg@3"]


def test_exponential_gain_is_two_to_the_rel_minus_one():
    res = sqlndcg.evaluate(GAIN_RUN, GAIN_JUDGMENTS, GAIN_METRICS, gain="exponential")
    # gains a=1, b=0, c=3. DCG = 1*D(1) + 3*D(3) = 1 + 1.5 = 2.5
    # ideal c, a: IDCG = 3*D(1) + 1*D(2) = 3.6309297535714578; NDCG = 2.5 / 3.63093 = 0.6885288809404666
    assert one(res, "dcg@3") == pytest.approx(2.5)
    assert one(res, "idcg@3") == pytest.approx(3 + D(2))
    assert one(res, "ndcg@3") == pytest.approx(0.6885288809404666)


def test_exponential_gain_is_the_default():
    assert one(sqlndcg.evaluate(GAIN_RUN, GAIN_JUDGMENTS, ["ndcg@3"]), "ndcg@3") == pytest.approx(0.6885288809404666)


def test_linear_gain_is_rel():
    res = sqlndcg.evaluate(GAIN_RUN, GAIN_JUDGMENTS, GAIN_METRICS, gain="linear")
    # gains a=1, b=0, c=2. DCG = 1 + 2*D(3) = 2; IDCG = 2 + 1*D(2) = 2.6309297535714578
    # NDCG = 2 / 2.63093 = 0.7601875334318685
    assert one(res, "dcg@3") == pytest.approx(2.0)
    assert one(res, "idcg@3") == pytest.approx(2 + D(2))
    assert one(res, "ndcg@3") == pytest.approx(0.7601875334318685)


def test_gain_map_gives_each_grade_its_gain():
    res = sqlndcg.evaluate(GAIN_RUN, GAIN_JUDGMENTS, GAIN_METRICS, gain={1: 10, 2: 15})
    # gains a=10, b=0 (grade 0 always 0), c=15. DCG = 10 + 15*D(3) = 17.5
    # IDCG = 15 + 10*D(2) = 21.309297535714578; NDCG = 17.5 / 21.3093 = 0.8212377705398237
    assert one(res, "dcg@3") == pytest.approx(17.5)
    assert one(res, "idcg@3") == pytest.approx(15 + 10 * D(2))
    assert one(res, "ndcg@3") == pytest.approx(0.8212377705398237)
    assert res.settings["gain"] == {1.0: 10.0, 2.0: 15.0}


def test_gain_map_with_fractional_grades():
    judgments = judgment_frame([("q", "a", 0.5), ("q", "b", 0), ("q", "c", 2.5)])
    res = sqlndcg.evaluate(GAIN_RUN, judgments, ["dcg@3"], gain={0.5: 1, 2.5: 4})
    # gains a=1, c=4: DCG = 1 + 4*D(3) = 3
    assert one(res, "dcg@3") == pytest.approx(3.0)


def test_cg_sums_labels_whatever_the_gain():
    for gain in ("exponential", "linear", {1: 10, 2: 15}):
        res = sqlndcg.evaluate(GAIN_RUN, GAIN_JUDGMENTS, ["cg@2", "cg@3"], gain=gain)
        # CG@2 = 1 + 0 = 1; CG@3 = 1 + 0 + 2 = 3
        assert (one(res, "cg@2"), one(res, "cg@3")) == (1.0, 3.0)


def test_the_worked_example_of_semantics_md():
    run = run_frame([("q", d, s) for d, s in zip("ABCDE", (5.0, 4.0, 3.0, 2.0, 1.0))])
    judgments = judgment_frame([("q", "A", 3), ("q", "B", 2), ("q", "C", 0), ("q", "D", 1), ("q", "E", 2)])
    metrics = [f"{m}@{k}" for k in range(1, 6) for m in ("cg", "dcg", "idcg", "ndcg")]
    res = sqlndcg.evaluate(run, judgments, metrics)
    table = {  # k: CG, DCG, IDCG, NDCG (the table in SEMANTICS.md)
        1: (3, 7.000000, 7.000000, 1.000000),
        2: (5, 8.892789, 8.892789, 1.000000),
        3: (5, 8.892789, 10.392789, 0.855669),
        4: (6, 9.323466, 10.823466, 0.861412),
        5: (8, 10.484024, 10.823466, 0.968638),
    }
    for k, (cg, dcg, idcg, ndcg) in table.items():
        assert one(res, f"cg@{k}") == cg
        assert one(res, f"dcg@{k}") == pytest.approx(dcg, abs=1e-6)
        assert one(res, f"idcg@{k}") == pytest.approx(idcg, abs=1e-6)
        assert one(res, f"ndcg@{k}") == pytest.approx(ndcg, abs=1e-6)
    linear = sqlndcg.evaluate(run, judgments, ["ndcg@3", "ndcg@5"], gain="linear")
    assert one(linear, "ndcg@3") == pytest.approx(0.809953, abs=1e-6)
    assert one(linear, "ndcg@5") == pytest.approx(0.960247, abs=1e-6)


# ---------------------------------------------------------------------------------------------------------------
# ideal
# ---------------------------------------------------------------------------------------------------------------

# The run returns a (rel 1) and b (rel 0) but misses c (rel 2).
IDEAL_RUN = run_frame([("q", "a", 3.0), ("q", "b", 2.0)])
IDEAL_JUDGMENTS = judgment_frame([("q", "a", 1), ("q", "b", 0), ("q", "c", 2)])


def test_ideal_judgments_counts_the_relevant_document_the_system_missed():
    res = sqlndcg.evaluate(IDEAL_RUN, IDEAL_JUDGMENTS, ["idcg@3", "ndcg@3"], gain="linear", ideal="judgments")
    # DCG = 1*D(1) = 1; ideal c=2, a=1: IDCG = 2 + D(2) = 2.6309; NDCG = 1 / 2.6309 = 0.38009376671593426
    assert one(res, "idcg@3") == pytest.approx(2 + D(2))
    assert one(res, "ndcg@3") == pytest.approx(0.38009376671593426)


def test_ideal_retrieved_reorders_only_what_the_run_returned():
    res = sqlndcg.evaluate(IDEAL_RUN, IDEAL_JUDGMENTS, ["idcg@3", "ndcg@3"], gain="linear", ideal="retrieved")
    # retrieved a=1, b=0 are already in ideal order: IDCG = 1 = DCG, NDCG = 1
    assert one(res, "idcg@3") == pytest.approx(1.0)
    assert one(res, "ndcg@3") == pytest.approx(1.0)


def test_ideal_settings_agree_when_nothing_relevant_is_missed():
    run = run_frame([("q", "b", 3.0), ("q", "a", 2.0)])
    judgments = judgment_frame([("q", "a", 1), ("q", "b", 0)])
    # DCG = 1*D(2) = 0.6309 under both; IDCG = 1 under both
    for ideal in ("judgments", "retrieved"):
        res = sqlndcg.evaluate(run, judgments, ["ndcg@2"], gain="linear", ideal=ideal)
        assert one(res, "ndcg@2") == pytest.approx(D(2))


# ---------------------------------------------------------------------------------------------------------------
# ties
# ---------------------------------------------------------------------------------------------------------------

# x scores 2; a and b tie at 1. Only a is relevant (rel 1). The run's own ranks put a before b.
TIE_RUN = run_frame([("q", "x", 2.0, 1), ("q", "a", 1.0, 2), ("q", "b", 1.0, 3)], with_rank=True)
TIE_JUDGMENTS = judgment_frame([("q", "x", 0), ("q", "a", 1), ("q", "b", 0)])
TIE_METRICS = ["ndcg@2", "ndcg@3", "p@2"]


def test_ties_doc_id_puts_the_larger_doc_id_first():
    res = sqlndcg.evaluate(TIE_RUN, TIE_JUDGMENTS, TIE_METRICS + ["rr", "ap"], gain="linear", ties="doc_id")
    # order x, b, a ("b" > "a"): a at position 3. NDCG@2 = 0; NDCG@3 = D(3) / 1 = 0.5
    # P@2 = 0/2 = 0; RR = 1/3; AP = P@3 / R = (1/3) / 1
    assert one(res, "ndcg@2") == 0.0
    assert one(res, "ndcg@3") == pytest.approx(0.5)
    assert one(res, "p@2") == 0.0
    assert one(res, "rr") == pytest.approx(1 / 3)
    assert one(res, "ap") == pytest.approx(1 / 3)


def test_ties_average_shares_the_mean_gain_over_the_tied_positions():
    res = sqlndcg.evaluate(TIE_RUN, TIE_JUDGMENTS, TIE_METRICS, gain="linear", ties="average")
    # a and b span positions 2 and 3, mean gain (1 + 0) / 2 = 0.5 at each
    # NDCG@2 = 0.5*D(2) = 0.31546487678572877; NDCG@3 = 0.5*D(2) + 0.5*D(3) = 0.5654648767857288
    # P@2 = (0 + 0.5) / 2 = 0.25
    assert one(res, "ndcg@2") == pytest.approx(0.31546487678572877)
    assert one(res, "ndcg@3") == pytest.approx(0.5654648767857288)
    assert one(res, "p@2") == pytest.approx(0.25)


def test_ties_rank_uses_the_runs_own_rank_column():
    res = sqlndcg.evaluate(TIE_RUN, TIE_JUDGMENTS, TIE_METRICS + ["rr"], gain="linear", ties="rank")
    # ranks x=1, a=2, b=3: a at position 2. NDCG@2 = NDCG@3 = D(2) = 0.6309297535714575; P@2 = 1/2; RR = 1/2
    assert one(res, "ndcg@2") == pytest.approx(D(2))
    assert one(res, "ndcg@3") == pytest.approx(D(2))
    assert one(res, "p@2") == pytest.approx(0.5)
    assert one(res, "rr") == pytest.approx(0.5)


def test_ties_doc_id_orders_integer_ids_numerically():
    run = pd.DataFrame({"query_id": [1, 1], "doc_id": [9, 10], "score": [1.0, 1.0]})
    judgments = pd.DataFrame({"query_id": [1, 1], "doc_id": [9, 10], "rel": [0, 1]})
    # numeric descending: 10 before 9, so the relevant 10 is at position 1: RR = 1
    assert one(sqlndcg.evaluate(run, judgments, ["rr"]), "rr") == 1.0


def test_ties_doc_id_orders_string_ids_by_bytes():
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["9", "10"], "score": [1.0, 1.0]})
    judgments = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["9", "10"], "rel": [0, 1]})
    # byte order descending: "9" > "10", so the relevant "10" is at position 2: RR = 1/2
    assert one(sqlndcg.evaluate(run, judgments, ["rr"]), "rr") == 0.5


# ---------------------------------------------------------------------------------------------------------------
# short_lists
# ---------------------------------------------------------------------------------------------------------------

# A list of 2 documents evaluated at k=5; three documents (a, c, d) are relevant, one of them retrieved.
SHORT_RUN = run_frame([("q", "a", 2.0), ("q", "b", 1.0)])
SHORT_JUDGMENTS = judgment_frame([("q", "a", 1), ("q", "b", 0), ("q", "c", 1), ("q", "d", 1)])
SHORT_METRICS = ["p@5", "r@5", "judged@5", "idcg@5", "ndcg@5"]


def test_short_lists_pad_counts_missing_positions_as_non_relevant():
    res = sqlndcg.evaluate(SHORT_RUN, SHORT_JUDGMENTS, SHORT_METRICS, gain="linear", short_lists="pad")
    # P@5 = 1 hit / 5 = 0.2; R@5 = 1/3; Judged@5 = 2/5
    # IDCG over 5 ideal positions (only 3 have gain): 1 + D(2) + D(3) = 2.1309; NDCG = 1 / 2.1309 = 0.46927872602275644
    assert one(res, "p@5") == pytest.approx(0.2)
    assert one(res, "r@5") == pytest.approx(1 / 3)
    assert one(res, "judged@5") == pytest.approx(0.4)
    assert one(res, "idcg@5") == pytest.approx(1 + D(2) + D(3))
    assert one(res, "ndcg@5") == pytest.approx(0.46927872602275644)


def test_short_lists_truncate_evaluates_at_the_list_length():
    res = sqlndcg.evaluate(SHORT_RUN, SHORT_JUDGMENTS, SHORT_METRICS, gain="linear", short_lists="truncate")
    # n = min(5, 2) = 2. P@5 = 1 hit / 2 = 0.5; R@5 = 1/3 (unchanged); Judged@5 = 2/2 = 1
    # IDCG over 2 ideal positions: 1 + D(2) = 1.6309; NDCG = 1 / 1.6309 = 0.6131471927654584
    assert one(res, "p@5") == pytest.approx(0.5)
    assert one(res, "r@5") == pytest.approx(1 / 3)
    assert one(res, "judged@5") == pytest.approx(1.0)
    assert one(res, "idcg@5") == pytest.approx(1 + D(2))
    assert one(res, "ndcg@5") == pytest.approx(0.6131471927654584)


def test_short_lists_do_not_matter_for_lists_at_least_k_long():
    for short_lists in ("pad", "truncate"):
        res = sqlndcg.evaluate(SHORT_RUN, SHORT_JUDGMENTS, ["p@2", "ndcg@2"], gain="linear", short_lists=short_lists)
        # P@2 = 1/2; IDCG@2 = 1 + D(2); NDCG@2 = 1 / (1 + D(2)) = 0.6131471927654584
        assert one(res, "p@2") == pytest.approx(0.5)
        assert one(res, "ndcg@2") == pytest.approx(0.6131471927654584)


# ---------------------------------------------------------------------------------------------------------------
# empty
# ---------------------------------------------------------------------------------------------------------------

# q1 finds its one relevant document; q2 has judgments but nothing relevant.
EMPTY_RUN = run_frame([("q1", "a", 1.0), ("q2", "b", 1.0)])
EMPTY_JUDGMENTS = judgment_frame([("q1", "a", 1), ("q2", "b", 0)])
EMPTY_METRICS = ["ndcg@5", "r@5", "ap", "p@1"]


def test_empty_zero_scores_a_query_with_nothing_to_find_as_zero_and_counts_it():
    res = sqlndcg.evaluate(EMPTY_RUN, EMPTY_JUDGMENTS, EMPTY_METRICS, empty="zero")
    # q1: NDCG = R = AP = P@1 = 1; q2: all 0. Means over 2 queries: 0.5
    for m in EMPTY_METRICS:
        assert by_query(res, m) == {"q1": 1.0, "q2": 0.0}
        assert res.summary.column(m) == [0.5]
        assert res.summary.column(f"{m}_count") == [2]
    assert res.summary.column("queries") == [2]


def test_empty_skip_leaves_the_query_null_and_out_of_the_mean_and_count():
    res = sqlndcg.evaluate(EMPTY_RUN, EMPTY_JUDGMENTS, EMPTY_METRICS, empty="skip")
    # q2 has no gain and R = 0: NDCG, R and AP are NULL, so their means are over q1 alone (1.0, count 1)
    for m in ("ndcg@5", "r@5", "ap"):
        assert by_query(res, m) == {"q1": 1.0, "q2": None}
        assert res.summary.column(m) == [1.0]
        assert res.summary.column(f"{m}_count") == [1]
    # P@1 is defined for q2 (0 of 1): (1 + 0) / 2
    assert by_query(res, "p@1") == {"q1": 1.0, "q2": 0.0}
    assert res.summary.column("p@1") == [0.5]
    assert res.summary.column("p@1_count") == [2]
    assert res.summary.column("queries") == [2]


def test_empty_error_refuses_a_query_with_nothing_to_find_by_name():
    with pytest.raises(sqlndcg.EmptyQueryError, match=r"'q2'"):
        sqlndcg.evaluate(EMPTY_RUN, EMPTY_JUDGMENTS, ["ndcg@5"], empty="error")


def test_empty_error_accepts_queries_that_all_have_something_to_find():
    res = sqlndcg.evaluate(EMPTY_RUN.iloc[:1], EMPTY_JUDGMENTS.iloc[:1], ["ndcg@5"], empty="error")
    assert by_query(res, "ndcg@5") == {"q1": 1.0}


def test_empty_skip_with_every_query_empty_gives_a_null_mean():
    res = sqlndcg.evaluate(EMPTY_RUN.iloc[1:], EMPTY_JUDGMENTS.iloc[1:], ["ndcg@5"], empty="skip")
    assert res.summary.column("ndcg@5") == [None]
    assert res.summary.column("ndcg@5_count") == [0]


# ---------------------------------------------------------------------------------------------------------------
# queries
# ---------------------------------------------------------------------------------------------------------------

# q1: judged and answered; q2: judged, missing from the run; q3: in the run only.
QUERIES_RUN = run_frame([("q1", "a", 1.0), ("q3", "z", 1.0)])
QUERIES_JUDGMENTS = judgment_frame([("q1", "a", 1), ("q2", "b", 1)])


def test_queries_judged_scores_a_judged_query_missing_from_the_run_as_zero():
    res = sqlndcg.evaluate(QUERIES_RUN, QUERIES_JUDGMENTS, ["ndcg@5", "p@1"], queries="judged")
    # q1 = 1, q2 = 0 (no answer), q3 never scored: mean (1 + 0) / 2 = 0.5
    assert by_query(res, "ndcg@5") == {"q1": 1.0, "q2": 0.0}
    assert by_query(res, "p@1") == {"q1": 1.0, "q2": 0.0}
    assert res.summary.column("ndcg@5") == [0.5]
    assert res.summary.column("queries") == [2]


def test_queries_both_scores_only_queries_in_run_and_judgments():
    res = sqlndcg.evaluate(QUERIES_RUN, QUERIES_JUDGMENTS, ["ndcg@5", "p@1"], queries="both")
    # q1 only: mean 1.0 over 1 query
    assert by_query(res, "ndcg@5") == {"q1": 1.0}
    assert res.summary.column("ndcg@5") == [1.0]
    assert res.summary.column("queries") == [1]


# ---------------------------------------------------------------------------------------------------------------
# threshold
# ---------------------------------------------------------------------------------------------------------------

# Run order a..e with labels a=1, b=2, c=3, d=0, e=2.
THRESHOLD_RUN = run_frame([("q", d, s) for d, s in zip("abcde", (5.0, 4.0, 3.0, 2.0, 1.0))])
THRESHOLD_JUDGMENTS = judgment_frame([("q", "a", 1), ("q", "b", 2), ("q", "c", 3), ("q", "d", 0), ("q", "e", 2)])


def test_threshold_one_makes_every_positive_label_relevant():
    res = sqlndcg.evaluate(THRESHOLD_RUN, THRESHOLD_JUDGMENTS, ["p@5", "rr", "ap"])
    # relevant a, b, c, e: P@5 = 4/5; RR = 1; AP = (1/1 + 2/2 + 3/3 + 4/5) / 4 = 0.95
    assert one(res, "p@5") == pytest.approx(0.8)
    assert one(res, "rr") == 1.0
    assert one(res, "ap") == pytest.approx(0.95)


def test_threshold_two_makes_labels_of_two_and_up_relevant():
    res = sqlndcg.evaluate(THRESHOLD_RUN, THRESHOLD_JUDGMENTS, ["p@5", "r@5", "rr", "ap", "hit@1"], threshold=2)
    # relevant b (pos 2), c (pos 3), e (pos 5); R = 3
    # P@5 = 3/5; R@5 = 3/3; RR = 1/2; Hit@1 = 0 (a is below threshold)
    # AP = (P@2 + P@3 + P@5) / 3 = (1/2 + 2/3 + 3/5) / 3 = 0.5888888888888889
    assert one(res, "p@5") == pytest.approx(0.6)
    assert one(res, "r@5") == pytest.approx(1.0)
    assert one(res, "rr") == pytest.approx(0.5)
    assert one(res, "ap") == pytest.approx(0.5888888888888889)
    assert one(res, "hit@1") == 0.0
    assert res.settings["threshold"] == 2.0


def test_per_metric_threshold_next_to_the_default_one():
    res = sqlndcg.evaluate(THRESHOLD_RUN, THRESHOLD_JUDGMENTS, ["p@5", "P(rel=2)@5", "RR(rel=3)"])
    # p@5 with threshold 1: 4/5; P(rel=2)@5: b, c, e -> 3/5; RR(rel=3): c at position 3 -> 1/3
    assert one(res, "p@5") == pytest.approx(0.8)
    assert one(res, "P(rel=2)@5") == pytest.approx(0.6)  # the columns are named as asked
    assert one(res, "RR(rel=3)") == pytest.approx(1 / 3)
    assert res.settings["canonical_metrics"] == {"p@5": "p@5", "P(rel=2)@5": "p(rel=2)@5", "RR(rel=3)": "rr(rel=3)"}


def test_threshold_does_not_change_graded_metrics():
    low = sqlndcg.evaluate(THRESHOLD_RUN, THRESHOLD_JUDGMENTS, ["ndcg@5", "cg@5"], threshold=1)
    high = sqlndcg.evaluate(THRESHOLD_RUN, THRESHOLD_JUDGMENTS, ["ndcg@5", "cg@5"], threshold=3)
    # CG@5 = 1 + 2 + 3 + 0 + 2 = 8 at either threshold
    assert one(low, "cg@5") == one(high, "cg@5") == 8.0
    assert one(low, "ndcg@5") == pytest.approx(one(high, "ndcg@5"))


# ---------------------------------------------------------------------------------------------------------------
# negative labels and unjudged documents
# ---------------------------------------------------------------------------------------------------------------

# Run a, b, c; labels a=-1 (judged unusable), b=1, c=0, and d=-2 (not retrieved).
NEG_RUN = run_frame([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0)])
NEG_JUDGMENTS = judgment_frame([("q", "a", -1), ("q", "b", 1), ("q", "c", 0), ("q", "d", -2)])


@pytest.mark.parametrize("ideal", ["judgments", "retrieved"])
def test_negative_labels_have_no_gain_are_never_relevant_nor_ideal_nor_judged(ideal):
    metrics = ["dcg@3", "idcg@3", "ndcg@3", "p@3", "r@3", "rr", "judged@3", "cg@3"]
    res = sqlndcg.evaluate(NEG_RUN, NEG_JUDGMENTS, metrics, ideal=ideal, threshold=1)
    # gains a=0, b=1, c=0: DCG = D(2) = 0.6309; ideal is b alone: IDCG = 1; NDCG = 0.6309297535714575
    # relevant: b only (R = 1): P@3 = 1/3, R@3 = 1, RR = 1/2
    # judged (rel >= 0): b, c: Judged@3 = 2/3; CG@3 = 0 (a counts as 0) + 1 + 0 = 1
    assert one(res, "dcg@3") == pytest.approx(D(2))
    assert one(res, "idcg@3") == pytest.approx(1.0)
    assert one(res, "ndcg@3") == pytest.approx(D(2))
    assert one(res, "p@3") == pytest.approx(1 / 3)
    assert one(res, "r@3") == pytest.approx(1.0)
    assert one(res, "rr") == pytest.approx(0.5)
    assert one(res, "judged@3") == pytest.approx(2 / 3)
    assert one(res, "cg@3") == pytest.approx(1.0)


def test_a_query_with_only_negative_labels_has_nothing_to_find():
    judgments = judgment_frame([("q", "a", -1), ("q", "b", -1)])
    res = sqlndcg.evaluate(NEG_RUN, judgments, ["ndcg@3", "r@3"], empty="skip")
    assert one(res, "ndcg@3") is None
    assert one(res, "r@3") is None


def test_unjudged_documents_have_gain_zero_and_are_not_judged():
    run = run_frame([("q", "a", 3.0), ("q", "u", 2.0), ("q", "b", 1.0)])
    judgments = judgment_frame([("q", "a", 1), ("q", "b", 1)])
    res = sqlndcg.evaluate(run, judgments, ["ndcg@3", "p@3", "judged@3", "ap"], gain="linear")
    # u is unjudged: DCG = 1 + 0 + D(3) = 1.5; IDCG = 1 + D(2); NDCG = 1.5 / 1.6309 = 0.9197207891481876
    # P@3 = 2/3; Judged@3 = 2/3; AP = (1/1 + 2/3) / 2 = 0.8333
    assert one(res, "ndcg@3") == pytest.approx(0.9197207891481876)
    assert one(res, "p@3") == pytest.approx(2 / 3)
    assert one(res, "judged@3") == pytest.approx(2 / 3)
    assert one(res, "ap") == pytest.approx(5 / 6)


# ---------------------------------------------------------------------------------------------------------------
# presets and recorded settings
# ---------------------------------------------------------------------------------------------------------------


def test_preset_trec_eval_fills_its_settings():
    res = sqlndcg.evaluate(GAIN_RUN, GAIN_JUDGMENTS, ["ndcg@3"], preset="trec_eval")
    assert {k: res.settings[k] for k in ("gain", "ideal", "ties", "short_lists", "empty", "queries")} == dict(
        gain="linear", ideal="judgments", ties="doc_id", short_lists="pad", empty="zero", queries="judged"
    )
    assert res.settings["preset"] == "trec_eval"
    # linear gain: 0.7601875334318685 (see test_linear_gain_is_rel)
    assert one(res, "ndcg@3") == pytest.approx(0.7601875334318685)


def test_explicit_settings_override_the_trec_eval_preset():
    res = sqlndcg.evaluate(GAIN_RUN, GAIN_JUDGMENTS, ["ndcg@3"], preset="trec_eval", gain="exponential")
    assert res.settings["gain"] == "exponential"
    assert res.settings["ideal"] == "judgments"
    # exponential gain: 0.6885288809404666 (see test_exponential_gain_is_two_to_the_rel_minus_one)
    assert one(res, "ndcg@3") == pytest.approx(0.6885288809404666)


def test_preset_sklearn_fills_its_settings():
    res = sqlndcg.evaluate(IDEAL_RUN, IDEAL_JUDGMENTS, ["ndcg@3"], preset="sklearn")
    assert (res.settings["gain"], res.settings["ideal"], res.settings["ties"]) == ("linear", "retrieved", "average")
    # retrieved ideal: NDCG = 1 (see test_ideal_retrieved_reorders_only_what_the_run_returned)
    assert one(res, "ndcg@3") == pytest.approx(1.0)


def test_explicit_settings_override_the_sklearn_preset():
    res = sqlndcg.evaluate(IDEAL_RUN, IDEAL_JUDGMENTS, ["ndcg@3"], preset="sklearn", ideal="judgments")
    assert (res.settings["gain"], res.settings["ideal"], res.settings["ties"]) == ("linear", "judgments", "average")
    # judged ideal, linear gain: 0.38009376671593426
    assert one(res, "ndcg@3") == pytest.approx(0.38009376671593426)
    tie = sqlndcg.evaluate(TIE_RUN, TIE_JUDGMENTS, ["ndcg@3"], preset="sklearn", ties="doc_id")
    assert tie.settings["ties"] == "doc_id"
    # doc_id ties: 0.5 (see test_ties_doc_id_puts_the_larger_doc_id_first)
    assert one(tie, "ndcg@3") == pytest.approx(0.5)


def test_settings_record_every_setting():
    res = sqlndcg.evaluate(
        GAIN_RUN.assign(system="s"), GAIN_JUDGMENTS, ["nDCG@3", "MAP"], gain={1: 1, 2: 3}, ideal="retrieved",
        ties="doc_id", short_lists="truncate", empty="skip", queries="both", threshold=2, group_by=["system"],
    )
    assert res.settings == {
        "gain": {1.0: 1.0, 2.0: 3.0},
        "ideal": "retrieved",
        "ties": "doc_id",
        "short_lists": "truncate",
        "empty": "skip",
        "queries": "both",
        "threshold": 2.0,
        "group_by": ["system"],
        # the result columns as asked, with their canonical names
        "metrics": ["nDCG@3", "MAP"],
        "canonical_metrics": {"nDCG@3": "ndcg@3", "MAP": "ap"},
        # the columns actually read: the run has a score, so its (absent) rank column is not recorded; the
        # judgments' id columns are named even when they are the run's
        "columns": {"query_id": "query_id", "doc_id": "doc_id", "score": "score", "rel": "rel",
                    "judgments_query_id": "query_id", "judgments_doc_id": "doc_id"},
        "ranked_by": "score",
    }


def test_default_settings_are_recorded():
    res = sqlndcg.evaluate(GAIN_RUN, GAIN_JUDGMENTS, ["ndcg@3"])
    expected = dict(gain="exponential", ideal="judgments", ties="doc_id", short_lists="pad", empty="zero",
                    queries="judged", threshold=1.0, group_by=[], metrics=["ndcg@3"])
    assert {k: res.settings[k] for k in expected} == expected
    assert "preset" not in res.settings


# ---------------------------------------------------------------------------------------------------------------
# summary statistics
# ---------------------------------------------------------------------------------------------------------------


def test_summary_mean_count_std_and_confidence_interval():
    # P@2 per query: q1 = 2/2 = 1, q2 = 1/2, q3 = 0/2 = 0, q4 = 1/2
    run = run_frame([(q, d, s) for q in ("q1", "q2", "q3", "q4") for d, s in (("a", 2.0), ("b", 1.0))])
    judgments = judgment_frame([
        ("q1", "a", 1), ("q1", "b", 1), ("q2", "a", 1), ("q2", "b", 0),
        ("q3", "a", 0), ("q3", "c", 1), ("q4", "b", 1),
    ])
    res = sqlndcg.evaluate(run, judgments, ["p@2"])
    assert by_query(res, "p@2") == {"q1": 1.0, "q2": 0.5, "q3": 0.0, "q4": 0.5}
    row = res.summary.to_dicts()[0]
    # mean = 2 / 4 = 0.5; sample std = sqrt((0.25 + 0 + 0.25 + 0) / 3) = sqrt(1/6) = 0.408248290463863
    # CI = 0.5 +- t(0.975, 3) * std / sqrt(4), t(0.975, 3) = 3.1824463052837078 -> [-0.149614, 1.149614]
    t = scipy.stats.t.ppf(0.975, 3)
    assert t == pytest.approx(3.1824463052837078, rel=1e-12)
    std = math.sqrt(1 / 6)
    assert row["queries"] == 4
    assert row["p@2"] == pytest.approx(0.5)
    assert row["p@2_count"] == 4
    assert row["p@2_std"] == pytest.approx(std)
    assert row["p@2_ci_low"] == pytest.approx(0.5 - t * std / 2, rel=1e-9)
    assert row["p@2_ci_high"] == pytest.approx(0.5 + t * std / 2, rel=1e-9)
    assert row["p@2_ci_low"] == pytest.approx(-0.14961413181255545, rel=1e-9)


def test_summary_of_one_query_has_no_spread():
    res = sqlndcg.evaluate(GAIN_RUN, GAIN_JUDGMENTS, ["ndcg@3"])
    row = res.summary.to_dicts()[0]
    assert row["ndcg@3"] == pytest.approx(0.6885288809404666)
    assert row["ndcg@3_count"] == 1
    assert row["ndcg@3_std"] is None
    assert (row["ndcg@3_ci_low"], row["ndcg@3_ci_high"]) == (None, None)


def test_summary_columns_are_named_per_metric():
    res = sqlndcg.evaluate(GAIN_RUN, GAIN_JUDGMENTS, ["ndcg@3", "p@1"])
    assert res.summary.columns == (
        "queries",
        "ndcg@3", "ndcg@3_count", "ndcg@3_std", "ndcg@3_ci_low", "ndcg@3_ci_high",
        "p@1", "p@1_count", "p@1_std", "p@1_ci_low", "p@1_ci_high",
    )


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 9, 10, 29, 30, 100, 1000, 2.5])
@pytest.mark.parametrize("p", [0.975, 0.995, 0.9, 0.6, 0.025])
def test_t_quantile_matches_scipy(df, p):
    assert stats.t_quantile(p, df) == pytest.approx(scipy.stats.t.ppf(p, df), rel=1e-9, abs=1e-12)


def test_t_quantile_at_the_median_is_zero_and_refuses_bad_arguments():
    assert stats.t_quantile(0.5, 7) == pytest.approx(0.0, abs=1e-12)
    for p, df in ((0.0, 3), (1.0, 3), (0.975, 0)):
        with pytest.raises(ValueError):
            stats.t_quantile(p, df)
