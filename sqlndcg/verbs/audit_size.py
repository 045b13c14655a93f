"""How many queries to audit: from a pilot (a :class:`~sqlndcg.PPIResult`) or given numbers, the fewest audited
queries whose prediction-powered interval is at most a given width, beside what a human-only audit would need.
The arithmetic is :mod:`sqlndcg.stats.audit`; docs/judgments.md, "Which queries to audit next"."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from numbers import Real

from ..core import templates
from ..errors import InputError, SettingError
from ..present.ppi import PPIResult
from ..present.results import Table
from ..run.session import Session
from ..stats import audit as stats_audit


@dataclass(frozen=True)
class AuditSize:
    """What :func:`audit_size` returns. ``audited``: the fewest audited queries for an interval at most ``width``
    wide (of ``queries`` evaluated), with ``lam`` and ``expected_width`` there; ``human_only``: the audited queries a
    human-only mean needs for the same width (``human_only_exact`` unrounded), ``saving`` the difference;
    the pilot's moments (``sd_human``, ``sd_model``, ``correlation`` or ``sd_rectifier``) and ``pilot_audited``."""

    width: float
    alpha: float
    ppi: str
    queries: int
    audited: int
    lam: float
    expected_width: float
    human_only: int | None
    human_only_exact: float | None
    saving: int | None
    sd_model: float
    sd_human: float | None
    correlation: float | None
    sd_rectifier: float | None
    pilot_audited: int | None
    metric: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def text(self) -> str:
        head = (f"{self.audited} audited queries of {self.queries} give a {self.ppi} interval {self.expected_width:.4g} "
                f"wide (target {self.width:g}, {1 - self.alpha:.0%}; lam = {self.lam:.3g})")
        if self.human_only is not None:
            head += (f"; a human-only audit needs {self.human_only} ({self.human_only_exact:.1f}), "
                     f"{self.saving} more")
        pilot = (f"sd of the model values {self.sd_model:.4g}"
                 + (f", of the human values {self.sd_human:.4g}" if self.sd_human is not None else "")
                 + (f", correlation {self.correlation:.3g}" if self.correlation is not None else "")
                 + (f", sd of the rectifier {self.sd_rectifier:.4g}" if self.sd_rectifier is not None else "")
                 + (f" from {self.pilot_audited} audited pilot queries" if self.pilot_audited else " (given)"))
        return f"{head}; {pilot}" + (f" ({self.metric})" if self.metric else "")

    def __str__(self) -> str:
        return self.text()


def _positive(name: str, value, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or \
            (value < 0 if allow_zero else value <= 0):
        raise SettingError(f"{name}= must be a {'non-negative' if allow_zero else 'positive'} number, got {value!r}")
    return float(value)


def _var(xs: list[float]) -> float:
    mean = math.fsum(xs) / len(xs)
    return math.fsum((x - mean) ** 2 for x in xs) / len(xs)


def _pairs(pilot, pilot_format: str | None, con) -> tuple[list[dict], dict]:
    """The per-query pairs (metric, model_value, human_value, audited) of a PPIResult, or of a Table (read
    already), table, file or frame holding them (ppi_evaluate's ``per_query``)."""
    if isinstance(pilot, PPIResult):
        if "baseline" in pilot.settings:
            raise SettingError("audit_size reads a ppi_evaluate pilot; for ppi_compare's differences give the "
                               "numbers (sd_human=, sd_model=, correlation= of the per-query differences)")
        return pilot.per_query.to_dicts(), dict(pilot.settings)
    if isinstance(pilot, Table):  # such pairs already read (judge_check's, per system or difference)
        records, columns, label = pilot.to_dicts(), list(pilot.columns), "the pilot (Table)"
    else:
        with Session(con) as ses:
            src = ses.resolve(pilot, "pilot", pilot_format)
            ses.describe(src)
            columns, rows = ses.fetch(templates.all_rows(src.sql, dialect=ses.dialect))
        records, label = [dict(zip(columns, r)) for r in rows], src.label
    need = ["metric", "model_value", "human_value", "audited"]
    missing = [c for c in need if c not in columns]
    if missing:
        raise InputError(f"{label}: no column {', '.join(map(repr, missing))} (its columns: "
                         f"{', '.join(columns)}); the pilot is ppi_evaluate's per-query pairs")
    return records, {}


def _from_pilot(pilot, metric: str | None, pilot_format: str | None,
                con) -> tuple[stats_audit.Moments, int, int, str, str]:
    records, settings = _pairs(pilot, pilot_format, con)
    if not records:
        raise InputError("the pilot has no per-query pairs")
    metrics = list(dict.fromkeys(str(r["metric"]) for r in records))
    if metric is None:
        if len(metrics) != 1:
            raise SettingError(f"the pilot holds several metrics: pass metric= one of {', '.join(metrics)}")
        metric = metrics[0]
    elif metric not in metrics:
        raise SettingError(f"metric={metric!r} is not in the pilot, which holds {', '.join(metrics)}")
    extra = [c for c in records[0] if c not in ("metric", "model_value", "human_value", "audited")]
    if len(extra) > 1:  # the query id and group columns
        raise SettingError(f"the pilot holds groups ({', '.join(extra[:-1])}): plan one group at a time (a pilot "
                           "without group_by), or give the numbers")
    pairs = [r for r in records if str(r["metric"]) == metric]
    y = [float(r["human_value"]) for r in pairs if r["audited"]]
    yh = [float(r["model_value"]) for r in pairs if r["audited"]]
    f = [float(r["model_value"]) for r in pairs if not r["audited"]]
    if len(y) < 2 or len(f) < 2:
        raise InputError(f"the pilot has {len(y)} audited and {len(f)} unaudited queries with {metric}; the spreads "
                         "need at least 2 of each")
    my, mh = math.fsum(y) / len(y), math.fsum(yh) / len(yh)
    cov = math.fsum((a - my) * (b - mh) for a, b in zip(y, yh)) / len(y)
    moments = stats_audit.Moments(var_f=_var(f), var_y=_var(y), var_h=_var(yh), cov=cov)
    return moments, len(y) + len(f), len(y), str(settings.get("ppi", "ppi++")), metric


def audit_size(pilot=None, *, width: float, queries: int | None = None, ppi: str | None = None,
               metric: str | None = None, alpha: float = 0.05, sd_human: float | None = None,
               sd_model: float | None = None, correlation: float | None = None, sd_rectifier: float | None = None,
               lam: float | None = None, con=None, pilot_format: str | None = None) -> AuditSize:
    """The fewest audited queries whose PPI interval (level 1 - ``alpha``) is at most ``width`` wide, of ``queries``
    evaluated (default: the pilot's audited + unaudited), and what a human-only audit needs for the same width.

    The pilot is a :class:`~sqlndcg.PPIResult` of :func:`sqlndcg.ppi_evaluate` (its per-query pairs give the
    moments; ``ppi`` defaults to the pilot's) or its ``per_query`` pairs (a :class:`~sqlndcg.Table`, or a table, file or frame), or numbers: ``sd_human``, ``sd_model`` and ``correlation`` (per-query
    values; PPI++ re-tunes lam for each n, ``"ppi"`` keeps lam = 1), or ``sd_rectifier`` (of Y - lam Yh), ``lam`` and
    ``sd_model`` (a fixed lam; ``sd_human`` optional, for the human-only count). Standard deviations are divided
    by their counts, as ppi_evaluate's.

    >>> import sqlndcg
    >>> s = sqlndcg.audit_size(width=0.05, queries=5000, sd_human=0.3, sd_model=0.3, correlation=0.8)
    >>> s.audited, s.human_only, round(s.lam, 3)
    (215, 554, 0.766)
    """
    width = _positive("width", width)
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < alpha < 1:
        raise SettingError(f"alpha= must be a number in (0, 1), got {alpha!r}")
    numbers = {"sd_human": sd_human, "sd_model": sd_model, "correlation": correlation,
               "sd_rectifier": sd_rectifier, "lam": lam}
    pilot_n = None
    if pilot is not None:
        if any(v is not None for v in numbers.values()):
            raise SettingError("give either pilot= or the numbers (sd_human=, sd_model=, ...), not both")
        moments, total, pilot_n, pilot_ppi, metric = _from_pilot(pilot, metric, pilot_format, con)
        ppi = ppi or pilot_ppi
        queries = total if queries is None else queries
    else:
        moments, ppi = _from_numbers(numbers, ppi)
    if ppi not in ("ppi", "ppi++"):
        raise SettingError(f"ppi must be 'ppi' (lam = 1) or 'ppi++' (the power-tuned lam), got {ppi!r}")
    if isinstance(queries, bool) or not isinstance(queries, int) or queries < 3:
        raise SettingError(f"queries= (the queries evaluated, audited or not) must be a whole number >= 3, got "
                           f"{queries!r}")
    n, narrowest, at = stats_audit.audited_needed(moments, width, queries, alpha, ppi)
    if n is None:
        raise SettingError(f"no audit of fewer than {queries} queries gives a {ppi} interval {width:g} wide: the "
                           f"narrowest is {narrowest:.4g}, with {at} audited (the unaudited queries' model values "
                           "carry the rest of the spread); ask for a wider interval or evaluate more queries")
    hw, lam_n = stats_audit.half_width(moments, n, queries, stats_audit.z_value(alpha), ppi)
    human = None if moments.var_y is None else stats_audit.human_needed(moments.var_y, width, alpha)
    human_n = None if human is None else math.ceil(human - 1e-9)
    sd = (lambda v: None if v is None else math.sqrt(v))  # noqa: E731
    corr = correlation
    if pilot is not None and moments.var_y and moments.var_h and moments.cov is not None:
        corr = moments.cov / math.sqrt(moments.var_y * moments.var_h)
    return AuditSize(width, float(alpha), ppi, queries, n, lam_n, 2.0 * hw, human_n, human,
                     None if human_n is None else human_n - n, math.sqrt(moments.var_f), sd(moments.var_y), corr,
                     sd(moments.var_r), pilot_n, metric)


def _from_numbers(numbers: dict, ppi: str | None) -> tuple[stats_audit.Moments, str]:
    if numbers["sd_model"] is None:
        raise SettingError("audit_size needs pilot= (a PPIResult) or the numbers: sd_model= with sd_human= and "
                           "correlation=, or with sd_rectifier= and lam=")
    var_f = _positive("sd_model", numbers["sd_model"], allow_zero=True) ** 2
    if numbers["sd_rectifier"] is not None or numbers["lam"] is not None:
        if numbers["sd_rectifier"] is None or numbers["lam"] is None or numbers["correlation"] is not None:
            raise SettingError("a fixed lam needs sd_rectifier= and lam= together (and no correlation=)")
        fixed = numbers["lam"]
        if isinstance(fixed, bool) or not isinstance(fixed, Real) or not 0 <= float(fixed) <= 1:
            raise SettingError(f"lam= must be a number in [0, 1], got {fixed!r}")
        var_r = _positive("sd_rectifier", numbers["sd_rectifier"]) ** 2
        var_y = None if numbers["sd_human"] is None else _positive("sd_human", numbers["sd_human"]) ** 2
        return stats_audit.Moments(var_f=var_f, var_y=var_y, var_r=var_r, lam=float(fixed)), ppi or "ppi"
    if numbers["sd_human"] is None or numbers["correlation"] is None:
        raise SettingError("the numbers are sd_model= with sd_human= and correlation= (PPI++ tunes lam), or with "
                           "sd_rectifier= and lam= (a fixed lam)")
    sd_y = _positive("sd_human", numbers["sd_human"])
    rho = numbers["correlation"]
    if isinstance(rho, bool) or not isinstance(rho, Real) or not -1 <= float(rho) <= 1:
        raise SettingError(f"correlation= must be a number in [-1, 1], got {rho!r}")
    cov = float(rho) * sd_y * math.sqrt(var_f)
    return stats_audit.Moments(var_f=var_f, var_y=sd_y ** 2, var_h=var_f, cov=cov), ppi or "ppi++"
