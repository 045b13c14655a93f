"""The findings of :func:`sqlndcg.judge_check`: plain sentences read off the parts' numbers. Every threshold is here,
named; docs/judgments.md ("Before you switch: one check") lists them. A finding is a prompt to look, not a verdict:
the numbers it reads are in the parts beside it."""

from __future__ import annotations

from .ppi import LOW_LAMBDA as PPI_LOW_LAMBDA

#: A per-grade (or overall) mean signed difference candidate - reference at least this large, in grades, is called
#: a bias ("the model grades 0.4 higher on human grade 0").
GRADE_BIAS = 0.3
#: Quadratic-weighted Cohen's kappa below this is called weak agreement (0.4: the lower edge of Landis & Koch's
#: "moderate").
KAPPA_WEAK = 0.4
#: Kendall's tau-b between the systems' orders below this is called a different order (0.9: Voorhees' rule of thumb
#: for orderings taken as equivalent, SIGIR 1998 / IP&M 2000).
TAU_EQUIVALENT = 0.9
#: A flipped pair whose reference p-value (compare's paired test under the people's labels) is below this is a
#: winner the people's labels tell apart: the model would pick the wrong one.
SIGNIFICANT = 0.05
#: PPI++'s lam below this: the model labels add little (the same threshold as ppi_evaluate's warning).
LOW_LAMBDA = PPI_LOW_LAMBDA

THRESHOLDS = {"grade_bias": GRADE_BIAS, "kappa_weak": KAPPA_WEAK, "tau_equivalent": TAU_EQUIVALENT,
              "significant": SIGNIFICANT, "low_lambda": LOW_LAMBDA}


def _g(v) -> str:
    return f"{v:.2f}" if abs(v) >= 0.01 or v == 0 else f"{v:.2g}"


def _2(v) -> str:
    return "-" if v is None else f"{v:.2f}"


def _p(v) -> str:
    return "-" if v is None else f"{v:.2g}" if v < 0.01 else f"{v:.2f}"


def findings(agreed, order, corrected, sizes, s: dict) -> list[str]:
    """The sentences, in the order of the parts: agreement, order, corrected means, audit."""
    return (_agreement(agreed, s) + _order(order, s) + ([] if corrected is None else _corrected(corrected, s))
            + ([] if sizes is None else _audit(sizes, s)))


def _agreement(agreed, s: dict) -> list[str]:
    ref, cand = s["reference"], s["candidate"]
    out = []
    if agreed.settings.get("grade_scales"):
        out.append(f"{agreed.settings['grade_scales']}: map the model's scale onto the people's before trusting the "
                   "rest; the corrected means (PPI needs one scale) are left out")
    pair = agreed.pairs.to_dicts()[0]
    kappa, diff = pair["cohen_kappa_quadratic"], pair["mean_difference"]
    if kappa is not None and kappa < KAPPA_WEAK:
        out.append(f"weak agreement: quadratic kappa {kappa:.2f} (below {KAPPA_WEAK}) on {pair['units']} pairs "
                   "both labelled")
    if diff is not None and abs(diff) >= GRADE_BIAS:
        out.append(f"{cand} grades {_g(abs(diff))} {'higher' if diff > 0 else 'lower'} than {ref} on average")
    for r in agreed.per_grade.to_dicts():
        d = r["mean_difference"]
        if d is not None and abs(d) >= GRADE_BIAS:
            out.append(f"{cand} grades {_g(abs(d))} {'higher' if d > 0 else 'lower'} on {ref} grade {r['grade']:g} "
                       f"({r['units']} pairs)")
    return out


def _order(order, s: dict) -> list[str]:
    ref, cand = s["reference"], s["candidate"]
    out = []
    for r in order.correlation.to_dicts():
        if r["tau_b"] is not None and r["tau_b"] < TAU_EQUIVALENT:
            out.append(f"{r['metric']}: {cand} orders the {r['systems']} systems differently (tau_b {r['tau_b']:.2f}, "
                       f"below {TAU_EQUIVALENT}; tau_ap {_2(r['tau_ap'])})")
    for f in order.flips.to_dicts():
        a, b = f["system_a"], f["system_b"]
        told = (f"under {ref}, {a} wins at p < {SIGNIFICANT}: {cand} would pick the wrong one"
                if f["reference_p"] is not None and f["reference_p"] < SIGNIFICANT else
                f"under {ref} the two are not told apart at p < {SIGNIFICANT} either")
        out.append(f"{f['metric']}: {cand} flips {a} vs {b} (p {_p(f['reference_p'])} under {ref}, "
                   f"{_p(f['source_p'])} under {cand}); {told}")
    return out


def _corrected(corrected, s: dict) -> list[str]:
    system, base = s["system"], s["baseline"]
    out = []
    for r in corrected.summary.to_dicts():
        who = f"{r[system]} - {base}" if base is not None else f"{r[system]}"
        where = f"{r['metric']}, {who}"
        if r["lam"] is None:
            out.append(f"{where}: every query has {s['reference']} labels; the corrected mean is theirs and the "
                       f"{s['candidate']} labels add nothing")
            continue
        if s["ppi"] == "ppi++" and r["lam"] < LOW_LAMBDA:
            out.append(f"{where}: lam {r['lam']:.2f} (below {LOW_LAMBDA}): the {s['candidate']} labels add little; "
                       "the interval is about the audit's alone")
        low, high = r["naive_ci_low"], r["naive_ci_high"]
        if low is not None and high is not None and not low <= r["mean"] <= high:
            out.append(f"{where}: the naive interval [{low:.3f}, {high:.3f}] ({s['candidate']} labels alone) excludes "
                       f"the corrected mean {r['mean']:.3f}")
    return out


def _audit(sizes, s: dict) -> list[str]:
    out = []
    for r in sizes.to_dicts():
        if r["audited"] is None and str(r["note"]).startswith("no audit"):  # else the pilot cannot plan (the page
            # prints the note): too few audited or unaudited queries
            out.append(f"{r['metric']}, {r[s['system']]}: no audit of these {r['queries']} queries gives an interval "
                       f"{s['width']:g} wide (audit.note says how narrow one can get)")
    return out
