"""A reference for counterfactual click metrics, written from the papers, impression by impression, not from the
SQL: Joachims, Swaminathan and Schnabel (WSDM 2017) weigh each click by 1 / its examination propensity; with the
policy-aware propensity of Oosterhuis and de Rijke (CIKM 2020), a document's propensity rho(d) is the mean over the
query's impressions of theta(its position there) (0 where not shown). Per query:

    ips   = 1/n sum_impressions sum_clicked d  weight(rank_new(d)) / rho(d)
    snips = ips / (1/n sum_impressions sum_clicked d 1 / rho(d))        (Swaminathan and Joachims, NeurIPS 2015)

and the summary weighs the queries by their impressions. The bootstrap's Poisson(1) draws are MD5 texts compared
with Poisson(1)'s cumulative probabilities, as sql/macros/online/resample.sql documents them, here with hashlib.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict

import numpy as np
import pandas as pd

POISSON = ["5e2d58d8", "bc5ab1b1", "eb715e1d", "fb239797", "ff1025f5", "ffd90f3b", "fffa8b71", "ffff540c"]


def poisson_weight(seed: int, b: int, keys) -> int:
    if b == 0:
        return 1
    h = hashlib.md5("/".join([str(seed), str(b), *map(str, keys)]).encode()).hexdigest()
    return next((k for k, t in enumerate(POISSON) if h[:8] < t), 8)


def weight(metric: str, r) -> float:
    """The position weight at rank r (None: not ranked)."""
    if r is None:
        return 0.0
    kind, _, k = metric.partition("@")
    if kind.startswith("rbp"):
        p = float(kind[6:-1]) if "(" in kind else 0.9
        return (1 - p) * p ** (r - 1)
    if k and r > int(k):
        return 0.0
    return {"dcg": 1 / math.log2(r + 1), "p": 1 / int(k or 1), "clicks": 1.0}[kind]


def ranks(run: pd.DataFrame) -> dict:
    """query -> {doc: rank}, score descending, equal scores by doc id descending (numbers as numbers)."""
    out: dict = defaultdict(dict)
    for q, rows in run.groupby("query_id"):
        ordered = sorted(zip(rows["score"], rows["doc_id"]), key=lambda sd: (-sd[0], _neg(sd[1])))
        out[q] = {d: i + 1 for i, (_, d) in enumerate(ordered)}
    return out


def _neg(doc):
    return -doc if isinstance(doc, (int, np.integer)) else tuple(-b for b in str(doc).encode())


def per_query(log: pd.DataFrame, run: pd.DataFrame, theta: dict, metrics, *, clip=None, groups=(),
              impression_weights=None) -> dict:
    """(group values..., query) -> {metric: (ips, naive, unknown, unknown weight share), 'rel', 'n', 'clicks',
    'u', 'u2', 'uc'}; theta: position -> propensity (or (group, position) with groups). impression_weights:
    (groups..., impression) -> weight (a bootstrap replicate)."""
    ranked = ranks(run)
    out = {}
    for key, rows in log.groupby(list(groups) + ["query_id"], sort=False):
        key = key if isinstance(key, tuple) else (key,)
        q = key[-1]
        impressions = {}
        for i, imp in rows.groupby("impression_id", sort=False):
            w = 1 if impression_weights is None else impression_weights[tuple(key[:-1]) + (i,)]
            if w:
                impressions[i] = (w, imp)
        n = sum(w for w, _ in impressions.values())
        if n == 0:
            continue
        exam: dict = defaultdict(float)
        for w, imp in impressions.values():
            for pos, d in zip(imp["position"], imp["doc_id"]):
                t = theta[(key[0], pos)] if groups and (key[0], pos) in theta else theta[pos]
                exam[d] += w * (t if clip is None else max(t, clip)) / n
        res = {"#n": n, "#clicks": 0.0, "#rel": 0.0, "#u": 0.0, "#u2": 0.0, "#uc": 0.0}
        for m in metrics:
            res[m] = [0.0, 0.0]
        for w, imp in impressions.values():
            for pos, d, c in zip(imp["position"], imp["doc_id"], imp["click"]):
                if not c:
                    continue
                t = theta[(key[0], pos)] if groups and (key[0], pos) in theta else theta[pos]
                u = 1 / exam[d]
                res["#clicks"] += w
                res["#rel"] += w * u / n
                res["#u"] += w * u
                res["#u2"] += w * u * u
                res["#uc"] += w * u if clip is not None and t < clip else 0.0
                for m in metrics:
                    res[m][0] += w * weight(m, ranked.get(q, {}).get(d)) * u / n
                    res[m][1] += w * weight(m, ranked.get(q, {}).get(d)) / n
        for m in metrics:
            placed = ranked.get(q, {})
            unknown = [d for d, r in placed.items() if d not in exam and weight(m, r) > 0]
            total = sum(weight(m, r) for r in placed.values())
            share = sum(weight(m, placed[d]) for d in unknown) / total if total > 0 else None
            res[m] = (res[m][0], res[m][1], len(unknown), share)
        out[key] = res
    return out


def summary(pq: dict, metrics, estimator: str = "ips") -> dict:
    """metric -> (value, naive, queries, impressions, clicks, unknown, unknown weight share, ess, clipped share),
    over every query of ``pq`` (one group)."""
    n = sum(r["#n"] for r in pq.values())
    rel = sum(r["#n"] * r["#rel"] for r in pq.values())
    u, u2, uc = (sum(r[k] for r in pq.values()) for k in ("#u", "#u2", "#uc"))
    out = {}
    for m in metrics:
        num = sum(r["#n"] * r[m][0] for r in pq.values())
        shares = [(r["#n"], r[m][3]) for r in pq.values() if r[m][3] is not None]
        out[m] = (num / (rel if estimator == "snips" else n), sum(r["#n"] * r[m][1] for r in pq.values()) / n,
                  len(pq), n, sum(r["#clicks"] for r in pq.values()), sum(r[m][2] for r in pq.values()),
                  sum(a * s for a, s in shares) / sum(a for a, _ in shares) if shares else None,
                  u * u / u2 if u2 else None, uc / u if u else None)
    return out


def percentile(values, q: float) -> float:
    """The nearest-rank percentile: the smallest value whose rank (from 1) is at least q * count."""
    ordered = sorted(values)
    return next(v for r, v in enumerate(ordered, 1) if r >= q * len(ordered))
