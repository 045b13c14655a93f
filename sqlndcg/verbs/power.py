"""How many queries does a test set need? :func:`power` answers from a pilot: the spread of the per-query
differences between two systems decides how many queries the paired t test needs to detect a given difference
(or which difference a given number of queries detects). The statistics are :mod:`sqlndcg.stats.power`; this
module reads the pilot (docs/compare.md, "How many queries?")."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from numbers import Real
from typing import Sequence

from ..errors import InputError, SettingError
from ..run.session import Session
from ..stats import power as stats_power
from ..stats.effect import within_rounding
from .compare import Comparison
from ..core import templates


@dataclass(frozen=True)
class Power:
    """What :func:`power` returns. ``sd``: the standard deviation (n - 1) of the per-query differences (from the
    pilot's ``pilot_queries`` differences, or given); ``difference`` and ``effect_size`` (d_z = difference / sd);
    ``queries``: the whole number of queries needed (``queries_exact`` rounded up), or the number given when the
    question is the ``minimum_detectable_difference``."""

    sd: float
    pilot_queries: int | None
    alpha: float
    power: float
    alternative: str
    difference: float
    effect_size: float
    queries: int
    queries_exact: float | None
    minimum_detectable_difference: float | None
    about: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    def text(self) -> str:
        test = f"{self.alternative} paired t test at alpha {self.alpha:g}, power {self.power:g}"
        pilot = (f"sd of the per-query differences {self.sd:.4g}"
                 + (f" from {self.pilot_queries} pilot queries" if self.pilot_queries else " (given)")
                 + (f" ({self.about})" if self.about else ""))
        if self.minimum_detectable_difference is None:
            return (f"{self.queries} queries ({self.queries_exact:.2f}) to detect a difference of {self.difference:g} "
                    f"(d_z = {self.effect_size:.4g}); {test}; {pilot}")
        return (f"{self.queries} queries detect a difference of {self.minimum_detectable_difference:.4g} (d_z = "
                f"{self.effect_size:.4g}); {test}; {pilot}")

    def __str__(self) -> str:
        return self.text()


def _number(name: str, value, low: float = 0.0, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not low < float(value) < high:
        raise SettingError(f"{name}= must be a number in ({low:g}, {high:g}), got {value!r}")
    return float(value)


def _sd(diffs: Sequence[float], what: str) -> tuple[float, int]:
    values = [float(d) for d in diffs if d is not None]
    n = len(values)
    if n < 2:
        raise InputError(f"{what}: {n} per-query difference(s); the spread needs at least 2")
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    if within_rounding(sd, max(abs(v) for v in values)):  # float noise (sd 1e-17) would give d_z = 1e15
        shown = f"{mean:g}" if sd == 0 else f"{mean:.4g} up to float rounding (sd {sd:.2g})"
        raise InputError(f"{what}: every per-query difference is {shown}; with no spread there is no power to "
                         "compute")
    return sd, n


def _is_numbers(x) -> bool:
    return isinstance(x, (list, tuple)) and all(isinstance(v, Real) or v is None for v in x)


def _from_comparison(c: Comparison, metric, candidate) -> tuple[list[float], str]:
    s = c.settings
    metrics = list(dict.fromkeys(r["metric"] for r in c))
    systems = list(dict.fromkeys(str(r[s["system"]]) for r in c))
    metric = _one("metric", metric, metrics)
    candidate = _one("candidate", candidate, systems)
    return c.diffs(candidate, metric), f"{metric}, {candidate} - {s['baseline']}"


def _one(name: str, given, present: list):
    if given is None:
        if len(present) != 1:
            raise SettingError(f"the pilot holds several: pass {name}= one of {', '.join(map(str, present))}")
        return present[0]
    if str(given) not in [str(p) for p in present]:
        raise SettingError(f"{name}={given!r} is not in the pilot, which holds {', '.join(map(str, present))}")
    return given


def _from_table(columns: list[str], rows: list[tuple], metric, system: str, candidate, query_id: str):
    """A pilot table: the per-query differences of ``sqlndcg compare --differences`` (a ``difference`` column,
    rows picked by ``metric`` and by ``candidate`` in the ``system`` column, else the column before ``baseline``;
    strata such as ``ds`` are pooled), or per-query values of two systems (``evaluate
    --per-query --group-by system``: the ``system`` column with two values, a column named by ``metric``, paired
    by ``query_id``)."""
    records = [dict(zip(columns, r)) for r in rows]
    if "difference" in columns:
        if "metric" in columns:
            metric = _one("metric", metric, list(dict.fromkeys(r["metric"] for r in records)))
            records = [r for r in records if r["metric"] == metric]
        about = [] if metric is None else [str(metric)]
        if system not in columns and "baseline" in columns and columns.index("baseline") > 0:
            system = columns[columns.index("baseline") - 1]  # compare --differences: the system column precedes it
        if system in columns:
            candidate = _one("candidate", candidate, list(dict.fromkeys(str(r[system]) for r in records)))
            records = [r for r in records if str(r[system]) == str(candidate)]
            about.append(str(candidate) + (f" - {records[0]['baseline']}" if "baseline" in columns else ""))
        return [r["difference"] for r in records], ", ".join(about)
    if metric is None or metric not in columns:
        raise SettingError(f"the pilot has no difference column; name the metric column with metric= (its columns: "
                           f"{', '.join(columns)})")
    for need in (system, query_id):
        if need not in columns:
            raise InputError(f"the pilot has no {need!r} column (its columns: {', '.join(columns)}); per-query values "
                             "of two systems need a system and a query id column")
    systems = sorted({str(r[system]) for r in records})
    if len(systems) != 2:
        raise InputError(f"the pilot's {system!r} column holds {len(systems)} systems ({', '.join(systems)}); per-query "
                         "values of exactly two are paired")
    values: dict = {}
    for r in records:
        key = (str(r[query_id]), str(r[system]))
        if key in values:
            raise InputError(f"the pilot has two rows for query {key[0]!r} of system {key[1]!r}")
        values[key] = r[metric]
    first, second = systems
    diffs = [values[(q, second)] - values[(q, first)] for q, s in values if s == first and (q, second) in values
             and values[(q, first)] is not None and values[(q, second)] is not None]
    return diffs, f"{metric}, {second} - {first}"


def pilot_sd(pilot, *, metric: str | None = None, system: str = "system", candidate=None, query_id: str = "query_id",
             con=None, dialect: str | None = None, pilot_format: str | None = None) -> tuple[float, int, str]:
    """(sd, number of pairs, what they are) of the per-query differences a pilot holds: a list of differences, a
    pair of lists of per-query values (same queries, same order), a :class:`~sqlndcg.Comparison` (``metric=``,
    ``candidate=`` pick its row when it has several), or a table, file or frame (:func:`_from_table`)."""
    if isinstance(pilot, Comparison):
        diffs, about = _from_comparison(pilot, metric, candidate)
    elif isinstance(pilot, (list, tuple)) and len(pilot) == 2 and all(_is_numbers(p) for p in pilot):
        a, b = pilot
        if len(a) != len(b):
            raise InputError(f"the pilot's two lists of per-query values differ in length ({len(a)} and {len(b)})")
        diffs, about = [y - x for x, y in zip(a, b) if x is not None and y is not None], "second - first"
    elif _is_numbers(pilot):
        diffs, about = list(pilot), ""
    else:
        with Session(con, dialect) as ses:
            src = ses.resolve(pilot, "pilot", pilot_format)
            ses.describe(src)
            columns, rows = ses.fetch(templates.all_rows(src.sql, dialect=ses.dialect))
        diffs, about = _from_table(list(columns), rows, metric, system, candidate, query_id)
    sd, n = _sd(diffs, "the pilot" + (f" ({about})" if about else ""))
    return sd, n, about


def power(pilot=None, *, difference: float | None = None, queries: int | None = None, sd: float | None = None,
          alpha: float = 0.05, power: float = 0.8, alternative: str = "two-sided", metric: str | None = None,
          system: str = "system", candidate=None, query_id: str = "query_id", con=None, dialect: str | None = None,
          pilot_format: str | None = None) -> Power:
    """The queries the paired t test needs to detect ``difference`` (mean of system - baseline, on the metric's
    scale) with probability ``power`` at level ``alpha``; or, with ``queries=n``, the smallest difference it
    detects. The spread comes from ``pilot`` (see :func:`pilot_sd`) or is given as ``sd=`` (the standard
    deviation of the per-query differences). ``alternative``: "two-sided" (default), "larger" or "smaller".

    >>> import sqlndcg
    >>> p = sqlndcg.power([0.1, -0.05, 0.2, 0.0, 0.15, -0.1, 0.05, 0.3], difference=0.05)
    >>> p.queries, round(p.sd, 4)
    (58, 0.1335)
    """
    alpha, target = _number("alpha", alpha, 0, 1), _number("power", power, 0, 1)
    if alternative not in stats_power.ALTERNATIVES:
        raise SettingError(f"alternative={alternative!r} is not known; choose one of "
                           f"{', '.join(stats_power.ALTERNATIVES)}")
    if (difference is None) == (queries is None):
        raise SettingError("power needs exactly one of difference= (how many queries to detect it) and queries= "
                           "(the minimum detectable difference)")
    if (pilot is None) == (sd is None):
        raise SettingError("power needs exactly one of pilot= (per-query differences) and sd= (their standard "
                           "deviation)")
    if sd is not None:
        spread, n_pilot, about = _number("sd", sd), None, ""
        if within_rounding(spread, difference or 0.0):
            raise SettingError(f"sd={sd!r} is 0 up to float rounding: with no spread there is no power to compute")
    else:
        spread, n_pilot, about = pilot_sd(pilot, metric=metric, system=system, candidate=candidate,
                                          query_id=query_id, con=con, dialect=dialect, pilot_format=pilot_format)
    if queries is not None:
        if isinstance(queries, bool) or not isinstance(queries, int) or queries < 2:
            raise SettingError(f"queries= must be a whole number >= 2, got {queries!r}")
        try:
            effect = stats_power.detectable_effect(queries, alpha, target, alternative)
        except stats_power.BeyondComputed as big:
            sign = -1.0 if alternative == "smaller" else 1.0
            raise SettingError(
                f"queries={queries:,} is more than the {stats_power.MAX_QUERIES:,} queries whose power sqlndcg computes "
                f"exactly; at that size the t test is a z test and detects about d_z = {sign * big.estimate:.3g} (a "
                f"difference of {sign * big.estimate * spread:.3g}, sd {spread:.4g}): ((z(1 - alpha/2) + "
                "z(power)) / sqrt(queries))") from None
        return Power(spread, n_pilot, alpha, target, alternative, effect * spread, effect, queries, None,
                     effect * spread, about)
    if isinstance(difference, bool) or not isinstance(difference, Real) or difference == 0 or \
            not math.isfinite(difference):
        raise SettingError(f"difference= must be a nonzero number, got {difference!r}")
    if (alternative == "larger" and difference < 0) or (alternative == "smaller" and difference > 0):
        raise SettingError(f"difference={difference!r} has the other sign than alternative={alternative!r}")
    effect = difference / spread
    try:
        exact = stats_power.queries_needed(effect, alpha, target, alternative)
    except stats_power.BeyondComputed as big:
        raise SettingError(
            f"difference={difference:g} is {effect:.3g} standard deviations of the per-query differences (d_z; sd "
            f"{spread:.4g}): the paired t test would need about {big.estimate:.2g} queries to detect it (the normal "
            f"approximation ((z(1 - alpha/2) + z(power)) / d_z)^2), more than the {stats_power.MAX_QUERIES:,} whose "
            "power sqlndcg computes exactly; ask about a larger difference, or pass queries= to see what a test set "
            "of your size detects") from None
    return Power(spread, n_pilot, alpha, target, alternative, float(difference), effect, math.ceil(exact - 1e-9),
                 exact, None, about)
