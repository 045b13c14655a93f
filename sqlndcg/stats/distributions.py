"""Confidence intervals for means of per-query metrics (Student's t, no SciPy needed at run time)."""

from __future__ import annotations

import math


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with df degrees of freedom, by bisection on the CDF (to ~1e-12)."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError("t_quantile needs 0 < p < 1 and df > 0")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


def mean_interval(mean: float | None, std: float | None, n: int, level: float = 0.95):
    """(low, high) of the level-confidence interval of a mean; (None, None) with fewer than two values."""
    if mean is None or std is None or n < 2:
        return None, None
    half = t_quantile(0.5 + level / 2.0, n - 1) * std / math.sqrt(n)
    return mean - half, mean + half


# --- Two-sided p-values of Student's t, accurate also for many degrees of freedom ----------------------------------

def _log_beta_half(a: float) -> float:
    """log B(a, 1/2) = lgamma(a) + lgamma(1/2) - lgamma(a + 1/2), without the cancellation of lgamma at large a.

    For a >= 20, lgamma(a + 1/2) - lgamma(a) is the asymptotic series 1/2 log a - 1/(8a) + 1/(192a^3) - 1/(640a^5)
    + 17/(14336a^7) - 31/(18432a^9) (from log Gamma(z + h) ~ (z + h - 1/2) log z - z + ... with Bernoulli polynomials
    at h = 1/2 and 0), whose next term is below 1e-16 there.
    """
    if a < 20.0:
        return math.lgamma(a) + math.lgamma(0.5) - math.lgamma(a + 0.5)
    u = 1.0 / (a * a)
    series = (-1.0 / 8.0 + u * (1.0 / 192.0 + u * (-1.0 / 640.0 + u * (17.0 / 14336.0 + u * (-31.0 / 18432.0))))) / a
    return 0.5 * math.log(math.pi) - 0.5 * math.log(a) - series


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with df > 0 degrees of freedom: 1.0 at t = 0, 0.0 at t = +-inf, NaN for NaN.

    The regularized incomplete beta I_x(df/2, 1/2) at x = df / (df + t^2), as in :func:`t_cdf`, but with the
    prefactor and 1 - x computed without cancellation: relative error ~1e-13 up to df = 1e5 (against SciPy),
    below 1e-8 relative (1e-9 absolute) up to df = 1e9, where the continued fraction itself loses digits.
    """
    if math.isnan(t) or math.isnan(df):
        return math.nan
    if df <= 0:
        raise ValueError("t_two_sided_p needs df > 0")
    if math.isinf(t):
        return 0.0
    a, b = df / 2.0, 0.5
    t2 = t * t
    if t2 == 0.0:
        return 1.0
    x = df / (df + t2)
    y = t2 / (df + t2)  # 1 - x, without the cancellation of 1.0 - x when t^2 is small against df
    log_x = -math.log1p(t2 / df)
    log_y = math.log(t2) - math.log(df + t2)
    front = math.exp(a * log_x + b * log_y - _log_beta_half(a))
    if x < (a + 1.0) / (a + b + 2.0):
        p = front * _betacf(a, b, x) / a
    else:
        p = 1.0 - front * _betacf(b, a, y) / b
    return min(1.0, max(0.0, p))


# --- The 97.5% quantile of Student's t as a closed formula, the same in Python and in SQL -------------------------
#
# t975(df) is scipy.stats.t.ppf(0.975, df) to 1e-13 for every integer df >= 1 (measured against 40-digit mpmath: the
# table is scipy's, within 1e-14; the expansion's truncation error is 9e-14 at df = 31 and falls as df^-9 beyond).
# It exists so that SQL can compute confidence intervals: sql/macros/stats/t975_expression.sql is the same formula as
# a CASE expression. Both are generated by ``python -m tools.t975_generator --print-t975-table`` (the constants below,
# needs scipy) and ``python -m tools.t975_generator --print-t975-macro`` (the SQL file, from these constants).
#
#   df <= T975_TABLE_MAX : the table, scipy.stats.t.ppf(0.975, df) written with 17 significant digits;
#   df >  T975_TABLE_MAX : z + c1/df + c2/df^2 + ... + c8/df^8, the Cornish-Fisher expansion of the t quantile
#                          around the normal quantile z (Abramowitz & Stegun 26.7.5 gives c1..c4; all eight are
#                          derived exactly by tools/t975_generator.py), evaluated in Horner form in u = 1/df.

T975_TABLE_MAX = 30

# Phi^-1(0.975) correctly rounded (1.95996398454005423552459443052055152795555...).
_T975_Z = 1.9599639845400543

# BEGIN GENERATED t975 constants (python -m tools.t975_generator --print-t975-table)
_T975_TABLE = (
    12.706204736174694,
    4.3026527297494619,
    3.1824463052837078,
    2.7764451051977934,
    2.5705818356363146,
    2.4469118511449786,
    2.364624251592784,
    2.3060041352041658,
    2.2621571627982049,
    2.2281388519862739,
    2.2009851600916388,
    2.1788128296672284,
    2.1603686564627913,
    2.1447866879178039,
    2.1314495455597759,
    2.1199052992212546,
    2.1098155778333156,
    2.1009220402410382,
    2.0930240544083087,
    2.0859634472658639,
    2.0796138447276795,
    2.0738730679040254,
    2.0686576104190486,
    2.0638985616280245,
    2.0595385527532972,
    2.0555294386428735,
    2.0518305164802846,
    2.0484071417952454,
    2.045229642132703,
    2.0422724563012378,
)
_T975_SERIES = (
    2.3722712302985629,
    2.8224986157396117,
    2.5558496795077232,
    1.5895340533938236,
    0.73289821198160565,
    0.62748046095107357,
    0.12881285359619749,
    -1.7139281826235218,
)
# END GENERATED t975 constants


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t with df degrees of freedom, by the same formula as SQL's ``sqlndcg_t975``.

    Agrees with ``scipy.stats.t.ppf(0.975, df)`` to 1e-13 for every integer df >= 1. Integer df only up to
    ``T975_TABLE_MAX``; any real df above it. Unlike SQL (which yields NULL), invalid df raises ValueError.

    >>> round(t975(1), 6), round(t975(29), 6), round(t975(10**9), 6)
    (12.706205, 2.04523, 1.959964)
    """
    if isinstance(df, bool) or not isinstance(df, (int, float)) or math.isnan(df):
        raise ValueError(f"t975 needs a number of degrees of freedom, not {df!r}")
    if df > T975_TABLE_MAX:
        u = 1.0 / float(df)
        acc = 0.0
        for c in reversed(_T975_SERIES):
            acc = u * (c + acc)
        return _T975_Z + acc
    if df >= 1 and df == int(df):
        return _T975_TABLE[int(df) - 1]
    raise ValueError(f"t975 needs an integer df >= 1 (or any df > {T975_TABLE_MAX}), not {df!r}")
