"""The settings as Python sees them: one TypedDict that every verb takes as ``**settings: Unpack[Settings]``.

The declaration is ``_settings_declared()`` in sql/macros/spec/settings.sql (names, allowed values, defaults, help); this
is its typed mirror, so an editor can offer the keywords and their values, and tests/test_settings_declared.py
holds the two equal (the names, and each list of values). A setting left out is not given: the preset, else the
declaration's default, decides.
"""

from __future__ import annotations

import difflib
from typing import Any, Literal, Mapping, Sequence, TypedDict


class Settings(TypedDict, total=False):
    """What makes numbers comparable (docs/SEMANTICS.md): each key is one declared setting."""

    preset: Literal["trec_eval", "trec_eval-9", "sklearn", "ir_measures", "ranx", "spark", "torchmetrics", "gdeval"]
    gain: Literal["exponential", "linear"] | Mapping[float, float]
    ideal: Literal["judgments", "retrieved"]
    lower_is_better: bool
    ties: Literal["doc_id", "average", "rank"]
    short_lists: Literal["pad", "truncate"]
    empty: Literal["zero", "skip", "error"]
    queries: Literal["judged", "both"]
    threshold: float
    labels: Literal["as_given", "integer_part"]
    depth: int
    judged_only: bool
    unjudged_bounds: bool
    unjudged_grade: int
    id_order: Literal["native", "text"]
    iprec_reach: Literal["round", "floor_plus_0.9"]
    checks: Literal["depth", "full"]
    group_by: Sequence[str] | str
    query_id: str
    doc_id: str
    score: str | None
    rank: str | None
    rel: str
    judgments_query_id: str | None
    judgments_doc_id: str | None


class PositionSettings(TypedDict, total=False):
    """The settings positions() reads (the ranking and what counts as relevant): a subset of :class:`Settings`,
    each with its type there (tests/test_settings_declared.py)."""

    group_by: Sequence[str] | str
    gain: Literal["exponential", "linear"] | Mapping[float, float]
    threshold: float
    ties: Literal["doc_id", "average", "rank"]
    lower_is_better: bool
    query_id: str
    doc_id: str
    score: str | None
    rank: str | None
    rel: str
    judgments_query_id: str | None
    judgments_doc_id: str | None


def settings_of(verb: str, given: Mapping[str, Any], accepted: type = Settings) -> dict[str, Any]:
    """The settings a verb received in ``**settings`` (``accepted``: the TypedDict it declares), refused by name when
    one is not a setting (a misspelt keyword would otherwise be dropped without a word), with the closest one
    suggested."""
    known = accepted.__annotations__
    unknown = [name for name in given if name not in known]
    if unknown:
        name = unknown[0]
        close = difflib.get_close_matches(name, list(known), n=1)
        hint = f"; did you mean {close[0]}=?" if close else "; the settings are in docs/SEMANTICS.md"
        raise TypeError(f"{verb}() got an unexpected keyword argument {name!r}{hint}")
    return dict(given)
