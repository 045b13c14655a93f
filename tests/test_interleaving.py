"""Team-draft interleaving (sql/macros/online/interleaving.sql, interleaving_credit.sql; sqlndcg/verbs/
interleaving.py): the lists equal a plain-Python team-draft written from Radlinski, Kurup & Joachims (CIKM 2008)
with the same MD5 coin; every prefix is fair; a seeded click simulator's users make the credit prefer the truly
better ranker and not prefer one of two identical rankers; counts, preference and the sign test equal pandas and
scipy; bad input is refused by name; the other engines give DuckDB's numbers."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

import sqlndcg
from sqlndcg import DataError, InputError, SettingError
from sqlndcg.stats.interleaving import sign_test_p


# --- the reference: team-draft as the paper states it, with the documented coin -------------------------------------

def ranked(run: pd.DataFrame, query) -> list:
    """evaluate's order: score descending, equal scores by doc id descending (numbers numerically, text by bytes)."""
    rows = run[run.query_id == query]
    key = (lambda d: d) if rows.doc_id.dtype.kind in "iu" else (lambda d: str(d).encode())
    return [d for _, d in sorted(((-s, d) for s, d in zip(rows.score, rows.doc_id)),
                                 key=lambda t: (t[0], _Desc(key(t[1]))))]


class _Desc:
    """Reverses an order (doc ids descending within a score)."""

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return other.v < self.v

    def __eq__(self, other):
        return self.v == other.v


def a_first(seed: int, list_id, round_: int) -> bool:
    """Team A picks first in round r when MD5("seed:id:r") begins with a hex digit 0-7 (its first bit is 0)."""
    return hashlib.md5(f"{seed}:{list_id}:{round_}".encode()).hexdigest()[0] < "8"


def team_draft(a: list, b: list, k: int, seed: int, list_id) -> list[tuple]:
    """Algorithm 1 of the paper: while both rankings hold a document not yet in I (and I is shorter than k), the
    team with fewer picks (on a tie: the coin's team, one flip per round) appends its highest-ranked document not
    in I."""
    out, team_a, team_b = [], 0, 0
    while len(out) < k and any(d not in [o for o, _ in out] for d in a) and any(d not in [o for o, _ in out] for d in b):
        shown = {o for o, _ in out}
        if team_a < team_b or (team_a == team_b and a_first(seed, list_id, team_a + 1)):
            out.append((next(d for d in a if d not in shown), "a"))
            team_a += 1
        else:
            out.append((next(d for d in b if d not in shown), "b"))
            team_b += 1
    return out


def reference(run_a, run_b, k, seed, impressions=None) -> list[tuple]:
    lists = (impressions[["impression_id", "query_id"]].itertuples(index=False, name=None) if impressions is not None
             else ((q, q) for q in sorted(set(run_a.query_id) | set(run_b.query_id), key=str)))
    out = []
    for list_id, q in lists:
        for pos, (d, team) in enumerate(team_draft(ranked(run_a, q), ranked(run_b, q), k, seed, list_id), 1):
            out.append(((q,) + ((list_id,) if impressions is not None else ()) + (pos, d, team)))
    return out


def random_runs(rng, queries=60, integer_ids=False):
    """Two runs with ties (scores from a few values), short and empty lists, lists of different lengths, shared
    documents, some queries in one run only."""
    frames = []
    for _ in range(2):
        rows = []
        for q in range(queries):
            n = int(rng.integers(0, 9))
            docs = rng.choice(12, size=n, replace=False)
            rows += [(f"q{q}", int(d) if integer_ids else f"d{d}", float(rng.integers(0, 4))) for d in docs]
        frames.append(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    return frames


def listed(result) -> list[tuple]:
    return sorted(result.table.rows, key=lambda r: tuple(str(v) for v in r[:-3]) + (r[-3],))


@pytest.mark.parametrize("integer_ids", [False, True])
def test_the_lists_equal_the_papers_team_draft_with_the_same_coin(integer_ids):
    rng = np.random.default_rng(7 + integer_ids)
    run_a, run_b = random_runs(rng, integer_ids=integer_ids)
    for k, seed in [(1, 0), (2, 3), (5, 11), (10, 0), (30, 2)]:  # k=30: longer than every list
        got = listed(sqlndcg.interleave(run_a, run_b, k=k, seed=seed))
        want = sorted(reference(run_a, run_b, k, seed), key=lambda r: (str(r[0]), r[1]))
        assert got == want, (k, seed)


def test_per_impression_lists_use_the_impression_id_and_equal_the_reference():
    rng = np.random.default_rng(3)
    run_a, run_b = random_runs(rng, queries=20)
    impressions = pd.DataFrame({"impression_id": range(100, 160), "query_id": [f"q{i % 20}" for i in range(60)]})
    got = sqlndcg.interleave(run_a, run_b, k=6, seed=5, impressions=impressions)
    assert got.table.columns == ("query_id", "impression_id", "position", "doc_id", "team")
    want = reference(run_a, run_b, 6, 5, impressions)
    assert sorted(got.table.rows, key=lambda r: (r[1], r[2])) == sorted(want, key=lambda r: (r[1], r[2]))
    listable = set(run_a.query_id) & set(run_b.query_id)
    without = int((~impressions.query_id.isin(listable)).sum())
    assert without and len({r[1] for r in got.table.rows}) == len(impressions) - without
    assert got.account.columns[-2:] == ("impressions", "impressions_without_list")
    assert got.account.rows[0][-2:] == (len(impressions), without)


def test_every_prefix_is_fair_and_a_list_ends_when_a_run_runs_out():
    rng = np.random.default_rng(11)
    run_a, run_b = random_runs(rng)
    rows = sqlndcg.interleave(run_a, run_b, k=12, seed=1).table.rows
    lists: dict = {}
    for q, pos, d, team in rows:
        lists.setdefault(q, []).append((pos, d, team))
    assert lists
    for q, picks in lists.items():
        assert [p for p, _, _ in picks] == list(range(1, len(picks) + 1))
        assert len({d for _, d, _ in picks}) == len(picks)
        a = b = 0
        for _, _, team in picks:
            a, b = a + (team == "a"), b + (team == "b")
            assert abs(a - b) <= 1, q
    only_a = set(run_a.query_id) - set(run_b.query_id)
    assert only_a and not only_a & set(lists)  # no list for a query one run lacks


def test_the_lists_are_determined_by_the_seed():
    rng = np.random.default_rng(5)
    run_a, run_b = random_runs(rng)
    first = sqlndcg.interleave(run_a, run_b, k=8, seed=42)
    assert first.table.rows == sqlndcg.interleave(run_a, run_b, k=8, seed=42).table.rows
    other = sqlndcg.interleave(run_a, run_b, k=8, seed=43).table.rows
    assert other != first.table.rows and {r[0] for r in other} == {r[0] for r in first.table.rows}
    assert first.settings == {"k": 8, "seed": 42, "impressions": False,
                              "columns": {"query_id": "query_id", "doc_id": "doc_id", "score": "score"}}
    assert "_s8" in first.sql
    queries = set(run_a.query_id) | set(run_b.query_id)
    assert first.account.rows == ((len(queries), len(set(run_a.query_id) - set(run_b.query_id)),
                                   len(set(run_b.query_id) - set(run_a.query_id))),)


# --- multileaving ---------------------------------------------------------------------------------------------

def team_draft_multileave(rankings: list[list], names: list[str], k: int, seed: int, list_id) -> list[tuple]:
    """Team-draft multileaving (Schuth et al., CIKM 2014): in each round the rankers, in a random order (here: by
    MD5("seed:id:round:j"), then j), each append their highest-ranked document not yet listed; the list ends at k
    or when any ranker has nothing left to add."""
    out: list[tuple] = []
    round_ = 0
    while True:
        round_ += 1
        order = sorted(range(len(rankings)),
                       key=lambda j: (hashlib.md5(f"{seed}:{list_id}:{round_}:{j + 1}".encode()).hexdigest(), j))
        for j in order:
            shown = {d for d, _ in out}
            if len(out) >= k or any(all(d in shown for d in r) for r in rankings):
                return out
            out.append((next(d for d in rankings[j] if d not in shown), names[j]))


@pytest.mark.parametrize("runs", [3, 4])
def test_multileaving_equals_the_papers_team_draft_multileaving(runs):
    rng = np.random.default_rng(50 + runs)
    frames = [f for _ in range((runs + 1) // 2) for f in random_runs(rng, queries=40)][:runs]
    names = ["bm25", "dense", "hybrid", "ltr"][:runs]
    for k, seed in [(3, 0), (8, 5), (30, 1)]:
        got = sqlndcg.multileave(dict(zip(names, frames)), k=k, seed=seed)
        want = []
        for q in sorted(set().union(*(f.query_id for f in frames)), key=str):
            picks = team_draft_multileave([ranked(f, q) for f in frames], names, k, seed, q)
            want += [(q, pos, d, team) for pos, (d, team) in enumerate(picks, 1)]
        assert listed(got) == sorted(want, key=lambda r: (str(r[0]), r[1])), (k, seed)
        counts: dict = {}
        for q, _, _, team in got.table.rows:  # every prefix: the runs' counts differ by at most one
            seen = counts.setdefault(q, dict.fromkeys(names, 0))
            seen[team] += 1
            assert max(seen.values()) - min(seen.values()) <= 1
    assert got.settings["runs"] == names
    assert got.account.columns == ("queries",) + tuple(f"not_in_{n}" for n in names)
    queries = set().union(*(f.query_id for f in frames))
    assert got.account.rows[0] == (len(queries),) + tuple(len(queries - set(f.query_id)) for f in frames)


def test_multileaving_refuses_fewer_than_two_or_repeated_runs():
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["x"], "score": [1.0]})
    with pytest.raises(SettingError, match="give 2 to 9 runs"):
        sqlndcg.multileave({"only": run})
    with pytest.raises(SettingError, match="runs must map run names to runs"):
        sqlndcg.multileave([run, run])


# --- credit --------------------------------------------------------------------------------------------------------

def random_log(rng, impressions=400, groups=("mon", "tue")) -> pd.DataFrame:
    """Interleaved impressions of 1..6 documents with random clicks and teams (some rows of neither team)."""
    rows = []
    for i in range(impressions):
        n = int(rng.integers(1, 7))
        for pos in range(1, n + 1):
            team = rng.choice(["a", "b", None], p=[0.45, 0.45, 0.1])
            rows.append((i, f"q{i % 7}", f"d{pos}", pos, int(rng.random() < 0.2), team, groups[i % len(groups)]))
    return pd.DataFrame(rows, columns=["impression_id", "query_id", "doc_id", "position", "click", "team", "day"])


def pandas_credit(log: pd.DataFrame, no_clicks: str = "tie") -> dict:
    """Per day: (impressions, wins_a, wins_b, ties) and the account, counted with pandas."""
    out = {}
    for day, g in log.groupby("day"):
        per = g.assign(ca=g.click * (g.team == "a"), cb=g.click * (g.team == "b"), teamed=g.team.notna())
        per = per.groupby("impression_id").agg(ca=("ca", "sum"), cb=("cb", "sum"), clicks=("click", "sum"),
                                               teamed=("teamed", "sum"))
        counted = per[(per.teamed > 0) & ((per.clicks > 0) | (no_clicks == "tie"))]
        wa, wb = int((counted.ca > counted.cb).sum()), int((counted.cb > counted.ca).sum())
        account = (len(per), int((per.teamed == 0).sum()), int(((per.teamed > 0) & (per.clicks == 0)).sum()),
                   int((per.clicks - per.ca - per.cb).sum()))
        out[day] = ((len(counted), wa, wb, len(counted) - wa - wb), account)
    return out


@pytest.mark.parametrize("no_clicks", ["tie", "drop"])
def test_wins_ties_preference_and_account_equal_pandas(no_clicks):
    log = random_log(np.random.default_rng(1))
    log.loc[log.impression_id == 5, "team"] = None  # an impression without any team row
    res = sqlndcg.interleaving_credit(log, group_by="day", no_clicks=no_clicks, bootstrap=200, seed=3)
    want = pandas_credit(log, no_clicks)
    assert res.table.columns == ("day", "impressions", "wins_a", "wins_b", "ties", "preference", "ci_low",
                                 "ci_high", "p_value")
    for row, acc in zip(res.table.to_dicts(), res.account.rows):
        counts, account = want[row["day"]]
        n, wa, wb, t = counts
        assert (row["impressions"], row["wins_a"], row["wins_b"], row["ties"]) == counts
        assert row["preference"] == pytest.approx((wa + t / 2) / n - 0.5, abs=1e-12)
        assert row["p_value"] == pytest.approx(binomtest(wa, wa + wb, 0.5).pvalue, rel=1e-9)
        assert row["ci_low"] <= row["preference"] <= row["ci_high"]
        assert acc == (row["day"],) + account
    assert sum(a[2] for a in res.account.rows) >= 1
    assert res.settings["no_clicks"] == no_clicks and res.settings["group_by"] == ["day"]
    assert "_wins_a" in res.sql


@pytest.mark.parametrize("wins", [(0, 0), (3, 3), (0, 5), (7, 2), (40, 61), (10100, 9950), (30000, 29400),
                                  (12, 100000)])
def test_the_sign_test_equals_scipys_exact_binomial_test(wins):
    a, b = wins
    got = sign_test_p(a, b)
    if a + b == 0:
        assert got is None
    else:
        assert got == pytest.approx(binomtest(a, a + b, 0.5).pvalue, rel=1e-9, abs=1e-300)


def test_the_bootstrap_interval_is_seeded_and_as_wide_as_the_normal_approximation():
    log = random_log(np.random.default_rng(2), impressions=1500, groups=("all",))
    first = sqlndcg.interleaving_credit(log, bootstrap=2000, seed=9).table.to_dicts()[0]
    again = sqlndcg.interleaving_credit(log, bootstrap=2000, seed=9).table.to_dicts()[0]
    assert first == again
    other = sqlndcg.interleaving_credit(log, bootstrap=2000, seed=10).table.to_dicts()[0]
    assert (other["ci_low"], other["ci_high"]) != (first["ci_low"], first["ci_high"])
    n, wa, wb, t = first["impressions"], first["wins_a"], first["wins_b"], first["ties"]
    x = np.array([1.0] * wa + [0.5] * t + [0.0] * wb)
    normal = 2 * 1.959964 * x.std() / np.sqrt(n)
    assert first["ci_high"] - first["ci_low"] == pytest.approx(normal, rel=0.12)
    none = sqlndcg.interleaving_credit(log, bootstrap=0).table.to_dicts()[0]
    assert none["ci_low"] is None and none["preference"] == first["preference"]


# --- a click simulator: users who know the relevance click -----------------------------------------------------------

def simulate(better: bool, sims: int = 10, impressions: int = 250):
    """Queries with graded documents; ranker A orders by relevance plus noise, ranker B by half the relevance plus
    more noise (or is A itself). Users of each impression examine position p with probability 1 / p and click an examined document with
    probability (2^rel - 1) / 8 (the position-based model). Returns the credit per simulation."""
    rng = np.random.default_rng(2024)
    queries, docs = 40, 15
    rel = {(f"q{q}", f"d{d}"): int(rng.choice(4, p=[0.5, 0.25, 0.15, 0.1])) for q in range(queries) for d in range(docs)}
    keys = list(rel)
    run_a = pd.DataFrame({"query_id": [q for q, _ in keys], "doc_id": [d for _, d in keys],
                          "score": [rel[key] + rng.normal(0, 0.7) for key in keys]})
    weaker = [0.5 * rel[key] + rng.normal(0, 1.2) for key in keys]  # B sees the relevance through more noise
    run_b = run_a if not better else run_a.assign(score=weaker)
    shown = pd.DataFrame({"impression_id": [f"{s}-{i}" for s in range(sims) for i in range(impressions)],
                          "query_id": [f"q{int(q)}" for q in rng.integers(0, queries, sims * impressions)]})
    lists = sqlndcg.interleave(run_a, run_b, k=10, seed=1, impressions=shown).table.to_pandas()
    click_rng = np.random.default_rng(7)
    grade = lists.apply(lambda r: rel[(r.query_id, r.doc_id)], axis=1).to_numpy()
    examined = click_rng.random(len(lists)) < 1 / lists.position.to_numpy()
    lists["click"] = (examined & (click_rng.random(len(lists)) < (2.0 ** grade - 1) / 8)).astype(int)
    lists["sim"] = lists.impression_id.str.split("-").str[0].astype(int)
    return sqlndcg.interleaving_credit(lists, group_by="sim", bootstrap=300).table.to_dicts()


def test_the_credit_prefers_the_truly_better_ranker():
    rows = simulate(better=True)
    assert sum(r["preference"] > 0 and r["p_value"] < 0.05 for r in rows) >= 9, rows
    assert sum(r["ci_low"] > 0 for r in rows) >= 9


def test_the_credit_prefers_neither_of_two_identical_rankers():
    rows = simulate(better=False, sims=20)
    assert sum(r["p_value"] > 0.05 for r in rows) >= 17, rows
    assert sum(r["ci_low"] <= 0 <= r["ci_high"] for r in rows) >= 17
    assert abs(np.mean([r["preference"] for r in rows])) < 0.03


def test_a_multileaved_log_is_credited_per_pair_as_pandas_counts():
    log = random_log(np.random.default_rng(60), impressions=300)
    log["team"] = np.random.default_rng(61).choice(["x", "y", "z", None], size=len(log), p=[0.3, 0.3, 0.3, 0.1])
    res = sqlndcg.interleaving_credit(log, teams=["x", "y", "z"], group_by="day", bootstrap=100)
    assert res.table.columns[:3] == ("day", "team_a", "team_b")
    assert [r[1:3] for r in res.table.rows[:3]] == [("x", "y"), ("x", "z"), ("y", "z")]
    for row in res.table.to_dicts():
        g = log[log.day == row["day"]]
        per = g.assign(ca=g.click * (g.team == row["team_a"]), cb=g.click * (g.team == row["team_b"]),
                       teamed=g.team.notna()).groupby("impression_id")[["ca", "cb", "teamed"]].sum()
        per = per[per.teamed > 0]
        wa, wb = int((per.ca > per.cb).sum()), int((per.cb > per.ca).sum())
        assert (row["impressions"], row["wins_a"], row["wins_b"], row["ties"]) == (len(per), wa, wb, len(per) - wa - wb)
        assert row["p_value"] == pytest.approx(binomtest(wa, wa + wb, 0.5).pvalue, rel=1e-9)
    assert res.account.rows == sqlndcg.interleaving_credit(log.assign(team=log.team.map({"x": "a", "y": "b", "z": "a"})),
                                                           group_by="day", bootstrap=0).account.rows
    assert res.settings["teams"] == ["x", "y", "z"]
    with pytest.raises(DataError, match=r"is neither one of \['x', 'y'\]"):
        sqlndcg.interleaving_credit(log, teams=["x", "y"])


def test_multileaved_credit_prefers_the_better_of_three_rankers_and_not_a_copy():
    rng = np.random.default_rng(77)
    rel = {(f"q{q}", f"d{d}"): int(rng.choice(4, p=[0.5, 0.25, 0.15, 0.1])) for q in range(40) for d in range(15)}
    keys = list(rel)
    good = pd.DataFrame({"query_id": [q for q, _ in keys], "doc_id": [d for _, d in keys],
                         "score": [rel[key] + rng.normal(0, 0.7) for key in keys]})
    bad = good.assign(score=[0.5 * rel[key] + rng.normal(0, 1.2) for key in keys])
    sims, per_sim = 10, 300
    shown = pd.DataFrame({"impression_id": [f"{s}-{i}" for s in range(sims) for i in range(per_sim)],
                          "query_id": [f"q{int(q)}" for q in rng.integers(0, 40, sims * per_sim)]})
    lists = sqlndcg.multileave({"good": good, "bad": bad, "copy": good}, k=10, seed=3, impressions=shown).table.to_pandas()
    grade = lists.apply(lambda r: rel[(r.query_id, r.doc_id)], axis=1).to_numpy()
    examined = rng.random(len(lists)) < 1 / lists.position.to_numpy()
    lists["click"] = (examined & (rng.random(len(lists)) < (2.0 ** grade - 1) / 8)).astype(int)
    lists["sim"] = lists.impression_id.str.split("-").str[0].astype(int)
    rows = sqlndcg.interleaving_credit(lists, teams=["good", "bad", "copy"], group_by="sim", bootstrap=0).table.to_dicts()
    pairs = {(r["team_a"], r["team_b"]): [] for r in rows}
    for r in rows:
        pairs[(r["team_a"], r["team_b"])].append(r)
    assert sum(r["preference"] > 0 and r["p_value"] < 0.05 for r in pairs[("good", "bad")]) >= 9
    assert sum(r["preference"] < 0 and r["p_value"] < 0.05 for r in pairs[("bad", "copy")]) >= 9
    assert sum(r["p_value"] > 0.05 for r in pairs[("good", "copy")]) >= 8


# --- input errors ------------------------------------------------------------------------------------------------

def test_a_team_other_than_a_or_b_is_refused_naming_the_log_column_and_row():
    log = random_log(np.random.default_rng(4), impressions=5, groups=("x",))
    log.loc[3, "team"] = "c"
    with pytest.raises(DataError) as err:
        sqlndcg.interleaving_credit(log)
    words = str(err.value)
    assert "log" in words and "'team'" in words and "is neither 'a' nor 'b'" in words and "team='c'" in words
    assert f"impression_id={log.impression_id[3]}" in words


def test_a_log_without_a_team_column_is_refused_by_name():
    log = random_log(np.random.default_rng(4), impressions=5, groups=("x",)).drop(columns="team")
    with pytest.raises(InputError, match="no team column 'team'"):
        sqlndcg.interleaving_credit(log)
    with pytest.raises(InputError, match="no team column 'side'"):
        sqlndcg.interleaving_credit(log, team="side")


def test_bad_runs_impressions_and_settings_are_refused_by_name():
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["x", "x"], "score": [1.0, 2.0]})
    good = run.iloc[:1]
    with pytest.raises(DataError, match=r"run_a.*\(query, document\) pairs occur more than once.*doc_id='x'"):
        sqlndcg.interleave(run, good)
    with pytest.raises(DataError, match=r"run_b.*'score' is NULL"):
        sqlndcg.interleave(good, good.assign(score=[np.nan]))
    twice = pd.DataFrame({"impression_id": [1, 1], "query_id": ["q", "q"]})
    with pytest.raises(DataError, match=r"impressions.*impression ids occur more than once"):
        sqlndcg.interleave(good, good, impressions=twice)
    with pytest.raises(InputError, match="no score column 'score'"):
        sqlndcg.interleave(good.drop(columns="score"), good)
    for k in (0, 101, 2.5, True):
        with pytest.raises(SettingError, match="k must be a whole number from 1 to 100"):
            sqlndcg.interleave(good, good, k=k)
    with pytest.raises(SettingError, match="seed must be a whole number"):
        sqlndcg.interleave(good, good, seed=-1)
    log = random_log(np.random.default_rng(4), impressions=3, groups=("x",))
    with pytest.raises(SettingError, match="no_clicks='both' is not allowed"):
        sqlndcg.interleaving_credit(log, no_clicks="both")
    with pytest.raises(SettingError, match="bootstrap must be"):
        sqlndcg.interleaving_credit(log, bootstrap=-1)


# --- every engine gives DuckDB's numbers ------------------------------------------------------------------------

def clickhouse_table(con, name: str, df: pd.DataFrame) -> str:
    """A frame as a ClickHouse Memory table (chdb reads no frames; its DB-API binds no parameters: literals)."""
    def column_type(s):
        base = "Int64" if s.dtype.kind in "iu" else "Float64" if s.dtype.kind == "f" else "String"
        return f"Nullable({base})" if s.isna().any() else base

    def literal(v):
        if v is None or v != v:  # None, or pandas' NaN for a missing value
            return "NULL"
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'" if isinstance(v, str) else repr(v)

    cur = con.cursor()
    cur.execute(f"DROP TABLE IF EXISTS {name}")
    cur.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {column_type(df[c])}' for c in df.columns)}) ENGINE = Memory")
    cur.execute(f"INSERT INTO {name} VALUES " + ", ".join(
        "(" + ", ".join(literal(v) for v in row) + ")" for row in df.astype(object).itertuples(index=False, name=None)))
    return name


def same_on(con, load=lambda name, df: df) -> None:
    """interleave (with and without impressions, text and integer ids), multileave of three runs and
    interleaving_credit on ``con`` equal DuckDB's."""
    for integer_ids in (False, True):
        run_a, run_b = random_runs(np.random.default_rng(21), queries=12, integer_ids=integer_ids)
        shown = pd.DataFrame({"impression_id": range(30), "query_id": [f"q{i % 12}" for i in range(30)]})
        for kwargs in ({"k": 7, "seed": 4}, {"k": 3, "seed": 0}):
            want = sqlndcg.interleave(run_a, run_b, **kwargs).table.rows
            got = sqlndcg.interleave(load(f"ra_{integer_ids:d}", run_a), load(f"rb_{integer_ids:d}", run_b), con=con,
                                     **kwargs).table.rows
            assert sorted(got) == sorted(want), kwargs
        want = sqlndcg.interleave(run_a, run_b, k=5, seed=2, impressions=shown).table.rows
        got = sqlndcg.interleave(load(f"ra_{integer_ids:d}", run_a), load(f"rb_{integer_ids:d}", run_b), k=5, seed=2,
                                 impressions=load("shown", shown), con=con).table.rows
        assert sorted(got) == sorted(want)
        want = sqlndcg.interleave(run_a, run_b, k=5, impressions=shown).account.rows
        assert sqlndcg.interleave(load(f"ra_{integer_ids:d}", run_a), load(f"rb_{integer_ids:d}", run_b), k=5,
                                  impressions=load("shown", shown), con=con).account.rows == want
    runs = dict(zip(["x", "y", "z"], random_runs(np.random.default_rng(23), queries=12) + random_runs(
        np.random.default_rng(24), queries=12)[:1]))
    want = sqlndcg.multileave(runs, k=6, seed=1)
    got = sqlndcg.multileave({name: load(f"m_{name}", run) for name, run in runs.items()}, k=6, seed=1, con=con)
    assert sorted(got.table.rows) == sorted(want.table.rows) and got.account.rows == want.account.rows
    log = random_log(np.random.default_rng(22), impressions=80)
    want = sqlndcg.interleaving_credit(log, group_by="day", bootstrap=100)
    got = sqlndcg.interleaving_credit(load("log", log), group_by="day", bootstrap=100, con=con)
    assert got.table.rows == want.table.rows and got.account.rows == want.account.rows
    log = log.assign(team=log.team.map({"a": "x", "b": "y"}).where(log.position % 3 != 0, "z"))
    want = sqlndcg.interleaving_credit(log, teams=["x", "y", "z"], bootstrap=50)
    got = sqlndcg.interleaving_credit(load("mlog", log), teams=["x", "y", "z"], bootstrap=50, con=con)
    assert got.table.rows == want.table.rows and got.account.rows == want.account.rows


def test_sqlite_gives_duckdbs_lists_and_credit():
    import sqlite3

    same_on(sqlite3.connect(":memory:"))


def test_datafusion_gives_duckdbs_lists_and_credit():
    import datafusion

    same_on(datafusion.SessionContext())


@pytest.mark.slow  # chdb's Memory tables take seconds to set up; the full suite runs it
def test_clickhouse_gives_duckdbs_lists_and_credit():
    from chdb import dbapi

    con = dbapi.connect()
    same_on(con, lambda name, df: clickhouse_table(con, name, df))


def test_postgres_gives_duckdbs_lists_and_credit(postgres):
    with postgres.connect(postgres.dbname_icu) as con:
        same_on(con)


def test_spark_gives_duckdbs_lists_and_credit(spark):
    same_on(spark, lambda name, df: spark.createDataFrame(df.astype(object).where(df.notna(), None)))


def test_mariadb_gives_duckdbs_lists_and_credit(mariadb):
    con = mariadb.connect()
    try:
        same_on(con)
    finally:
        con.close()


def test_snowflake_on_fakesnow_gives_duckdbs_lists_and_credit(fakesnow):
    from snowflake_tables import load_snowflake

    same_on(fakesnow, lambda name, df: load_snowflake(fakesnow, name, df))


# --- the command line ---------------------------------------------------------------------------------------------

def test_the_command_line_interleaves_and_credits_as_python_does(tmp_path, capsys):
    from sqlndcg.cli import main

    run_a, run_b = random_runs(np.random.default_rng(31), queries=8)
    run_a.to_csv(tmp_path / "a.csv", index=False)
    run_b.to_csv(tmp_path / "b.csv", index=False)
    assert main(["interleave", "--run-a", str(tmp_path / "a.csv"), "--run-b", str(tmp_path / "b.csv"), "-k", "4",
                 "--seed", "3", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "query_id,position,doc_id,team"
    want = sqlndcg.interleave(run_a, run_b, k=4, seed=3).table.rows
    assert lines[1:] == [",".join(str(v) for v in r) for r in want]
    log = random_log(np.random.default_rng(32), impressions=50)
    log.to_csv(tmp_path / "log.csv", index=False)
    assert main(["interleaving_credit", "--log", str(tmp_path / "log.csv"), "--group-by", "day", "--bootstrap", "50",
                 "--format", "json", "--account"]) == 0
    out = capsys.readouterr().out
    want = sqlndcg.interleaving_credit(log, group_by="day", bootstrap=50)
    assert f'"wins_a": {want.table.to_dicts()[0]["wins_a"]}' in out and '"without_team"' in out
    assert main(["interleaving_credit", "--log", str(tmp_path / "log.csv"), "--team-column", "side"]) == 2
    assert "no team column 'side'" in capsys.readouterr().err
    assert main(["multileave", "--run", f"x={tmp_path / 'a.csv'}", "--run", f"y={tmp_path / 'b.csv'}", "--run",
                 f"z={tmp_path / 'a.csv'}", "-k", "5", "--format", "csv"]) == 0
    want = sqlndcg.multileave({"x": run_a, "y": run_b, "z": run_a}, k=5).table.rows
    assert capsys.readouterr().out.splitlines()[1:] == [",".join(str(v) for v in r) for r in want]
    log.assign(team=log.team.map({"a": "x", "b": "y"})).to_csv(tmp_path / "mlog.csv", index=False)
    assert main(["interleaving_credit", "--log", str(tmp_path / "mlog.csv"), "--teams", "x,y,z", "--format",
                 "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("team_a,team_b,impressions,wins_a")
    assert main(["multileave", "--run", f"x={tmp_path / 'a.csv'}", "--run", str(tmp_path / "b.csv")]) == 2
    assert "give each run as NAME=FILE_OR_TABLE" in capsys.readouterr().err


# --- dbt ------------------------------------------------------------------------------------------------------------

@pytest.mark.engine
def test_the_dbt_macros_build_the_same_lists_multileaved_lists_and_credit(tmp_path):
    import duckdb
    from test_dbt import REPO, dbt

    project = tmp_path / "proj"
    (project / "seeds").mkdir(parents=True)
    (project / "models").mkdir()
    run_a, run_b = random_runs(np.random.default_rng(41), queries=10)
    log = random_log(np.random.default_rng(42), impressions=60).assign(team=lambda f: f.team.fillna("a"))
    for name, frame in (("run_a", run_a), ("run_b", run_b), ("log", log)):
        frame.to_csv(project / "seeds" / f"{name}.csv", index=False)
    (project / "models" / "lists.sql").write_text(
        "{{ sqlndcg.interleave(run_a=ref('run_a'), run_b=ref('run_b'), k=6, seed=5) }}\n")
    (project / "models" / "multi.sql").write_text(
        "{{ sqlndcg.multileave(runs={'x': ref('run_a'), 'y': ref('run_b'), 'z': ref('run_a')}, k=5, seed=2) }}\n")
    (project / "models" / "credit.sql").write_text(
        "{{ sqlndcg.interleaving_credit(log=ref('log'), group_by=['day'], no_clicks='drop') }}\n")
    (project / "dbt_project.yml").write_text(
        "name: interleaving\nversion: '1.0.0'\nconfig-version: 2\nprofile: interleaving\n"
        "models:\n  interleaving:\n    +materialized: table\n")
    (project / "profiles.yml").write_text(
        f"interleaving:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: '{project / 'i.duckdb'}'\n      threads: 1\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    dbt(project, "deps")
    dbt(project, "build")
    with duckdb.connect(str(project / "i.duckdb"), read_only=True) as con:
        lists = con.execute("SELECT * FROM lists").fetchall()
        multi = con.execute("SELECT * FROM multi").fetchall()
        credit = con.execute("SELECT day, impressions, wins_a, wins_b, ties, preference FROM credit ORDER BY day").fetchall()
    assert sorted(lists) == sorted(sqlndcg.interleave(run_a, run_b, k=6, seed=5).table.rows)
    assert sorted(multi) == sorted(sqlndcg.multileave({"x": run_a, "y": run_b, "z": run_a}, k=5, seed=2).table.rows)
    want = sqlndcg.interleaving_credit(log, group_by="day", no_clicks="drop", bootstrap=0).table.rows
    assert credit == [r[:6] for r in want]
