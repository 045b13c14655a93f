"""tau-AP (Yilmaz, Aslam & Robertson, "A new rank correlation coefficient for information retrieval", SIGIR 2008)
written from the paper, in numpy, as the reference of sqlndcg.system_order's SQL.

The paper: the estimated list (here the systems ordered by a source's means) against the true order (the
reference's means); for each item at position i = 2..N of the estimated list, C(i) is the number of items above it
in that list that the truth also puts above it; tau_AP = 2 / (N - 1) * sum_i C(i) / (i - 1) - 1.

Ties (sqlndcg's rule, docs/judgments.md): the items above an item are those with a strictly higher estimate; an
item with none above is skipped (as the first item is); the mean runs over the items that have some above; an item
above that the truth ties with it counts 1/2. Without ties both functions give the same number."""

from __future__ import annotations

import math

import numpy as np


def tau_ap_paper(truth, estimate) -> float:
    """The paper's formula, for estimates without ties: positions by the estimate, descending."""
    t, e = np.asarray(truth, dtype=float), np.asarray(estimate, dtype=float)
    assert len(set(e.tolist())) == len(e), "the paper's formula needs an estimated order without ties"
    order = np.argsort(-e)
    n = len(order)
    total = 0.0
    for i in range(1, n):  # position i + 1 in the paper's 1-based numbering
        item = order[i]
        above = order[:i]
        total += np.sum(t[above] > t[item]) / i
    return 2.0 / (n - 1) * total - 1.0


def tau_ap(truth, estimate) -> float:
    """With sqlndcg's tie rule (above)."""
    t, e = np.asarray(truth, dtype=float), np.asarray(estimate, dtype=float)
    shares = []
    for i in range(len(e)):
        above = np.flatnonzero(e > e[i])
        if len(above) == 0:
            continue
        correct = np.where(t[above] > t[i], 1.0, np.where(t[above] == t[i], 0.5, 0.0))
        shares.append(float(np.mean(correct)))
    return 2.0 * float(np.mean(shares)) - 1.0 if shares else math.nan


def flipped_pairs(truth, estimate) -> list[tuple[int, int]]:
    """The pairs (a, b), a the truth's winner, that the estimate orders the other way (strictly)."""
    t, e = np.asarray(truth, dtype=float), np.asarray(estimate, dtype=float)
    return [(a, b) for a in range(len(t)) for b in range(len(t)) if t[a] > t[b] and e[a] < e[b]]
