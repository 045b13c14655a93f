"""Comparing two systems query by query: paired t test, randomization test, bootstrap intervals, Holm and Bonferroni.

Pure Python (no NumPy, no SciPy needed), so the numbers are the same bits on every machine. The randomization test
and the bootstrap draw from SplitMix64 (a tiny, fixed, counter-based generator implemented here), never from
:mod:`random`, so a seed reproduces a result across Python versions, platforms and thread counts. When NumPy is
installed it computes the same random streams and the same exact integer sums faster; the pure-Python code is the reference, and
tests/test_paired_stats.py checks that both give the same p-values and intervals to the bit.
"""

from __future__ import annotations

import math
import struct
import threading
from statistics import NormalDist
from typing import Any, Callable, NamedTuple, Sequence, cast

from . import distributions
from ..run.progress import announce

# --- SplitMix64 --------------------------------------------------------------------------------------------------

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _splitmix64(seed: int, start: int, count: int) -> list[int]:
    """Outputs start, start+1, ..., start+count-1 of SplitMix64 seeded with ``seed`` (Steele, Lea & Flood 2014).

    Output k (from 0) mixes the state seed + (k+1) * 0x9E3779B97F4A7C15 mod 2^64, so any stretch can be computed
    on its own. The first output for seed 0 is 0xE220A8397B1DCDAF, as in the reference C code.

    >>> hex(_splitmix64(0, 0, 1)[0])
    '0xe220a8397b1dcdaf'
    """
    state = (seed + start * _GOLDEN) & _MASK64
    out: list[int] = []
    append = out.append
    for _ in range(count):
        state = (state + _GOLDEN) & _MASK64
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        append(z ^ (z >> 31))
    return out


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, not {seed!r}")
    return seed & _MASK64


def _check_count(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, not {value!r}")
    return value


def _finite_floats(name: str, values) -> list[float]:
    out = [float(v) for v in values]
    if not all(math.isfinite(v) for v in out):
        raise ValueError(f"{name} must be finite numbers (no NaN, no infinity)")
    return out


def _exact_integers(values: Sequence[float]) -> tuple[list[int], int]:
    """Integers m_i and a power of two D with values[i] == m_i / D exactly (every float is a dyadic rational)."""
    ratios = [v.as_integer_ratio() for v in values]
    denominator = max((d for _, d in ratios), default=1)
    return [n * (denominator // d) for n, d in ratios], denominator


def _exact_products(values: Sequence[float], weights: Sequence[float]) -> tuple[list[int], int]:
    """Integers m_i and a power of two D with weights[i] * values[i] == m_i / D exactly (no rounding)."""
    ratios = []
    for v, w in zip(values, weights):
        (vn, vd), (wn, wd) = v.as_integer_ratio(), w.as_integer_ratio()
        ratios.append((vn * wn, vd * wd))
    denominator = max((d for _, d in ratios), default=1)
    return [n * (denominator // d) for n, d in ratios], denominator


def _positive_weights(values: Sequence[float], weights) -> tuple[list[float], list[float] | None]:
    """Query weights checked (finite, >= 0, one per value) and the queries of weight 0 left out: they count in no
    weighted mean, so in no test or interval. Returns (values, weights), weights None when the remaining weights
    are all equal: then every weighted statistic is the unweighted one, and the unweighted code computes it (so
    equal weights give the unweighted numbers to the bit)."""
    ws = _finite_floats("weights", weights)
    if len(ws) != len(values):
        raise ValueError(f"weights must give one weight per value: {len(ws)} weights for {len(values)} values")
    if any(w < 0 for w in ws):
        raise ValueError("weights must be 0 or more")
    kept = [(v, w) for v, w in zip(values, ws) if w > 0]
    kept_values = [v for v, _ in kept]
    if all(w == kept[0][1] for _, w in kept):
        return kept_values, None
    return kept_values, [w for _, w in kept]


# --- Paired t test -----------------------------------------------------------------------------------------------

class PairedT(NamedTuple):
    mean: float
    std: float
    t: float
    df: int
    p_value: float
    ci_low: float
    ci_high: float


def paired_t(diffs: Sequence[float]) -> PairedT:
    """Paired (one-sample) t test of per-query differences against 0, with the 95% interval of the mean difference.

    Returns ``(mean, std, t, df, p_value, ci_low, ci_high)``: ``std`` is the sample standard deviation (n - 1),
    ``p_value`` two-sided; the same numbers as ``scipy.stats.ttest_rel(a, b)`` and its ``confidence_interval()``
    for diffs = a - b (to ~1e-12), the interval being :func:`sqlndcg.stats.distributions.mean_interval`.
    Degenerate cases follow SciPy:

    * all differences 0 (identical systems): t and p_value are NaN, the interval is (0, 0);
    * all differences equal and nonzero: t = +-inf, p_value = 0.0, the interval is (d, d);
    * one difference: std, t, p_value and the interval are NaN, df = 0;
    * no differences: everything NaN and df = 0 (SciPy says df = NaN; df stays an int here).

    >>> r = paired_t([0.1, 0.2, 0.3])
    >>> round(r.t, 6), r.df, round(r.p_value, 6)
    (3.464102, 2, 0.07418)
    """
    values = _finite_floats("diffs", diffs)
    n = len(values)
    nan = math.nan
    if n == 0:
        return PairedT(nan, nan, nan, 0, nan, nan, nan)
    if n == 1:
        return PairedT(values[0], nan, nan, 0, nan, nan, nan)
    df = n - 1
    if all(v == values[0] for v in values):
        mean = values[0]
        if mean == 0.0:
            return PairedT(0.0, 0.0, nan, df, nan, 0.0, 0.0)
        return PairedT(mean, 0.0, math.copysign(math.inf, mean), df, 0.0, mean, mean)
    mean = math.fsum(values) / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / df)
    t = mean / (std / math.sqrt(n))
    low, high = distributions.mean_interval(mean, std, n)
    return PairedT(mean, std, t, df, distributions.t_two_sided_p(t, df), low, high)


# --- Randomization (sign-flip permutation) test ------------------------------------------------------------------

# Ties: |flipped sum| counts as at least |observed sum| when short of it by at most 2^-44 (~6e-14) of sum |d_i|,
# so that differences equal in real numbers but not in their float representations still tie.
_TIE_SHIFT = 44
_CHUNK = 1024


def randomization_test(diffs: Sequence[float], *, permutations: int = 10000, seed: int = 0,
                       weights: Sequence[float] | None = None) -> float:
    """Two-sided paired randomization test of the mean difference: flip the sign of each query's difference.

    The p-value is the share of sign assignments whose |mean| is at least the observed |mean| (ties within
    ~6e-14 of the mean |difference| count as at least). When 2^n <= ``permutations`` every one of the 2^n
    assignments is enumerated and the p-value is exact: count / 2^n (the observed assignment is among them).
    Otherwise ``permutations`` assignments are drawn with SplitMix64 from ``seed`` and
    p = (1 + count) / (1 + permutations), which is never 0. All sums are exact integer arithmetic on the floats'
    dyadic values, so the result depends on nothing but (diffs, permutations, seed). All-zero (or no)
    differences give 1.0.

    ``weights`` (query weights, >= 0) make the statistic the weighted mean difference sum(w d) / sum(w): the sign of
    each w_i d_i is flipped, and the sums are exact on the products. Queries of weight 0 take no part (they change
    no sign assignment's mean); equal weights give the unweighted p-value exactly.

    >>> randomization_test([0.1, 0.2, 0.3])  # exact: 8 assignments, only +++ and --- reach |0.6|
    0.25
    >>> randomization_test([0.1, 0.2, -0.3], weights=[1.0, 1.0, 0.0])  # exact: 4 assignments, ++ and -- reach |0.3|
    0.5
    """
    return randomization_tests([diffs], permutations=permutations, seed=seed, weights=[weights])[0]


def randomization_tests(samples: Sequence[Sequence[float]], *, permutations: int = 10000, seed: int = 0,
                        weights: Sequence[Sequence[float] | None] | None = None) -> list[float]:
    """:func:`randomization_test` of each sample of differences, with the same settings: the same p-values, to the
    bit, as one call per sample. ``weights``, when given, holds one entry (or None) per sample. Faster for many
    samples of the same size (strata, metrics): with NumPy, their sign-flipped sums come out of one pass over the
    shared sign assignments.

    >>> randomization_tests([[0.1, 0.2, 0.3], [0.1, -0.1]])
    [0.25, 1.0]
    """
    samples = [_finite_floats("diffs", diffs) for diffs in samples]
    permutations = _check_count("permutations", permutations)
    state = _check_seed(seed)
    announce(f"randomization tests ({len(samples)} x {permutations:,} sign flips)")
    weights = [None] * len(samples) if weights is None else list(weights)
    if len(weights) != len(samples):
        raise ValueError(f"weights need one entry per sample ({len(samples)} samples)")
    out: list[float | None] = [None] * len(samples)
    sampled: dict[int, list[tuple[int, list[int], int, int]]] = {}
    for i, (values, w) in enumerate(zip(samples, weights)):
        if w is not None:
            values, w = _positive_weights(values, w)
        n = len(values)
        ints, _ = _exact_integers(values) if w is None else _exact_products(values, w)
        total = sum(ints)
        tolerance = sum(abs(v) for v in ints) >> _TIE_SHIFT
        # S = sum of signed d_i = 2 T - total, T the sum over the "+" queries; count |S| >= |total| - tolerance.
        reach = abs(total) - tolerance
        upper, lower = total + reach, total - reach  # count 2T >= upper or 2T <= lower
        if n < 64 and (1 << n) <= permutations:
            sums = [0]
            for v in ints:
                sums += [s + 2 * v for s in sums]
            count = sum(1 for s in sums if s >= upper or s <= lower)
            out[i] = count / len(sums)
        else:
            sampled.setdefault(n, []).append((i, ints, upper, lower))

    np = _numpy()
    for n, cases in sampled.items():
        if np is not None and n < 1 << 40:  # the same counts, faster: exact limb sums of the same sign flips
            counts = _flip_counts_numpy(np, [c[1:] for c in cases], state, permutations)
        else:
            counts = [_flip_count(ints, state, permutations, upper, lower) for _, ints, upper, lower in cases]
        for (i, _, _, _), count in zip(cases, counts):
            out[i] = (1 + count) / (1 + permutations)
    return cast("list[float]", out)  # every sample filled: exactly above, or from its sampled sign flips


def _flip_count(ints: list[int], state: int, permutations: int, upper: int, lower: int) -> int:
    """The sampled sign assignments of :func:`randomization_test` whose 2T is >= upper or <= lower (the reference)."""
    n = len(ints)
    # 8 queries per random byte: for each group of 8, the 256 subset sums (of 2 d_i), looked up by the byte.
    padded = ints + [0] * (-n % 8)
    tables = []
    for g in range(0, len(padded), 8):
        table = [0]
        for v in padded[g:g + 8]:
            table += [s + 2 * v for s in table]
        tables.append(table)
    n_bytes = len(tables)
    words = (n_bytes + 7) // 8
    count = 0
    lookup = list.__getitem__
    for first in range(0, permutations, _CHUNK):
        block = min(_CHUNK, permutations - first)
        stream = _splitmix64(state, first * words, block * words)
        blob = struct.pack(f"<{len(stream)}Q", *stream)
        stride = 8 * words
        for k in range(0, block * stride, stride):
            s = sum(map(lookup, tables, blob[k:k + n_bytes]))
            if s >= upper or s <= lower:
                count += 1
    return count


# --- Bootstrap intervals -----------------------------------------------------------------------------------------

def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (NumPy's default ``method='linear'``)."""
    position = q * (len(sorted_values) - 1)
    i = min(int(math.floor(position)), len(sorted_values) - 1)
    fraction = position - i
    if fraction == 0.0 or i + 1 >= len(sorted_values):
        return sorted_values[i]
    a, b = sorted_values[i], sorted_values[i + 1]
    return a + (b - a) * fraction


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return _quantile(ordered, 0.5)


def _resample_indices(state: int, n: int, resamples: int):
    """Yield, per resample, n indices uniform on 0..n-1: two 32-bit halves of each SplitMix64 word (low first),
    mapped by Lemire's multiply-shift with rejection, so each index is exactly uniform."""
    if n >= 1 << 32:
        raise ValueError("bootstrap supports fewer than 2^32 values")
    reject_below = ((1 << 32) - n) % n
    mask32 = (1 << 32) - 1
    position = 0
    pending: list[int] = []
    for _ in range(resamples):
        out: list[int] = []
        while len(out) < n:
            need = n - len(out)
            batch = _splitmix64(state, position, (need + 1) // 2 + 1)
            position += len(batch)
            for word in batch:
                for half in (word & mask32, word >> 32):
                    m = half * n
                    if (m & mask32) >= reject_below:
                        pending.append(m >> 32)
            take = min(need, len(pending))
            out.extend(pending[:take])
            del pending[:take]
        yield out


def _numpy():
    """NumPy when it is installed (an optional speed-up, never required), else None."""
    try:
        import numpy
    except ImportError:  # pragma: no cover - the pure-Python path below is the reference
        return None
    return numpy


# --- NumPy paths: the same numbers as the pure-Python reference, to the bit -------------------------------------
#
# Sums of many integers are computed exactly as float64 matrix products: each integer is split into limbs of
# _limb_bits(n) bits, so that every partial sum of n (or of n counts times) limbs is an integer below 2^52, which
# float64 holds exactly in any order of summation (BLAS's included); the limb sums are then recombined as Python
# integers. The random streams are SplitMix64 computed with NumPy's uint64 arithmetic, which wraps mod 2^64 as the
# reference's masks do.

_BLOCK = 1 << 16  # indices generated per NumPy block (small blocks stay in the CPU cache)


def _splitmix64_array(np, state: int, start: int, count: int):
    """Outputs start, ..., start+count-1 of SplitMix64 from ``seed`` as a uint64 array: :func:`_splitmix64`'s
    numbers."""
    z = np.arange(1, count + 1, dtype=np.uint64)
    z += np.uint64(start & _MASK64)
    z *= np.uint64(_GOLDEN)
    z += np.uint64(state)
    t = np.empty_like(z)
    np.right_shift(z, np.uint64(30), out=t)
    z ^= t
    z *= np.uint64(0xBF58476D1CE4E5B9)
    np.right_shift(z, np.uint64(27), out=t)
    z ^= t
    z *= np.uint64(0x94D049BB133111EB)
    np.right_shift(z, np.uint64(31), out=t)
    z ^= t
    return z


def _resample_index_blocks(np, state: int, n: int, resamples: int):
    """The indices of :func:`_resample_indices`, the same stream, as (resamples in block, n) int64 arrays.

    The stream is the accepted 32-bit halves of SplitMix64 outputs 0, 1, 2, ... in order (low half first), n per
    resample, however they are batched."""
    reject_below = ((1 << 32) - n) % n
    per_block = max(1, _BLOCK // n)
    position, pending = 0, np.empty(0, dtype=np.uint64)
    done = 0
    while done < resamples:
        block = min(per_block, resamples - done)
        need = block * n
        parts = [pending]
        have = len(pending)
        while have < need:
            count = (need - have) // 2 + 16
            # the little-endian uint32 view of each word is its low half, then its high half
            halves = _splitmix64_array(np, state, position, count).astype("<u8", copy=False).view("<u4")
            m = halves.astype(np.uint64)
            m *= np.uint64(n)
            # Lemire: reject when the low 32 bits of half * n fall below (2^32 - n) mod n (never when n is 2^k)
            accepted = m[(m & np.uint64((1 << 32) - 1)) >= np.uint64(reject_below)] if reject_below else m
            accepted >>= np.uint64(32)
            parts.append(accepted)
            have += len(accepted)
            position += count
        stream = np.concatenate(parts) if len(parts) > 1 else parts[0]
        pending = stream[need:]
        yield stream[:need].astype(np.int64).reshape(block, n)
        done += block


# (state, n, resamples) -> the resamples' count matrix: how often each value is drawn, per resample. compare() and
# the report bootstrap many metrics and strata of the same size with the same seed, so with the same indices; the
# count matrices (uint8 when every count is below 256: n bytes per resample) are kept, at most _COUNTS_CACHE_BYTES
# in all, the least recently used dropped first.
_COUNTS_CACHE: dict[tuple, Any] = {}  # NumPy arrays (NumPy is optional, so untyped here)
_COUNTS_CACHE_BYTES = 96 << 20
_COUNTS_LOCK = threading.Lock()


def _resample_counts(np, state: int, n: int, resamples: int):
    """The resamples of :func:`_resample_indices` as a (resamples, n) count matrix: entry [r, i] the number of
    times resample r draws value i (each row sums to n). Read-only: it may be shared through the cache."""
    key = (state, n, resamples)
    with _COUNTS_LOCK:
        counts = _COUNTS_CACHE.pop(key, None)
        if counts is not None:
            _COUNTS_CACHE[key] = counts  # most recently used last
            return counts
    counts = np.empty((resamples, n), dtype=np.uint8)
    done = 0
    for indices in _resample_index_blocks(np, state, n, resamples):
        rows = len(indices)
        indices += (np.arange(rows, dtype=np.int64) * n)[:, None]
        block = np.bincount(indices.ravel(), minlength=rows * n).reshape(rows, n)
        if counts.dtype == np.uint8 and block.max() > 255:
            counts = counts.astype(np.uint32)
        counts[done:done + rows] = block
        done += rows
    counts.setflags(write=False)
    if counts.nbytes <= _COUNTS_CACHE_BYTES:
        with _COUNTS_LOCK:
            _COUNTS_CACHE[key] = counts
            while sum(c.nbytes for c in _COUNTS_CACHE.values()) > _COUNTS_CACHE_BYTES:
                del _COUNTS_CACHE[next(iter(_COUNTS_CACHE))]
    return counts


def _limb_bits(n: int) -> int:
    """Limb width such that a sum of n limbs (or of limbs times counts summing to n) stays below 2^52."""
    return 52 - n.bit_length()


def _limb_matrix(np, columns: list[list[int]], bits: int):
    """The non-negative integers of each column split into ``bits``-bit limbs: an (n, total limbs) float64 matrix
    (exact: every limb is below 2^52) and, per column, its number of limbs."""
    mask = (1 << bits) - 1
    arrays, widths = [], []
    for ints in columns:
        limbs = max(1, -(-max(ints, default=0).bit_length() // bits))
        widths.append(limbs)
        arrays += [np.array([(v >> (bits * j)) & mask for v in ints], dtype=np.int64) for j in range(limbs)]
    return np.stack(arrays, axis=1).astype(np.float64), widths


def _recombine(sums, widths: list[int], bits: int, bases: list[int] | None = None) -> list[list[int]]:
    """From an int64 matrix of limb sums (one row per replicate; each column's limbs side by side, lowest first),
    each column's exact integer sums (lists, one per column), plus ``bases[c]`` when given."""
    out, at = [], 0
    for c, width in enumerate(widths):
        limbs = sums[:, at:at + width].T.tolist()
        totals = limbs[-1]
        for lower in reversed(limbs[:-1]):
            totals = [(t << bits) + x for t, x in zip(totals, lower)]
        if bases is not None and bases[c]:
            base = bases[c]
            totals = [t + base for t in totals]
        out.append(totals)
        at += width
    return out


_ROWS_BYTES = 1 << 17  # float64 bytes of the rows multiplied at once (small enough to stay in cache: one BLAS thread beats many on these shapes)


def _row_sums(np, rows, matrix):
    """rows (small non-negative integers, any integer dtype) @ matrix, exactly, as an int64 array: the product in
    float64 over chunks of rows small enough to stay in the CPU cache (exact: see :func:`_limb_bits`)."""
    out = np.empty((len(rows), matrix.shape[1]), dtype=np.float64)
    step = max(1, _ROWS_BYTES // (8 * max(1, rows.shape[1])))
    for i in range(0, len(rows), step):
        np.matmul(rows[i:i + step].astype(np.float64), matrix, out=out[i:i + step])
    return out.astype(np.int64)


def _exact_sum_replicates(np, columns: list[list[int]], state: int, resamples: int) -> list[list[int]]:
    """For each column of integers (one per value), the exact sum over every resample's indices, as the
    pure-Python path computes it: count matrix times limb matrix (:func:`_limb_bits`), recombined."""
    n = len(columns[0])
    bits = _limb_bits(n)
    offsets = [min(ints) for ints in columns]
    matrix, widths = _limb_matrix(np, [[v - o for v in ints] for ints, o in zip(columns, offsets)], bits)
    sums = _row_sums(np, _resample_counts(np, state, n, resamples), matrix)
    return _recombine(sums, widths, bits, [n * o for o in offsets])


def _flip_counts_numpy(np, cases: list[tuple[list[int], int, int]], state: int, permutations: int) -> list[int]:
    """:func:`_flip_count` of each (ints, upper, lower), all of one size n, with NumPy: assignment k is bytes of
    SplitMix64 outputs k*ceil(n/64) on (little-endian), bit i of byte b saying "+" for query 8b+i, and 2T (T the
    sum over the "+" queries) is counted when >= upper or <= lower. T is exact: limb sums (:func:`_limb_bits`) of
    the integers shifted to be non-negative, plus the shift times the number of "+" queries. A float estimate of
    2T decides the assignments far from both bounds; the others are decided on the exact integers."""
    n = len(cases[0][0])
    words = (n + 63) // 64
    bits = _limb_bits(n)
    offsets = [min(ints) for ints, _, _ in cases]
    shifted = [[v - o for v in ints] for (ints, _, _), o in zip(cases, offsets)]
    matrix, widths = _limb_matrix(np, shifted, bits)
    matrix = np.concatenate([matrix, np.ones((n, 1))], axis=1)  # the last column counts the "+" queries
    plans, at = [], 0
    for (_, upper, lower), offset, values, width in zip(cases, offsets, shifted, widths):
        columns = list(range(at, at + width)) + [matrix.shape[1] - 1]
        at += width
        # |2T| and the bounds are at most `largest`; float rounding is within 2^-50 of it, the band 2^-40 of it.
        largest = 2 * (sum(values) + abs(offset) * n) + abs(upper) + abs(lower) + 1
        estimate = None
        if largest.bit_length() < 1000:
            powers = np.array([2.0 ** (bits * j) for j in range(width)] + [float(offset)])
            estimate = (powers, float(largest) * 2.0 ** -40, float(upper), float(lower))
        plans.append((columns, width, offset, upper, lower, estimate))
    per_block = max(1, min(permutations, (1 << 22) // n))
    counts = [0] * len(cases)
    for first in range(0, permutations, per_block):
        block = min(per_block, permutations - first)
        raw = _splitmix64_array(np, state, first * words, block * words).astype("<u8", copy=False)
        flips = np.unpackbits(raw.view(np.uint8).reshape(block, 8 * words), axis=1, count=n, bitorder="little")
        all_sums = _row_sums(np, flips, matrix)
        for c, (columns, width, offset, upper, lower, estimate) in enumerate(plans):
            sums = all_sums[:, columns]
            if estimate is not None:
                powers, band, up, low = estimate
                twice = 2.0 * (sums.astype(np.float64) @ powers)
                surely = (twice >= up + band) | (twice <= low - band)
                counts[c] += int(np.count_nonzero(surely))
                # the rest is surely not counted (low + band <= 2T <= up - band), but within a band of a bound
                near = ~surely & ((np.abs(twice - up) < band) | (np.abs(twice - low) < band))
                if not near.any():
                    continue
                sums = sums[near]
            (totals,) = _recombine(sums[:, :width], [width], bits)
            for total, plus in zip(totals, sums[:, width].tolist()):
                s = 2 * (total + offset * plus)
                if s >= upper or s <= lower:
                    counts[c] += 1
    return counts


def _acceleration(jackknife: list[float]) -> float:
    """BCa's acceleration from the jackknife values: sum(u^3) / (6 sum(u^2)^1.5), u = mean - value. Values whose
    cubes or sums overflow (magnitudes near 1e100 and beyond) are divided by their largest magnitude first (the
    ratio does not change); other values are computed as they are."""
    n = len(jackknife)
    try:
        center = math.fsum(jackknife) / n
        num = math.fsum((center - j) ** 3 for j in jackknife)
        den = math.fsum((center - j) ** 2 for j in jackknife)
        acceleration = num / (6.0 * den**1.5) if den > 0.0 else 0.0
        if math.isfinite(acceleration):
            return acceleration
    except (OverflowError, ValueError):  # fsum: intermediate overflow, or inf - inf
        pass
    largest = max(abs(j) for j in jackknife)
    scaled = [j / largest for j in jackknife]
    center = math.fsum(scaled) / n
    num = math.fsum((center - j) ** 3 for j in scaled)
    den = math.fsum((center - j) ** 2 for j in scaled)
    return num / (6.0 * den**1.5) if den > 0.0 else 0.0


def bootstrap_interval(
    values: Sequence[float],
    *,
    statistic: str | Callable[[list[float]], float] = "mean",
    level: float = 0.95,
    resamples: int = 10000,
    seed: int = 0,
    method: str = "percentile",
    bounds: tuple[float, float] | None = None,
    weights: Sequence[float] | None = None,
) -> tuple[float, float]:
    """(low, high) bootstrap confidence interval of ``statistic`` ("mean", "median" or a function of a list).

    ``method`` is "percentile" (the level/2 tails of the resampled statistics, interpolated linearly as NumPy
    does) or "bca" (bias-corrected and accelerated, Efron 1987: bias from the share of resampled statistics below
    the estimate, counting ties half as scipy.stats.bootstrap does, acceleration from the jackknife). When every
    resampled statistic lies on one side of the estimate the BCa correction is infinite; the percentile interval is
    returned then. Resamples are drawn with SplitMix64 from ``seed``: the same arguments give the same interval.
    The mean of a resample is its exact mean correctly rounded. ``bounds=(lo, hi)`` clips the interval to the
    metric's range (a percentile interval of means of values in [lo, hi] is inside it anyway).

    ``weights`` (query weights, >= 0; statistic "mean" only) make the statistic the weighted mean: queries are
    resampled as without weights (uniformly, with replacement), each carrying its weight, and a resample's
    statistic is sum(w x) / sum(w) over it, computed exactly and correctly rounded. Queries of weight 0 are left
    out first (they are in no weighted mean); equal weights give the unweighted interval exactly.

    >>> bootstrap_interval([1.0, 1.0, 1.0])
    (1.0, 1.0)
    >>> bootstrap_interval([0.0, 1.0, 5.0], weights=[1.0, 1.0, 0.0])[1] <= 1.0
    True
    """
    return bootstrap_intervals([values], statistic=statistic, level=level, resamples=resamples, seed=seed,
                               method=method, bounds=[bounds], weights=[weights])[0]


def bootstrap_intervals(
    samples: Sequence[Sequence[float]],
    *,
    statistic: str | Callable[[list[float]], float] = "mean",
    level: float = 0.95,
    resamples: int = 10000,
    seed: int = 0,
    method: str = "percentile",
    bounds: Sequence[tuple[float, float] | None] | None = None,
    weights: Sequence[Sequence[float] | None] | None = None,
) -> list[tuple[float, float]]:
    """:func:`bootstrap_interval` of each sample, with the same settings: the same intervals, to the bit, as one
    call per sample. ``bounds`` and ``weights``, when given, hold one entry (or None) per sample. Faster for many
    samples of the same size (strata, metrics): with NumPy, their resampled sums come out of one pass over the
    shared resamples.

    >>> bootstrap_intervals([[1.0, 1.0], [0.5, 0.5, 0.5]])
    [(1.0, 1.0), (0.5, 0.5)]
    """
    samples = list(samples)
    announce(f"bootstrap intervals ({len(samples)} x {resamples:,} resamples)")
    bounds = [None] * len(samples) if bounds is None else list(bounds)
    weights = [None] * len(samples) if weights is None else list(weights)
    if not len(bounds) == len(weights) == len(samples):
        raise ValueError(f"bounds and weights need one entry per sample ({len(samples)} samples)")
    checked = []
    for values, w in zip(samples, weights):
        data = _finite_floats("values", values)
        if not data:
            raise ValueError("bootstrap_interval needs at least one value")
        if w is not None:
            if statistic != "mean":
                raise ValueError("weights apply to the mean only (statistic='mean')")
            data, w = _positive_weights(data, w)
            if not data:
                raise ValueError("bootstrap_interval needs at least one value of positive weight")
        checked.append((data, w))
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, not {level!r}")
    if method not in ("percentile", "bca"):
        raise ValueError(f"method must be 'percentile' or 'bca', not {method!r}")
    resamples = _check_count("resamples", resamples)
    state = _check_seed(seed)
    cases = [_BootstrapCase(data, w, statistic) for data, w in checked]

    replicates: list[list[float] | None] = [None] * len(cases)
    np = _numpy() if statistic == "mean" else None
    if np is not None:  # the same numbers, faster: samples of one size share their resamples' count matrix
        by_size: dict[int, list[int]] = {}
        for i, case in enumerate(cases):
            if case.n < 1 << 31:
                by_size.setdefault(case.n, []).append(i)
        for _n, members in by_size.items():
            columns = [column for i in members for column in cases[i].columns]
            sums = _exact_sum_replicates(np, columns, state, resamples)
            at = 0
            for i in members:
                width = len(cases[i].columns)
                replicates[i] = sorted(cases[i].from_sums(*sums[at:at + width]))
                at += width
    out = []
    for case, found, lohi in zip(cases, replicates, bounds):
        if found is None:
            found = sorted(case.of_indices(ix) for ix in _resample_indices(state, case.n, resamples))
        out.append(case.interval(found, level, method, resamples, lohi))
    return out


class _BootstrapCase:
    """One sample of :func:`bootstrap_intervals`, checked: its statistic on the whole sample, on the values at given
    indices (the pure-Python path), from exact sums over resamples (the NumPy path, statistic "mean": ``columns``
    are the integers summed), on the jackknife samples, and the interval from the sorted replicates."""

    def __init__(self, data: list[float], weights: list[float] | None, statistic) -> None:
        self.n = n = len(data)
        self.statistic, self.weighted = statistic, weights is not None
        self.columns: list[list[int]] = []
        if statistic == "mean" and weights is not None:
            # sum(w x) / sum(w) = (E * sum P) / (D * sum W), with w x = P / D and w = W / E exactly.
            products, d_scale = _exact_products(data, weights)
            whole_weights, e_scale = _exact_integers(weights)
            self.columns = [products, whole_weights]
            self.d_scale, self.e_scale = d_scale, e_scale
            self.estimate = self._weighted(sum(products), sum(whole_weights))
        elif statistic == "mean":
            ints, denominator = _exact_integers(data)
            self.columns = [ints]
            self.denominator, self.scale = denominator, denominator * n
            self.estimate = sum(ints) / self.scale
        else:
            if statistic == "median":
                function = _median
            elif callable(statistic):
                function = statistic
            else:
                raise ValueError(f"statistic must be 'mean', 'median' or a function, not {statistic!r}")
            self.data, self.function = data, function
            self.estimate = float(function(list(data)))

    def _weighted(self, sum_p: int, sum_w: int) -> float:
        return (self.e_scale * sum_p) / (self.d_scale * sum_w)

    def of_indices(self, indices) -> float:
        if self.statistic == "mean" and self.weighted:
            products, whole_weights = self.columns
            return self._weighted(sum(map(products.__getitem__, indices)),
                                  sum(map(whole_weights.__getitem__, indices)))
        if self.statistic == "mean":
            return sum(map(self.columns[0].__getitem__, indices)) / self.scale
        return float(self.function(list(map(self.data.__getitem__, indices))))

    def from_sums(self, *sums: list[int]) -> list[float]:
        if self.weighted:
            return [self._weighted(a, b) for a, b in zip(*sums)]
        scale = self.scale
        return [total / scale for total in sums[0]]

    def jackknife(self) -> list[float]:
        n = self.n
        if self.statistic == "mean" and self.weighted:
            products, whole_weights = self.columns
            all_p, all_w = sum(products), sum(whole_weights)
            return [self._weighted(all_p - pi, all_w - wi) for pi, wi in zip(products, whole_weights)]
        if self.statistic == "mean":
            whole = sum(self.columns[0])
            return [(whole - v) / (self.denominator * (n - 1)) for v in self.columns[0]]
        return [self.of_indices([j for j in range(n) if j != i]) for i in range(n)]

    def interval(self, replicates: list[float], level: float, method: str, resamples: int, bounds):
        alpha = (1.0 - level) / 2.0
        q_low, q_high = alpha, 1.0 - alpha
        estimate = self.estimate
        if method == "bca":
            below = sum(1 for r in replicates if r < estimate)
            at_most = sum(1 for r in replicates if r <= estimate)
            share = (below + at_most) / (2.0 * resamples)
            if 0.0 < share < 1.0:
                normal = NormalDist()
                z0 = normal.inv_cdf(share)
                acceleration = _acceleration(self.jackknife()) if self.n > 1 else 0.0

                def adjusted(q):
                    zq = normal.inv_cdf(q)
                    return normal.cdf(z0 + (z0 + zq) / (1.0 - acceleration * (z0 + zq)))

                q_low, q_high = adjusted(q_low), adjusted(q_high)

        low, high = _quantile(replicates, q_low), _quantile(replicates, q_high)
        if bounds is not None:
            lo, hi = bounds
            low, high = min(max(low, lo), hi), max(min(high, hi), lo)
        return low, high


# --- Multiple comparisons ----------------------------------------------------------------------------------------

def _check_pvalues(pvalues) -> list[float]:
    ps = [float(p) for p in pvalues]
    if not all(0.0 <= p <= 1.0 for p in ps):
        raise ValueError("p-values must be numbers between 0 and 1")
    return ps


def bonferroni(pvalues: Sequence[float]) -> list[float]:
    """Bonferroni-adjusted p-values: min(1, m p), in the given order.

    >>> bonferroni([0.01, 0.04, 0.5])
    [0.03, 0.12, 1.0]
    """
    ps = _check_pvalues(pvalues)
    m = len(ps)
    return [min(1.0, m * p) for p in ps]


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (the false discovery rate, Benjamini & Hochberg 1995), in the given
    order: the i-th smallest p (from 1) is divided by i / m, capped at 1, and made non-increasing from the largest
    down (ties keep their input order).

    >>> [round(p, 12) for p in benjamini_hochberg([0.01, 0.04, 0.03, 0.005])]
    [0.02, 0.04, 0.04, 0.02]
    """
    ps = _check_pvalues(pvalues)
    m = len(ps)
    order = sorted(range(m), key=ps.__getitem__)
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, ps[i] / ((rank + 1) / m))
        adjusted[i] = running
    return adjusted


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the given order: the i-th smallest p (from 1) is multiplied by
    m - i + 1, capped at 1, and made non-decreasing along the sorted order (ties keep their input order).

    >>> holm([0.01, 0.04, 0.03, 0.005])
    [0.03, 0.06, 0.06, 0.02]
    """
    ps = _check_pvalues(pvalues)
    m = len(ps)
    order = sorted(range(m), key=ps.__getitem__)
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        adjusted[i] = running
    return adjusted
