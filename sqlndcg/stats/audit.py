"""How many audited queries a prediction-powered interval needs for a given width: the arithmetic on a pilot's
handful of moments (:func:`sqlndcg.audit_size` reads the pilot).

With T queries evaluated, n of them audited (human value Y, model value Yh) and N = T - n not (model value f),
PPI's interval is mean -+ z se with se^2 = var(Y - lam Yh) / n + lam^2 var(f) / N, var(Y - lam Yh) = var(Y) -
2 lam cov(Y, Yh) + lam^2 var(Yh) (ppi_py's ppi_mean_ci, sql/macros/ppi/ppi.sql). ``"ppi"``: lam = 1; ``"ppi++"``:
lam re-tuned for each n as ppi_evaluate tunes it, lam(n) = clip(cov / ((1 + n/N) var(f)), 0, 1); a fixed lam with
the rectifier's variance given directly. A human-only mean needs var(Y) / (width / 2 / z)^2 queries."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist


@dataclass(frozen=True)
class Moments:
    """A pilot's moments (variances divided by their counts): ``var_y`` of the human values, ``var_h`` of the
    model values on the audited queries, ``cov`` between them, ``var_f`` of the model values on the others; or,
    for a fixed ``lam``, ``var_r`` the variance of the rectifier Y - lam Yh (then var_y, var_h, cov may be None)."""

    var_f: float
    var_y: float | None = None
    var_h: float | None = None
    cov: float | None = None
    var_r: float | None = None
    lam: float | None = None


def z_value(alpha: float) -> float:
    return NormalDist().inv_cdf(1.0 - alpha / 2.0)


def lam_at(m: Moments, n: float, total: float, mode: str) -> float:
    """lam with n audited of ``total`` queries: the fixed one, 1 (``"ppi"``) or PPI++'s tuned one."""
    if m.lam is not None:
        return m.lam
    if mode == "ppi":
        return 1.0
    assert m.cov is not None
    if m.var_f <= 0.0 or m.cov <= 0.0:
        return 0.0
    return min(1.0, m.cov / ((1.0 + n / (total - n)) * m.var_f))


def half_width(m: Moments, n: float, total: float, z: float, mode: str) -> tuple[float, float]:
    """(z se, lam) with n of ``total`` queries audited (0 < n < total)."""
    lam = lam_at(m, n, total, mode)
    if m.var_r is not None and m.lam is not None:
        var_r = m.var_r
    else:
        assert m.var_y is not None and m.var_h is not None and m.cov is not None
        var_r = max(0.0, m.var_y - 2.0 * lam * m.cov + lam * lam * m.var_h)
    return z * math.sqrt(var_r / n + lam * lam * m.var_f / (total - n)), lam


#: The fewest audited queries a plan offers: the audit's variance (of Y - lam Yh) needs two.
MIN_AUDITED = 2


def audited_needed(m: Moments, width: float, total: int, alpha: float, mode: str) -> tuple[int | None, float, int]:
    """(the fewest audited queries n whose interval is at most ``width`` wide, or None when no n < total reaches
    it; the narrowest width reachable; the n that reaches it). The half-width falls with n until the unaudited
    queries get few; the search runs over whole n in [MIN_AUDITED, total - 1] (ternary search for the narrowest, then
    bisection below it)."""
    z, target = z_value(alpha), width / 2.0
    hw = lambda n: half_width(m, n, total, z, mode)[0]  # noqa: E731
    lo, hi = MIN_AUDITED, total - 1
    while hi - lo > 2:
        a, b = lo + (hi - lo) // 3, hi - (hi - lo) // 3
        if hw(a) <= hw(b):
            hi = b
        else:
            lo = a
    best = min(range(lo, hi + 1), key=hw)
    if hw(best) > target:
        return None, 2.0 * hw(best), best
    lo, hi = MIN_AUDITED, best
    if hw(lo) <= target:
        return lo, 2.0 * hw(best), best
    while hi - lo > 1:  # hw(lo) > target >= hw(hi)
        mid = (lo + hi) // 2
        if hw(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi, 2.0 * hw(best), best


def human_needed(var_y: float, width: float, alpha: float) -> float:
    """The queries a human-only mean needs for the same width: var(Y) / (width / 2 / z)^2 (not rounded)."""
    return var_y / (width / 2.0 / z_value(alpha)) ** 2
