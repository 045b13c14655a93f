"""Every measure family's declaration, as its file in ``sql/macros/measures/`` states it.

A family's file says everything about it (help, parameters and their domains, range, summary rule, trec_eval and
ir_measures names, and its SQL); ``registry.sql`` lists the files' families. Python reads the declarations here,
on first use (rendering the package is not free, and ``import sqlndcg`` renders nothing), and derives the rest
from them: :func:`sqlndcg.core.metrics.metric_range`, the trec_eval command's tables, the docs' measure table.
"""

from __future__ import annotations

from functools import lru_cache

from . import render
from . import templates

#: What every declaration holds, and the type of each (the defaults come from registry.sql's measure_defaults).
KEYS: dict[str, type | tuple[type, ...]] = {
    "help": str, "aliases": list, "k": bool, "binary": bool, "additive": bool, "emptyable": bool, "params": dict,
    "domains": dict, "needs": list, "range": (list, type(None)), "summary": str, "trec_eval": list,
    "ir_measures": (str, type(None)),
}

#: What every trec_eval family of a declaration holds (defaults: registry.sql's trec_eval_defaults).
TREC_EVAL_KEYS: dict[str, type | tuple[type, ...]] = {
    "name": str, "order": (int, float), "nicknames": list, "since": int, "params": str, "defaults": list,
    "param": (str, list, type(None)), "of": (str, type(None)), "collection_size": (str, type(None)),
    "integer": bool, "summary_only": bool,
}

#: How trec_eval reads ``-m name.params`` (the readers are in sqlndcg/verbs/trec_eval.py).
TREC_EVAL_PARAMS = ("none", "cutoffs", "levels", "gain_pairs", "named", "coefficients", "beta_squared",
                    "averaged_levels")

SUMMARIES = ("mean", "gm", "sum")


@lru_cache(maxsize=None)
def declarations() -> dict[str, dict]:
    """Every family's declaration, defaults filled in, in registry order (kind -> declaration)."""
    return templates.measures()


def forget() -> None:
    """Drop what was read, so the next use reads the templates again (tests that add a measure file)."""
    declarations.cache_clear()
    render.package.cache_clear()
    render._RENDERED.clear()
