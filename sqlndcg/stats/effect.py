"""One-sided tests of the paired comparison (the regression gate's), from the moments compare already has (mean
difference, its standard deviation and effective n), so they need no second pass over the queries. The effect
size itself (Cohen's d_z) is SQL: compare.sql's effect_size column."""

from __future__ import annotations

import math

from . import distributions

#: A standard deviation (or mean difference) at most this share of its values' scale, max(1, |values|), is float
#: rounding, not spread: a metric value carries ~1e-16 relative error per addition, so 1e-12 leaves room for 10^4
#: additions, and no two systems really differ by a trillionth of the metric's scale. compare.sql's
#: _within_rounding (the effect size d_z, the difference's sd) and its ties (|a - b| <= 1e-12 (|a| + |b|)) use it.
ROUNDING = 1e-12


def within_rounding(value: float, scale: float) -> bool:
    """Whether ``value`` is 0 up to float rounding of numbers of magnitude ``scale`` (metric values: 1)."""
    return abs(value) <= ROUNDING * max(1.0, abs(scale))


def worse_p(mean: float | None, std: float | None, n, margin: float = 0.0) -> float | None:
    """One-sided p-value of the paired t test of H0: mean difference >= -margin against H1: < -margin,
    P(T(n - 1) <= (mean + margin) / (std / sqrt(n))). None with fewer than two pairs; with no spread, 0 when the
    difference is below -margin and 1 otherwise."""
    if mean is None or std is None or n is None or n < 2:
        return None
    shifted = mean + margin
    if std == 0.0:
        return 0.0 if shifted < 0.0 else 1.0
    t = shifted / (std / math.sqrt(int(n)))
    tail = distributions.t_two_sided_p(t, int(n) - 1) / 2.0  # accurate in the far tail, unlike 1 - cdf
    return tail if t <= 0.0 else 1.0 - tail
