"""The statistics of interleaving credit from its counts (wins of A, wins of B, ties per group): the preference
(Chapelle et al., TOIS 2012), the exact two-sided sign test on wins (ties dropped) and a percentile bootstrap
interval of the preference over impressions. Pure Python, as :mod:`sqlndcg.stats.paired` is."""

from __future__ import annotations

from typing import Sequence

from . import distributions
from .paired import bootstrap_intervals

#: Above this many wins the sign test's binomial tail comes from the regularized incomplete beta function, below it
#: from exact integer sums.
_EXACT_UP_TO = 20000


def preference(wins_a: int, wins_b: int, ties: int) -> float | None:
    """(wins_a + ties / 2) / impressions - 1/2: above 0 when A is preferred; None without impressions."""
    n = wins_a + wins_b + ties
    return None if n == 0 else (wins_a + ties / 2) / n - 0.5


def sign_test_p(wins_a: int, wins_b: int) -> float | None:
    """Two-sided exact binomial (sign) test of wins_a against wins_b, success probability 1/2: 2 P(X <= min) capped
    at 1, X ~ Binomial(wins_a + wins_b, 1/2); None without wins."""
    n, low = wins_a + wins_b, min(wins_a, wins_b)
    if n == 0:
        return None
    if wins_a == wins_b:
        return 1.0
    if n <= _EXACT_UP_TO:
        term, tail = 1, 1
        for i in range(low):
            term = term * (n - i) // (i + 1)
            tail += term
        return min(1.0, tail * 2 / 2 ** n)
    return min(1.0, 2 * distributions._betainc(n - low, low + 1, 0.5))


def preference_intervals(counts: Sequence[tuple[int, int, int]], *, resamples: int, seed: int,
                         level: float = 0.95) -> list[tuple[float | None, float | None]]:
    """Per (wins_a, wins_b, ties): the percentile bootstrap interval of the preference, impressions resampled with
    replacement (each scored 1 when A won, 1/2 for a tie, 0 when B won), ``resamples`` times from ``seed``."""
    samples = [[1.0] * a + [0.5] * t + [0.0] * b for a, b, t in counts]
    given = [s for s in samples if s]
    found = iter(bootstrap_intervals(given, resamples=resamples, seed=seed, level=level, bounds=[(0.0, 1.0)] * len(given))
                 if given and resamples else [])
    out: list[tuple[float | None, float | None]] = []
    for s in samples:
        if not s or not resamples:
            out.append((None, None))
            continue
        low, high = next(found)
        out.append((low - 0.5, high - 0.5))
    return out


def credit_rows(groups: Sequence[tuple], counts: Sequence[tuple[int, int, int]], *, resamples: int, seed: int,
                level: float = 0.95) -> list[tuple]:
    """Per group: the group's values, impressions, wins_a, wins_b, ties, preference, its interval, the sign test's
    p-value."""
    intervals = preference_intervals(counts, resamples=resamples, seed=seed, level=level)
    return [tuple(g) + (a + b + t, a, b, t, preference(a, b, t), low, high, sign_test_p(a, b))
            for g, (a, b, t), (low, high) in zip(groups, counts, intervals)]
