"""Regression gates on a comparison: is any system significantly worse than the baseline?

One rule, used by :func:`sqlndcg.gate` and ``sqlndcg compare --fail-if-worse`` (docs/compare.md, "Regression
gates"): for each gated row (stratum, system, metric) the one-sided paired t test of H0: difference >= -margin
against H1: difference < -margin (:func:`sqlndcg.stats.effect.worse_p`, on the row's moments, weighted ones with
query weights), its p-values adjusted over every gated row by the comparison's correction; a row fails when its
adjusted p-value is below ``alpha`` (0.025 by default: uncorrected, that is "the 95% t interval lies below
-margin").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.metrics import metric_column, parse_metric
from ..errors import SettingError
from ..stats.effect import worse_p
from .compare import Comparison, _adjust

#: The default one-sided level: the upper end of the two-sided 95% interval.
ALPHA = 0.025


def parse_gate(text: str) -> tuple[str, float]:
    """``"ndcg@10:0.01"`` -> ("ndcg@10", 0.01); ``"NDCG@10"`` -> ("ndcg@10", 0.0): the canonical metric name and the
    margin, a non-negative number on the metric's scale."""
    metric, margin = _written_gate(text)
    return parse_metric(metric).name, margin


def _written_gate(text: str) -> tuple[str, float]:
    """The gate's metric as written and its margin, both checked."""
    if not isinstance(text, str) or not text.strip():
        raise SettingError(f"a gate is METRIC[:MARGIN], e.g. 'ndcg@10:0.01', got {text!r}")
    metric, sep, tail = text.strip().rpartition(":")
    if not sep:
        metric, tail = tail, "0"
    try:
        margin = float(tail)
    except ValueError:
        raise SettingError(f"gate {text!r}: the margin after ':' must be a number, e.g. 'ndcg@10:0.01'") from None
    if not math.isfinite(margin) or margin < 0:
        raise SettingError(f"gate {text!r}: the margin must be a finite number >= 0, got {tail}")
    parse_metric(metric.strip())  # a bad name is refused here, naming what is allowed
    return metric.strip(), margin


@dataclass(frozen=True)
class GateResult:
    """What :func:`gate` returns: ``rows``, one dict per gated comparison row (its strata, system, metric,
    ``margin``, ``difference``, ``t_low``/``t_high``, ``worse_p``, ``worse_p_adjusted``, ``failed``, ``reason``).
    True when no row fails."""

    rows: tuple
    alpha: float
    correction: str

    @property
    def failures(self) -> list[dict]:
        return [r for r in self.rows if r["failed"]]

    @property
    def passed(self) -> bool:
        return not self.failures

    def __bool__(self) -> bool:
        return self.passed

    def reasons(self) -> list[str]:
        """One line per failing row."""
        return [r["reason"] for r in self.failures]


def gate(comparison: Comparison, *gates: str, alpha: float = ALPHA, correction: str | None = None) -> GateResult:
    """Gate a comparison: each of ``gates`` is ``"METRIC[:MARGIN]"``; every non-baseline system (in every
    stratum) is checked on that metric. ``correction`` (default: the comparison's) adjusts the one-sided
    p-values over all gated rows.

    >>> import sqlndcg
    >>> c = sqlndcg.compare(sqlndcg.example("run"), sqlndcg.example("qrels"), ["ndcg@5"], system="tag",
    ...                     baseline="rerank", permutations=10, resamples=10)
    >>> g = sqlndcg.gate(c, "ndcg@5:0.01")
    >>> g.passed, round(g.rows[0]["worse_p"], 5)
    (False, 0.00119)
    """
    if not gates:
        raise SettingError("gate needs at least one 'METRIC[:MARGIN]', e.g. 'ndcg@10:0.01'")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 1.0:
        raise SettingError(f"alpha= must be a number between 0 and 1, got {alpha!r}")
    s = comparison.settings
    correction = s["correction"] if correction is None else correction
    strata, system = list(s["strata"]), s["system"]
    table = comparison.to_dicts()
    compared = list(dict.fromkeys(r["metric"] for r in table))
    rows = []
    for text in gates:
        written, margin = _written_gate(text)
        # the comparison names each metric as its metrics= spelled it: 'map' gates the rows of 'ap' and back
        metric = metric_column(written, {"metrics": compared, "canonical_metrics": s.get("canonical_metrics")})
        if metric is None:
            raise SettingError(f"gate {text!r}: {parse_metric(written).name} is not among the compared metrics "
                               f"({', '.join(compared)})")
        for r in table:
            if r["metric"] != metric:
                continue
            p = worse_p(r["difference"], r["difference_std"], r["effective_pairs"], margin)
            rows.append({**{g: r[g] for g in strata}, system: r[system], "baseline": r["baseline"],
                         "metric": metric, "margin": margin, "pairs": r["pairs"], "difference": r["difference"],
                         "t_low": r["t_low"], "t_high": r["t_high"], "worse_p": p})
    adjusted = _adjust([math.nan if r["worse_p"] is None else r["worse_p"] for r in rows], correction)
    for r, a in zip(rows, adjusted):
        r["worse_p_adjusted"] = a
        r["failed"] = a is not None and a < alpha
        r["reason"] = _reason(r, strata, system, alpha, correction) if r["failed"] else None
    return GateResult(tuple(rows), alpha, correction)


def _reason(r: dict, strata: list[str], system: str, alpha: float, correction: str) -> str:
    where = "".join(f", {g}={r[g]}" for g in strata)
    ci = "" if r["t_low"] is None else f", 95% CI (t) [{r['t_low']:+.4f}, {r['t_high']:+.4f}]"
    adj = "" if correction == "none" else f", {correction}-adjusted {r['worse_p_adjusted']:.2g}"
    return (f"{r['metric']}: {system}={r[system]}{where} is worse than baseline {r['baseline']} by more than "
            f"{r['margin']:g}: difference {r['difference']:+.4f}{ci}, one-sided p {r['worse_p']:.2g}{adj} "
            f"< alpha {alpha:g} ({r['pairs']} pairs)")
