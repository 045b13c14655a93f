"""Power of the paired t test, and the two questions a pilot answers: how many queries are needed to detect a
difference, and what difference a given number of queries can detect.

Exact, via the noncentral t distribution (no SciPy at run time): power = P(T' >= c) + P(T' <= -c) for the
two-sided test, T' noncentral t with n - 1 degrees of freedom and noncentrality d sqrt(n), c = t(1 - alpha/2,
n - 1), d = difference / sd of the per-query differences (Cohen's d_z). The same definition as statsmodels'
TTestPower (n need not be a whole number here; a caller rounds up)."""

from __future__ import annotations

import math

from .distributions import _betainc, t_quantile

ALTERNATIVES = ("two-sided", "larger", "smaller")

#: The most queries (pairs) whose power is computed: up to ten million the queries needed agree with statsmodels'
#: (scipy's noncentral t) to 1e-8 relative and with numerical integration over the chi-square to ~1e-8
#: (tests/test_clear_errors.py); further out the incomplete beta of df/2 ~ 10^8 and the t quantile lose digits (at
#: 10^13 pairs the quantile comes out 1.9757, not 1.9600).
MAX_QUERIES = 10_000_000


class BeyondComputed(ValueError):
    """A question whose answer lies past MAX_QUERIES; ``estimate`` is the large-sample (normal) answer."""

    def __init__(self, message: str, estimate: float) -> None:
        super().__init__(message)
        self.estimate = estimate


def _z(p: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


def normal_queries(effect: float, alpha: float, target: float, alternative: str) -> float:
    """The large-sample number of pairs, ((z(1 - alpha/2) + z(power)) / d_z)^2 (one-sided: z(1 - alpha)): what
    the t test needs when it needs that many that its t is normal."""
    crit = _z(1.0 - (alpha / 2.0 if alternative == "two-sided" else alpha))
    return ((crit + _z(target)) / abs(effect)) ** 2


def normal_effect(n: float, alpha: float, target: float, alternative: str) -> float:
    """The large-sample detectable d_z with n pairs, (z(1 - alpha/2) + z(power)) / sqrt(n)."""
    crit = _z(1.0 - (alpha / 2.0 if alternative == "two-sided" else alpha))
    return (crit + _z(target)) / math.sqrt(n)


def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def nct_cdf(t: float, df: float, nc: float) -> float:
    """P(T' <= t) for the noncentral t with df > 0 degrees of freedom and noncentrality nc.

    The Poisson mixture of incomplete beta functions (Guenther 1978; Lenth 1989, AS 243), summed outwards from
    the Poisson mode in both directions with the incomplete betas by recurrence (Benton & Krishnamoorthy 2003),
    so large noncentralities lose nothing to underflow: for t >= 0,
    F = Phi(-nc) + 1/2 sum_j [P_j I_x(j + 1/2, df/2) + nc/sqrt(2) Q_j I_x(j + 1, df/2)], x = t^2 / (t^2 + df),
    P_j = e^-l l^j / j!, Q_j = e^-l l^j / Gamma(j + 3/2), l = nc^2 / 2; F(t) = 1 - F(-t; df, -nc) for t < 0.
    """
    if t < 0.0:
        return 1.0 - nct_cdf(-t, df, -nc)
    base = _normal_cdf(-nc)
    if t == 0.0 or nc == 0.0 and t == 0.0:
        return base
    x = t * t / (t * t + df)
    log_x, log_1mx = math.log(x), math.log(df / (t * t + df))
    b = df / 2.0
    lam = nc * nc / 2.0
    k = int(lam)
    log_lam = math.log(lam) if lam > 0 else 0.0

    def poisson(j: int, shift: float) -> float:  # e^-l l^j / Gamma(j + 1 + shift)
        if lam == 0.0:
            return 1.0 / math.gamma(1.0 + shift) if j == 0 else 0.0
        return math.exp(-lam + j * log_lam - math.lgamma(j + 1.0 + shift))

    def g(a: float) -> float:  # I_x(a, b) - I_x(a + 1, b)
        return math.exp(math.lgamma(a + b) - math.lgamma(a + 1.0) - math.lgamma(b) + a * log_x + b * log_1mx)

    half = nc / math.sqrt(2.0)
    p0, q0 = poisson(k, 0.0), poisson(k, 0.5)
    ip0, iq0 = _betainc(k + 0.5, b, x), _betainc(k + 1.0, b, x)
    gp0, gq0 = g(k + 0.5), g(k + 1.0)
    total = p0 * ip0 + half * q0 * iq0
    # forward: j = k + 1, k + 2, ...
    p, q, ip, iq, gp, gq = p0, q0, ip0, iq0, gp0, gq0
    j = k
    while True:
        j += 1
        ip -= gp
        iq -= gq
        gp *= x * (j - 0.5 + b) / (j + 0.5)
        gq *= x * (j + b) / (j + 1.0)
        p *= lam / j
        q *= lam / (j + 0.5)
        total += p * ip + half * q * iq
        # past the mode the Poisson terms fall faster than a geometric series of ratio lam / (j + 1)
        if j + 1.0 > lam and p * (1.0 + lam / (j + 1.0 - lam)) * (1.0 + abs(half)) < 1e-17:
            break
    # backward: j = k - 1, ..., 0
    p, q, ip, iq, gp, gq = p0, q0, ip0, iq0, gp0, gq0
    for j in range(k - 1, -1, -1):
        gp *= (j + 1.5) / (x * (j + 0.5 + b))
        gq *= (j + 2.0) / (x * (j + 1.0 + b))
        ip += gp
        iq += gq
        p *= (j + 1) / lam
        q *= (j + 1.5) / lam
        total += p * ip + half * q * iq
        if p < 1e-17 and q < 1e-17:
            break
    return min(1.0, max(0.0, base + 0.5 * total))


def _critical(alpha: float, df: float, alternative: str) -> float:
    return t_quantile(1.0 - (alpha / 2.0 if alternative == "two-sided" else alpha), df)


def power(effect: float, n: float, alpha: float = 0.05, alternative: str = "two-sided") -> float:
    """The power of the paired (one-sample) t test at effect size d_z with n pairs (n > 1, not necessarily whole)."""
    df, nc = n - 1.0, effect * math.sqrt(n)
    c = _critical(alpha, df, alternative)
    if alternative == "larger":
        return 1.0 - nct_cdf(c, df, nc)
    if alternative == "smaller":
        return nct_cdf(-c, df, nc)
    return (1.0 - nct_cdf(c, df, nc)) + (1.0 - nct_cdf(c, df, -nc))


def _solve(f, lo: float, hi: float, grow) -> float:
    """The root of the increasing f between lo and hi (hi grown by ``grow`` until f(hi) >= 0), by bisection on
    a bracket narrowed to ~1e-12 relative."""
    while f(hi) < 0.0:
        lo, hi = hi, grow(hi)
        if hi > 1e12:
            raise ValueError("no solution below 1e12")
    flo = f(lo)
    if flo >= 0.0:
        return lo
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if f(mid) < 0.0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return (lo + hi) / 2.0


def _check(alpha: float, target: float, alternative: str) -> None:
    if not 0.0 < alpha < 1.0 or not 0.0 < target < 1.0:
        raise ValueError("alpha and power must lie strictly between 0 and 1")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {', '.join(ALTERNATIVES)}")


def _two_are_enough(effect: float, alpha: float, target: float, alternative: str) -> bool:
    """Whether 2 pairs already give the power, by a bound that costs nothing where the noncentral t's series is
    long (it sums ~d_z^2 terms: a d_z of 10^6 from a tiny sd would never end). With 2 pairs, T' = (Z + nc) / |Z2|,
    nc = |d_z| sqrt(2), and the test misses with probability at most P(Z <= -nc/2) + P(|Z2| >= nc / (2c))."""
    nc = abs(effect) * math.sqrt(2.0)
    c = _critical(alpha, 1.0, alternative)
    return _normal_cdf(-nc / 2.0) + 2.0 * _normal_cdf(-nc / (2.0 * c)) <= 1.0 - target


def queries_needed(effect: float, alpha: float = 0.05, target: float = 0.8, alternative: str = "two-sided") -> float:
    """The number of pairs n (real, >= 2; round up for a count) at which the test has power ``target`` against
    effect size ``effect`` (d_z; its sign matters only for a one-sided alternative)."""
    _check(alpha, target, alternative)
    if effect == 0.0 or (alternative == "larger" and effect < 0) or (alternative == "smaller" and effect > 0):
        raise ValueError("no number of queries detects an effect of 0 (or one of the other sign than the alternative)")
    if _two_are_enough(effect, alpha, target, alternative):
        return 2.0
    if power(effect, MAX_QUERIES, alpha, alternative) < target:
        raise BeyondComputed(f"more than {MAX_QUERIES:,} queries", normal_queries(effect, alpha, target, alternative))
    return _solve(lambda n: power(effect, n, alpha, alternative) - target, 2.0, 8.0,
                  lambda h: min(h * 4.0, MAX_QUERIES))


def detectable_effect(n: float, alpha: float = 0.05, target: float = 0.8, alternative: str = "two-sided") -> float:
    """The smallest effect size d_z (positive; negative for alternative="smaller") the test detects with power
    ``target`` with n pairs (n >= 2)."""
    _check(alpha, target, alternative)
    if not n >= 2:
        raise ValueError("the minimum detectable difference needs at least 2 queries")
    if n > MAX_QUERIES:
        raise BeyondComputed(f"more than {MAX_QUERIES:,} queries", normal_effect(n, alpha, target, alternative))
    sign = -1.0 if alternative == "smaller" else 1.0
    return sign * _solve(lambda d: power(sign * d, n, alpha, alternative) - target, 0.0, 1.0, lambda h: h * 2.0)
