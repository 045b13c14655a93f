"""A sample of queries (``evaluate(sample=0.01, seed=...)``): the article's approximate computation, with a bound.

Each query is in the sample when the MD5 of "<seed>:<query id>" falls below the fraction (per_query.sql,
_in_sample), so the same queries are chosen on every engine and every day, in the run and in the judgments. Given
how many queries it holds (n of the population's N scored queries), such a sample is a simple random sample
without replacement, n / N close to the fraction f, so the summary's t interval of the whole input's mean narrows
by the finite-population correction (summary.sql, _sampled_share). The checks and the account read the sampled
queries only (what goes into the numbers), so a sample holds a fraction of every input's rows past the hash.
"""

from __future__ import annotations

from ..errors import DataError
from ..present.results import Table
from ..core import templates


def sample_of(fraction, seed) -> dict | None:
    """The sample as the statements read it ({fraction, seed}), or None for no sample; a bad fraction or seed is
    refused by the macro dbt uses too (_sampled in sql/macros/entry/entry.sql)."""
    return templates.sampled({}, fraction, seed).get("sample")


def refuse_empty(sample: dict, account) -> None:
    """A sample that chose no scored query is refused, by name, not taken for a run and judgments that disagree."""
    if not sum(r["scored_queries"] or 0 for r in account.to_pylist()):
        raise DataError(f"sample={sample['fraction']!r} with seed={sample['seed']} chose no scored query (the "
                        "account of the sample counts none); raise the fraction or evaluate every query")


def recorded(sample: dict, summary: Table) -> dict:
    """What the result says about its sample: the fraction and seed, the queries it scored, the interval."""
    scored = sum(r["queries"] for r in summary.to_dicts()) if "queries" in summary.columns else None
    return {"fraction": sample["fraction"], "seed": sample["seed"], "queries": scored,
            "interval": "t, with the finite-population correction sqrt(1 - fraction)"}
