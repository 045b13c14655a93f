"""A click simulator for the click tools' tests (numpy, seeded), and a reference position-based-model EM written
from Chuklin, Markov and de Rijke, Click Models for Web Search (2015), section 4.2, not from the SQL.

Users click under the position-based model: a document d of query q shown at position p is clicked with
probability theta(p) * gamma(q, d), theta(1) = 1. A production ranker shows each query's documents in a fixed
order (by a noisy copy of gamma); a share of impressions shuffles the shown positions uniformly and flags them
``randomized``. ``python -m tests.clicksim`` writes the bundled examples, sqlndcg/examples/clicks.csv and clicks_run.csv (a new
ranker's run over every document of the log's queries, the never-shown ones too).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

THETA = 1.0 / np.arange(1, 11) ** 0.8  # the examination probability of positions 1..10


@dataclass
class Simulated:
    log: pd.DataFrame
    theta: np.ndarray  # theta(1..depth)
    gamma: dict  # (query_id, doc_id) -> attractiveness


def simulate(seed: int, impressions: int = 2000, queries: int = 20, depth: int = 5, randomized: float = 0.5,
             theta: np.ndarray = THETA, integer_ids: bool = False, propensity: bool = False) -> Simulated:
    rng = np.random.default_rng(seed)
    docs = depth + 3
    gamma = rng.beta(1.0, 2.0, size=(queries, docs))
    production = np.argsort(-(gamma + rng.normal(0, 0.15, size=gamma.shape)), axis=1)[:, :depth]
    rows = []
    for i in range(impressions):
        q = int(rng.integers(queries))
        shown = production[q].copy()
        flag = rng.random() < randomized
        if flag:
            shown = rng.permutation(shown)
        clicks = rng.random(depth) < theta[:depth] * gamma[q, shown]
        for p in range(depth):
            rows.append((i + 1 if integer_ids else f"i{i + 1}", q + 1 if integer_ids else f"q{q + 1}",
                         int(shown[p]) + 1 if integer_ids else f"d{q + 1}_{shown[p] + 1}", p + 1, int(clicks[p]),
                         int(flag), round(float(theta[p]), 4)))
    log = pd.DataFrame(rows, columns=["impression_id", "query_id", "doc_id", "position", "click", "randomized",
                                      "propensity"])
    if not propensity:
        log = log.drop(columns="propensity")
    key = (lambda q, d: (q + 1, d + 1)) if integer_ids else (lambda q, d: (f"q{q + 1}", f"d{q + 1}_{d + 1}"))
    return Simulated(log, theta[:depth], {key(q, d): gamma[q, d] for q in range(queries) for d in range(docs)})


def new_ranking(sim: Simulated, seed: int, noise: float = 0.1, shown_only: bool = True) -> pd.DataFrame:
    """A new ranker's run (query_id, doc_id, score): each query's documents by a noisy copy of gamma (another noise
    than production's, so the order differs); ``shown_only`` ranks only the documents the log shows, else every
    document of the query, the never-shown ones too."""
    rng = np.random.default_rng(seed)
    shown = set(zip(sim.log["query_id"], sim.log["doc_id"]))
    rows = [(q, d, float(g + rng.normal(0, noise))) for (q, d), g in sim.gamma.items()
            if not shown_only or (q, d) in shown]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def pbm_em(log: pd.DataFrame, iterations: int) -> tuple[np.ndarray, dict]:
    """The position-based model fitted by EM, row by row: for a row with click c, P(E=1 | c) is 1 for a click and
    theta (1 - gamma) / (1 - theta gamma) for a skip, P(R=1 | c) is 1 for a click and (1 - theta) gamma /
    (1 - theta gamma) for a skip; theta(p) is the mean of P(E=1 | c) over the rows at p and gamma(q, d) the mean of
    P(R=1 | c) over the rows of (q, d). Starts from theta = gamma = 0.5. Returns theta / theta(1) and gamma *
    theta(1) per (query_id, doc_id)."""
    positions = log["position"].to_numpy() - 1
    pairs, pair = np.unique(log[["query_id", "doc_id"]].astype(str).agg("\x00".join, axis=1), return_inverse=True)
    c = log["click"].to_numpy().astype(float)
    theta = np.full(positions.max() + 1, 0.5)
    gamma = np.full(len(pairs), 0.5)
    shown_at = np.bincount(positions)
    shown_pair = np.bincount(pair)
    for _ in range(iterations):
        t, g = theta[positions], gamma[pair]
        examined = c + (1 - c) * t * (1 - g) / (1 - t * g)
        relevant = c + (1 - c) * (1 - t) * g / (1 - t * g)
        theta = np.bincount(positions, weights=examined) / shown_at
        gamma = np.bincount(pair, weights=relevant) / shown_pair
    first = log.drop_duplicates(["query_id", "doc_id"]).set_index(log[["query_id", "doc_id"]].drop_duplicates()
                                                                     .astype(str).agg("\x00".join, axis=1))
    names = {k: (first.loc[k, "query_id"], first.loc[k, "doc_id"]) for k in pairs}
    return theta / theta[0], {names[k]: gamma[i] * theta[0] for i, k in enumerate(pairs)}


if __name__ == "__main__":
    examples = Path(__file__).resolve().parents[1] / "sqlndcg" / "examples"
    sim = simulate(seed=31, impressions=1000, queries=20, depth=5, randomized=0.5, propensity=True)
    sim.log.to_csv(examples / "clicks.csv", index=False)
    new_ranking(sim, seed=32, shown_only=False).round(4).to_csv(examples / "clicks_run.csv", index=False)
    print(f"wrote {examples / 'clicks.csv'} and {examples / 'clicks_run.csv'}")
