"""sqlndcg.stats.paired against SciPy / statsmodels and brute force."""

from __future__ import annotations

import itertools
import math
import random
import struct
import subprocess
import sys
import time
import warnings
from fractions import Fraction

import pytest

from sqlndcg.stats import paired
from sqlndcg.stats import distributions as stats

import numpy as np
import scipy.stats as scipy_stats


def _cases():
    rng = random.Random(20240601)
    cases = []
    for n in (2, 3, 5, 10, 31, 200, 1000):
        a = [rng.random() for _ in range(n)]
        b = [min(1.0, max(0.0, x + rng.gauss(0.02, 0.1))) for x in a]
        cases.append((a, b))
    # Heavy ties and a big effect.
    cases.append(([1.0, 0.0, 1.0, 0.5, 0.5, 1.0], [0.0, 0.0, 0.5, 0.5, 0.25, 0.0]))
    return cases


# --- paired t --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("a,b", _cases())
def test_paired_t_equals_scipy(a, b):
    diffs = [x - y for x, y in zip(a, b)]
    ours = paired.paired_t(diffs)
    ref = scipy_stats.ttest_rel(a, b)
    ci = ref.confidence_interval(0.95)
    n = len(diffs)
    assert ours.df == int(ref.df) == n - 1
    assert ours.mean == pytest.approx(float(np.mean(diffs)), abs=1e-12)
    assert ours.std == pytest.approx(float(np.std(diffs, ddof=1)), abs=1e-12)
    assert ours.t == pytest.approx(float(ref.statistic), rel=1e-9, abs=1e-9)
    assert abs(ours.p_value - float(ref.pvalue)) < 1e-9
    assert abs(ours.ci_low - float(ci.low)) < 1e-9
    assert abs(ours.ci_high - float(ci.high)) < 1e-9
    # The interval is scipy's t interval of the mean, and the project's own mean_interval.
    low, high = scipy_stats.t.interval(0.95, n - 1, loc=np.mean(diffs), scale=scipy_stats.sem(diffs))
    assert abs(ours.ci_low - low) < 1e-9 and abs(ours.ci_high - high) < 1e-9
    assert (ours.ci_low, ours.ci_high) == stats.mean_interval(ours.mean, ours.std, n)


def test_paired_t_p_values_stay_accurate_for_large_df_and_small_p():
    for df in (1, 4, 30, 999, 10**4, 10**5, 10**6, 10**7, 10**9):
        for t in (0.001, 0.3, 1.96, 4.0, 9.0, 30.0):
            ref = 2 * float(scipy_stats.t.sf(t, df))
            rel = 1e-11 if df <= 10**5 else 1e-8  # the continued fraction loses digits near its switch at huge df
            assert stats.t_two_sided_p(t, df) == pytest.approx(ref, rel=rel, abs=1e-300), (df, t)
            assert stats.t_two_sided_p(-t, df) == stats.t_two_sided_p(t, df)
    assert stats.t_two_sided_p(0.0, 5) == 1.0 and stats.t_two_sided_p(math.inf, 5) == 0.0


def _same(x, y):
    return (math.isnan(x) and math.isnan(y)) or x == y


@pytest.mark.parametrize(
    "diffs", [[0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [-0.1, -0.1, -0.1, -0.1], [0.3]]
)
def test_paired_t_degenerate_cases_follow_scipy(diffs):
    ours = paired.paired_t(diffs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SciPy warns about the zero variance / too few values
        ref = scipy_stats.ttest_rel(np.array(diffs), np.zeros(len(diffs)))
        ci = ref.confidence_interval(0.95)
    assert _same(ours.t, float(ref.statistic))
    assert _same(ours.p_value, float(ref.pvalue))
    assert _same(ours.ci_low, float(ci.low)) and _same(ours.ci_high, float(ci.high))
    assert ours.df == int(ref.df)


def test_paired_t_no_values():
    r = paired.paired_t([])
    assert r.df == 0 and all(math.isnan(x) for x in (r.mean, r.std, r.t, r.p_value, r.ci_low, r.ci_high))
    with pytest.raises(ValueError):
        paired.paired_t([0.1, math.nan])


# --- randomization test ----------------------------------------------------------------------------------------

def _brute_force_p(diffs):
    """Exact p over all 2^n sign flips, in exact rational arithmetic on the decimal values given."""
    exact = [Fraction(str(d)) for d in diffs]
    observed = abs(sum(exact))
    hits = sum(
        1 for signs in itertools.product((1, -1), repeat=len(exact))
        if abs(sum(s * d for s, d in zip(signs, exact))) >= observed
    )
    return Fraction(hits, 2 ** len(exact))


def test_randomization_exact_enumeration_equals_brute_force():
    rng = random.Random(7)
    for _ in range(5):
        diffs = [round(rng.uniform(-0.3, 0.5), 3) for _ in range(10)]
        p = paired.randomization_test(diffs, permutations=2**10)
        assert p == float(_brute_force_p(diffs))


def test_randomization_ties_in_real_numbers_count_despite_float_rounding():
    # -0.1 - 0.2 + 0.3 + 0.5 ties with the observed 0.1 + 0.2 - 0.3 + 0.5 in real numbers, not in floats.
    diffs = [0.1, 0.2, -0.3, 0.5]
    assert 0.1 + 0.2 != 0.3
    assert paired.randomization_test(diffs) == float(_brute_force_p(diffs)) == 0.625
    # Exact sums of the floats' values, with no tolerance, would miss the tie.
    exact = [Fraction(d) for d in diffs]
    floats = sum(1 for signs in itertools.product((1, -1), repeat=4)
                 if abs(sum(s * d for s, d in zip(signs, exact))) >= abs(sum(exact)))
    assert floats / 16 < 0.625
    assert paired.randomization_test([0.0] * 20) == 1.0
    assert paired.randomization_test([]) == 1.0


def _naive_randomization(diffs, permutations, seed):
    """The documented sampling, written plainly: assignment k takes ceil(n/64) SplitMix64 words from output
    k * ceil(n/64) on, little-endian; bit i says + for query i."""
    ints, _ = paired._exact_integers([float(d) for d in diffs])
    n = len(ints)
    total = sum(ints)
    reach = abs(total) - (sum(abs(v) for v in ints) >> 44)
    words = (n + 63) // 64
    count = 0
    for k in range(permutations):
        blob = struct.pack(f"<{words}Q", *paired._splitmix64(seed, k * words, words))
        s = sum(v if (blob[i // 8] >> (i % 8)) & 1 else -v for i, v in enumerate(ints))
        count += abs(s) >= reach
    return (1 + count) / (1 + permutations)


def test_randomization_sampling_is_reproducible_and_as_documented():
    rng = random.Random(11)
    diffs = [rng.gauss(0.0, 0.2) for _ in range(150)]
    p = paired.randomization_test(diffs, permutations=3000, seed=5)
    assert p == paired.randomization_test(diffs, permutations=3000, seed=5)
    assert p == _naive_randomization(diffs, 3000, 5)
    assert p != paired.randomization_test(diffs, permutations=3000, seed=6)
    # Spans of more than one chunk of assignments.
    assert paired.randomization_test(diffs[:70], permutations=2500, seed=1) == _naive_randomization(diffs[:70], 2500, 1)


def test_randomization_estimate_is_close_to_the_exact_p():
    rng = random.Random(3)
    diffs = [round(rng.gauss(0.05, 0.2), 4) for _ in range(18)]
    exact = paired.randomization_test(diffs, permutations=2**18)  # enumerates all 262144
    estimate = paired.randomization_test(diffs, permutations=20000, seed=0)
    se = math.sqrt(exact * (1 - exact) / 20000)
    assert 0.01 < exact < 0.99
    assert abs(estimate - exact) < 5 * se + 1e-4


def test_randomization_is_fast_enough():
    rng = random.Random(5)
    diffs = [rng.random() - 0.5 for _ in range(1000)]
    start = time.perf_counter()
    paired.randomization_test(diffs, permutations=10000, seed=0)
    assert time.perf_counter() - start < 3.0  # ~0.1 s here


# --- bootstrap -------------------------------------------------------------------------------------------------

def _ndcg_like(n, seed):
    rng = random.Random(seed)
    return [rng.choice([0.0, 1.0, rng.betavariate(0.5, 0.5)]) for _ in range(n)]


def test_bootstrap_is_reproducible_from_its_seed():
    values = _ndcg_like(80, 1)
    for method in ("percentile", "bca"):
        a = paired.bootstrap_interval(values, resamples=2000, seed=3, method=method)
        assert a == paired.bootstrap_interval(values, resamples=2000, seed=3, method=method)
        assert a != paired.bootstrap_interval(values, resamples=2000, seed=4, method=method)


def test_bootstrap_stays_in_unit_interval():
    for n in (1, 2, 3, 5, 12):
        for seed in range(5):
            values = _ndcg_like(n, seed)
            for method in ("percentile", "bca"):
                low, high = paired.bootstrap_interval(values, resamples=500, seed=seed, method=method)
                assert 0.0 <= low <= high <= 1.0
    assert paired.bootstrap_interval([1.0, 1.0, 0.0], bounds=(0.0, 0.5), resamples=200)[1] <= 0.5
    assert paired.bootstrap_interval([0.7] * 10, method="bca") == (0.7, 0.7)


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_bootstrap_is_close_to_scipy(method):
    rng = random.Random(99)
    values = [rng.expovariate(3.0) for _ in range(400)]  # skewed, so BCa and percentile differ
    ours = paired.bootstrap_interval(values, resamples=10000, seed=0, method=method.lower())
    ref = scipy_stats.bootstrap(
        (np.array(values),), np.mean, n_resamples=10000, method=method, random_state=np.random.default_rng(0)
    ).confidence_interval
    sd = float(np.std(values, ddof=1)) / math.sqrt(len(values))
    assert abs(ours[0] - ref.low) < 0.1 * sd
    assert abs(ours[1] - ref.high) < 0.1 * sd


def test_bootstrap_median_and_callable():
    values = _ndcg_like(60, 2)
    low, high = paired.bootstrap_interval(values, statistic="median", resamples=1000)
    assert 0.0 <= low <= float(np.median(values)) <= high <= 1.0
    assert paired.bootstrap_interval(values, statistic=lambda xs: sum(xs) / len(xs), resamples=300) == pytest.approx(
        paired.bootstrap_interval(values, resamples=300), abs=1e-15
    )
    with pytest.raises(ValueError):
        paired.bootstrap_interval([])
    with pytest.raises(ValueError):
        paired.bootstrap_interval(values, method="basic")


# --- weighted randomization test and bootstrap (query weights) --------------------------------------------------

def _weighted_case(n, seed):
    rng = random.Random(seed)
    diffs = [round(rng.uniform(-0.4, 0.6), 3) for _ in range(n)]
    weights = [float(rng.choice([0, 1, 2, 3, 7, 25])) for _ in range(n)]
    return diffs, weights


def test_weighted_randomization_is_sign_flips_of_the_weighted_mean_exactly():
    for seed in range(6):
        diffs, weights = _weighted_case(11, seed)
        products = [Fraction(str(d)) * Fraction(w) for d, w in zip(diffs, weights) if w > 0]
        observed = abs(sum(products))
        hits = sum(1 for signs in itertools.product((1, -1), repeat=len(products))
                   if abs(sum(s * v for s, v in zip(signs, products))) >= observed)
        assert paired.randomization_test(diffs, weights=weights, permutations=2**12) == hits / 2 ** len(products)


def test_weighted_randomization_sampling_is_reproducible_and_as_documented():
    rng = random.Random(4)
    diffs = [rng.gauss(0.02, 0.2) for _ in range(90)]
    weights = [float(rng.randint(1, 50)) for _ in diffs]
    p = paired.randomization_test(diffs, weights=weights, permutations=2000, seed=3)
    ints, _ = paired._exact_products(diffs, weights)
    words = (len(ints) + 63) // 64
    reach = abs(sum(ints)) - (sum(abs(v) for v in ints) >> 44)
    count = 0
    for k in range(2000):
        blob = struct.pack(f"<{words}Q", *paired._splitmix64(3, k * words, words))
        count += abs(sum(v if (blob[i // 8] >> (i % 8)) & 1 else -v for i, v in enumerate(ints))) >= reach
    assert p == (1 + count) / 2001
    assert p != paired.randomization_test(diffs, permutations=2000, seed=3)  # the weights matter


def test_equal_or_zero_weights_change_nothing_but_the_queries_counted():
    diffs, _ = _weighted_case(40, 1)
    for method in ("percentile", "bca"):
        plain = paired.bootstrap_interval(diffs, resamples=700, seed=2, method=method)
        for w in (1.0, 3.0, 0.1):
            assert paired.bootstrap_interval(diffs, weights=[w] * 40, resamples=700, seed=2, method=method) == plain
    plain = paired.randomization_test(diffs, permutations=900, seed=2)
    assert paired.randomization_test(diffs, weights=[0.1] * 40, permutations=900, seed=2) == plain
    # weight 0: the query takes no part, as if it were not there
    kept = diffs[:30]
    assert paired.randomization_test(diffs, weights=[2.0] * 30 + [0.0] * 10, permutations=900, seed=2) == \
        paired.randomization_test(kept, permutations=900, seed=2)
    assert paired.bootstrap_interval(diffs, weights=[2.0] * 30 + [0.0] * 10, resamples=500, seed=2) == \
        paired.bootstrap_interval(kept, resamples=500, seed=2)
    with pytest.raises(ValueError, match="0 or more"):
        paired.randomization_test(diffs, weights=[-1.0] + [1.0] * 39)
    with pytest.raises(ValueError, match="one weight per value"):
        paired.bootstrap_interval(diffs, weights=[1.0])
    with pytest.raises(ValueError, match="finite"):
        paired.bootstrap_interval(diffs, weights=[math.nan] * 40)
    with pytest.raises(ValueError, match="positive weight"):
        paired.bootstrap_interval(diffs, weights=[0.0] * 40)
    with pytest.raises(ValueError, match="mean only"):
        paired.bootstrap_interval(diffs, weights=[1.0] * 40, statistic="median")


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_weighted_bootstrap_resamples_queries_and_takes_weighted_means(method, monkeypatch):
    """Each replicate is the exact weighted mean of the resampled queries (the documented index stream),
    correctly rounded; NumPy and pure Python give the same interval to the bit."""
    diffs, weights = _weighted_case(60, 8)
    got = paired.bootstrap_interval(diffs, weights=weights, resamples=1500, seed=6, method=method)
    with monkeypatch.context() as m:
        m.setattr(paired, "_numpy", lambda: None)
        assert paired.bootstrap_interval(diffs, weights=weights, resamples=1500, seed=6, method=method) == got
    if method == "percentile":
        kept = [(Fraction(d), Fraction(w)) for d, w in zip(diffs, weights) if w > 0]
        replicates = sorted(
            float(sum(kept[i][0] * kept[i][1] for i in ix) / sum(kept[i][1] for i in ix))
            for ix in paired._resample_indices(6, len(kept), 1500))
        want = np.quantile(replicates, [0.025, 0.975])
        assert got == pytest.approx(tuple(want), abs=1e-15)
        estimate = float(sum(d * w for d, w in kept) / sum(w for _, w in kept))
        assert got[0] < estimate < got[1]


# --- multiple comparisons --------------------------------------------------------------------------------------

def test_holm_worked_example():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> max(0.06, 0.04) = 0.06
    assert paired.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    assert paired.bonferroni([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.04, 0.16, 0.12, 0.02], abs=1e-15)
    assert paired.holm([0.5, 0.9]) == [1.0, 1.0] and paired.holm([]) == []


def test_holm_and_bonferroni_equal_statsmodels():
    import statsmodels.stats.multitest as multitest
    rng = random.Random(4)
    for m in (1, 2, 5, 20):
        ps = [rng.random() ** 3 for _ in range(m)] + [0.01, 0.01]
        for method, ours in (("holm", paired.holm), ("bonferroni", paired.bonferroni)):
            ref = multitest.multipletests(ps, method=method)[1]
            assert ours(ps) == pytest.approx([float(x) for x in ref], abs=1e-12)
    with pytest.raises(ValueError):
        paired.holm([0.5, 1.5])


# --- no NumPy / SciPy at run time --------------------------------------------------------------------------------

def test_runs_without_numpy_or_scipy():
    code = (
        "import sys\n"
        "for name in ('numpy', 'scipy'):\n"
        "    sys.modules[name] = None\n"
        "from sqlndcg.stats import paired, distributions as stats\n"
        "d = [0.1, -0.05, 0.2, 0.0, 0.15, 0.3, -0.1, 0.05] * 10\n"
        "print(paired.paired_t(d).p_value, paired.randomization_test(d, permutations=500),\n"
        "      paired.bootstrap_interval(d, resamples=300, method='bca'), stats.t975(12))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    d = [0.1, -0.05, 0.2, 0.0, 0.15, 0.3, -0.1, 0.05] * 10
    expected = (
        paired.paired_t(d).p_value,
        paired.randomization_test(d, permutations=500),
        paired.bootstrap_interval(d, resamples=300, method="bca"),
        stats.t975(12),
    )
    assert out.split(" ", 2)[:2] == [repr(expected[0]), repr(expected[1])]
    assert out.strip() == " ".join(map(str, expected))


# --- the NumPy paths give the pure-Python reference's numbers, to the bit ----------------------------------------

def _hostile_values(rng, n):
    """Differences with ties, zeros, repeated values, tiny (subnormal) and huge magnitudes, both signs."""
    pool = [0.0, -0.0, 0.1, -0.1, 0.2, 0.3, -0.3, 1.0, -1.0, 1e-300, -5e-324, 2.0 ** -1000, 7e10, -1e300,
            0.1 + 0.2, 1 / 3]
    kind = rng.randrange(5)
    if kind == 0:  # ndcg-like differences
        return [rng.random() - rng.random() for _ in range(n)]
    if kind == 1:  # few distinct values: heavy ties
        return [rng.choice([0.0, 0.25, -0.25, 0.5]) for _ in range(n)]
    if kind == 2:  # anything from the pool, and noise
        return [rng.choice(pool + [rng.gauss(0.0, 1e-8), rng.random() - 0.5]) for _ in range(n)]
    if kind == 3:  # one sign, a tiny effect
        return [abs(rng.gauss(0.0, 0.1)) * rng.choice([1e-12, 1.0]) for _ in range(n)]
    return [0.0] * n


def _without_numpy(monkeypatch, function, *args, **kwargs):
    with monkeypatch.context() as m:
        m.setattr(paired, "_numpy", lambda: None)
        return function(*args, **kwargs)


def test_randomization_numpy_path_equals_pure_python(monkeypatch):
    rng = random.Random(2026)
    checked = 0
    for n in (1, 2, 3, 7, 8, 9, 13, 14, 15, 17, 63, 64, 65, 127, 200, 333):
        for _ in range(3):
            diffs = _hostile_values(rng, n)
            weights = [rng.choice([0.0, 1.0, 2.5, 1e-3, 7.0, 1e6]) for _ in range(n)] if rng.random() < 0.5 else None
            # below the exact-enumeration threshold (2^n <= permutations) and above it, blocks of odd sizes
            permutations = rng.choice([1, 2, 7, 100, 1000, 1025, 2 ** min(n, 11)])
            seed = rng.choice([0, 1, 42, 2 ** 63, 2 ** 64 - 1, -1])
            fast = paired.randomization_test(diffs, permutations=permutations, seed=seed, weights=weights)
            slow = _without_numpy(monkeypatch, paired.randomization_test, diffs, permutations=permutations,
                                  seed=seed, weights=weights)
            assert fast == slow, (n, permutations, seed, diffs, weights)
            checked += 1
    assert checked == 48


def test_randomization_numpy_path_counts_near_ties_as_the_reference(monkeypatch):
    """p-values that are not 1 or tiny (a mean near 0), where the counting decides: sampled, several seeds, n not
    a multiple of 8, huge integer values (many limbs) and a block boundary."""
    rng = random.Random(8)
    for n, permutations in ((21, 3000), (99, 2000), (1001, 600), (4100, 300)):
        diffs = [rng.gauss(0.0, 0.2) for _ in range(n)]
        diffs[0] = 2.0 ** -1060  # a subnormal: every value becomes an integer of ~1100 bits
        for seed in (0, 5, 2 ** 64 - 1):
            fast = paired.randomization_test(diffs, permutations=permutations, seed=seed)
            assert 0.01 < fast < 1.0
            assert fast == _without_numpy(monkeypatch, paired.randomization_test, diffs,
                                          permutations=permutations, seed=seed)
        assert _naive_randomization(diffs[:70], 700, 3) == paired.randomization_test(diffs[:70], permutations=700,
                                                                                     seed=3)
    # Sums equal to the observed one (decided on the exact integers, not the float estimate), a zero total with a
    # positive tie tolerance (every assignment counts), and both at once with huge integers.
    for diffs in ([0.25, -0.25, 0.5, 0.75] * 6 + [0.125], [0.5, -0.5] * 10 + [5e-324, -5e-324],
                  [0.1, 0.2, -0.3, 0.5, -0.5] * 5, [1e300, -1e300, 2.0 ** -1074] * 7):
        for seed in (1, 2):
            fast = paired.randomization_test(diffs, permutations=1500, seed=seed)
            assert fast == _without_numpy(monkeypatch, paired.randomization_test, diffs, permutations=1500, seed=seed)
            assert fast == _naive_randomization(diffs, 1500, seed)


def test_bootstrap_numpy_path_equals_pure_python(monkeypatch):
    rng = random.Random(77)
    for n in (1, 2, 3, 8, 9, 15, 64, 65, 255, 256, 257, 600):
        diffs = _hostile_values(rng, n)
        weights = [rng.choice([0.0, 1.0, 2.5, 1e-3, 7.0]) for _ in range(n)] if rng.random() < 0.5 else None
        if weights is not None and not any(weights):
            weights[0] = 1.0
        seed = rng.choice([0, 3, 2 ** 64 - 1])
        resamples = rng.choice([1, 5, 999, 2000])
        for method in ("percentile", "bca"):
            kwargs = dict(resamples=resamples, seed=seed, method=method, weights=weights)
            fast = paired.bootstrap_interval(diffs, **kwargs)
            paired._COUNTS_CACHE.clear()
            assert paired.bootstrap_interval(diffs, **kwargs) == fast  # computed afresh, then from the cache
            assert paired.bootstrap_interval(diffs, **kwargs) == fast
            assert _without_numpy(monkeypatch, paired.bootstrap_interval, diffs, **kwargs) == fast, (n, method)


def test_numpy_streams_equal_the_reference_streams():
    for seed in (0, 1, 2 ** 64 - 1):
        for start in (0, 5, 2 ** 40 + 3, 2 ** 64 - 2):
            assert paired._splitmix64_array(np, seed, start, 9).tolist() == paired._splitmix64(seed, start, 9)
    for n in (1, 2, 3, 1000, 2 ** 16 + 1):  # n = 3 and 1000 reject some halves (Lemire), 2^k none
        for resamples in (1, 3, 70):
            reference = list(paired._resample_indices(4, n, resamples))
            counts = paired._resample_counts(np, 4, n, resamples)
            assert counts.shape == (resamples, n)
            assert counts.tolist() == [np.bincount(ix, minlength=n).tolist() for ix in reference]


def test_exact_sums_hold_at_the_limb_bounds():
    """Every limb at its maximum, as many values as the limb width allows: the float64 products stay exact."""
    for n in (1, 5, 1000):
        bits = paired._limb_bits(n)
        top = (1 << (3 * bits)) - 1  # three full limbs
        rows = np.full((4, n), 1, dtype=np.uint32)
        rows[1] = 0
        rows[2, :] = 0
        rows[2, 0] = n  # one value drawn n times
        matrix, widths = paired._limb_matrix(np, [[top] * n, list(range(n))], bits)
        sums = [list(r) for r in zip(*paired._recombine(paired._row_sums(np, rows, matrix), widths, bits))]
        assert sums[0] == [n * top, n * (n - 1) // 2]
        assert sums[1] == [0, 0]
        assert sums[2] == [n * top, 0]


def test_bca_takes_huge_magnitudes():
    """The jackknife's cubes of values near 1e300 overflowed (OverflowError); the acceleration is scale-free, so
    it is computed on the values divided by the largest, and equals the unscaled one where that one exists."""
    values = [1e300, -3e299, 2e299, 5e298, 0.0, 7e299]
    low, high = paired.bootstrap_interval(values, method="bca", resamples=500)
    assert math.isfinite(low) and math.isfinite(high) and low <= high
    plain = [v / 1e300 for v in values]
    assert paired._acceleration(values) == pytest.approx(paired._acceleration(plain), rel=1e-12)
    assert paired._acceleration([1.0, 1.0]) == 0.0


def test_bootstrap_intervals_equal_one_call_per_sample(monkeypatch):
    """The batch (samples of one size share their resamples) gives each sample's bootstrap_interval, to the bit,
    with and without NumPy."""
    rng = random.Random(31)
    samples = [_hostile_values(rng, n) for n in (40, 40, 7, 40, 1, 7, 300)]
    weights = [None, [rng.choice([0.0, 1.0, 3.0]) for _ in range(40)], None, None, None, [2.0] * 7, None]
    weights[1][0] = 1.0
    bounds = [(-1.0, 1.0), None, (0.0, 0.1), None, None, (-1.0, 1.0), (-2.0, 2.0)]
    for method in ("percentile", "bca"):
        kwargs = dict(resamples=1500, seed=9, method=method)
        batch = paired.bootstrap_intervals(samples, bounds=bounds, weights=weights, **kwargs)
        single = [paired.bootstrap_interval(x, bounds=b, weights=w, **kwargs)
                  for x, b, w in zip(samples, bounds, weights)]
        assert batch == single
        assert _without_numpy(monkeypatch, paired.bootstrap_intervals, samples, bounds=bounds, weights=weights,
                              **kwargs) == batch
    median = paired.bootstrap_intervals(samples[:3], statistic="median", resamples=300)
    assert median == [paired.bootstrap_interval(x, statistic="median", resamples=300) for x in samples[:3]]
    assert paired.bootstrap_intervals([]) == []
    with pytest.raises(ValueError, match="one entry per sample"):
        paired.bootstrap_intervals(samples, bounds=[None])


def test_randomization_tests_equal_one_call_per_sample(monkeypatch):
    rng = random.Random(41)
    samples = [_hostile_values(rng, n) for n in (40, 40, 7, 40, 1, 0, 13, 14, 300, 300)]
    samples[1] = [rng.gauss(0.0, 0.2) for _ in range(40)]  # a p-value away from 0 and 1
    samples[9][0] = 2.0 ** -1070  # huge integers beside ordinary ones, one pass
    weights = [None, [rng.choice([0.0, 1.0, 3.0]) for _ in range(40)], None, None, None, [], [2.0] * 13, None,
               None, None]
    for permutations in (1, 999, 5000):
        batch = paired.randomization_tests(samples, permutations=permutations, seed=3, weights=weights)
        single = [paired.randomization_test(x, permutations=permutations, seed=3, weights=w)
                  for x, w in zip(samples, weights)]
        assert batch == single
        assert _without_numpy(monkeypatch, paired.randomization_tests, samples, permutations=permutations, seed=3,
                              weights=weights) == batch
    assert paired.randomization_tests([]) == []
    with pytest.raises(ValueError, match="one entry per sample"):
        paired.randomization_tests(samples, weights=[None])


def test_count_matrix_widens_past_255(monkeypatch):
    """A value drawn more than 255 times in one resample (possible from n = 256 on, if unlikely) widens the count
    matrix from uint8 rather than wrapping."""
    n = 300
    blocks = [np.zeros((2, n), dtype=np.int64), np.tile(np.arange(n, dtype=np.int64), (3, 1))]
    monkeypatch.setattr(paired, "_resample_index_blocks", lambda np_, state, n_, resamples: iter(blocks))
    paired._COUNTS_CACHE.clear()
    counts = paired._resample_counts(np, 123, n, 5)
    paired._COUNTS_CACHE.clear()
    assert counts.dtype == np.uint32
    assert counts[:2, 0].tolist() == [300, 300] and counts[:2, 1:].sum() == 0
    assert (counts[2:] == 1).all()


def test_benjamini_hochberg_equals_statsmodels():
    from statsmodels.stats.multitest import multipletests

    rng = random.Random(5)
    for m in (1, 2, 5, 20, 200):
        ps = [rng.random() ** 3 for _ in range(m)] + [0.01, 0.01, 1.0]
        ref = multipletests(ps, method="fdr_bh")[1]
        assert paired.benjamini_hochberg(ps) == pytest.approx([float(x) for x in ref], rel=1e-14, abs=0)
    assert paired.benjamini_hochberg([]) == []
    with pytest.raises(ValueError):
        paired.benjamini_hochberg([0.5, -0.1])


def test_compare_adjusts_with_benjamini_hochberg():
    import sqlndcg

    run, qrels = sqlndcg.example("run"), sqlndcg.example("qrels")
    metrics = ["ndcg@5", "p@5", "rr@10", "ap"]
    raw = sqlndcg.compare(run, qrels, metrics, system="tag", baseline="bm25", correction="none")
    bh = sqlndcg.compare(run, qrels, metrics, system="tag", baseline="bm25", correction="bh")
    rows_raw, rows_bh = raw.to_dicts(), bh.to_dicts()
    for column in ("t_p", "randomization_p"):  # each kind of p-value is adjusted over the family of all rows
        assert [r[column + "_adjusted"] for r in rows_raw] == [r[column] for r in rows_raw]
        assert [r[column + "_adjusted"] for r in rows_bh] == paired.benjamini_hochberg([r[column] for r in rows_raw])
    assert {r["correction"] for r in rows_bh} == {"bh"}
