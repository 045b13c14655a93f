"""Labels from behaviour: an event log (clicks, purchases, watch times, conversions) becomes a judgments table.

The SQL is ``sql/macros/judgments/labels.sql`` (also the dbt macro ``sqlndcg.labels_from_events``); the rules are
stated there and in ``docs/judgments.md``.
"""

from __future__ import annotations

from typing import Mapping, Sequence, cast

from ..errors import DataError
from .judgments import Runner, group_list, show_row
from ..present.results import Table
from ..core import templates

RESOLUTIONS: tuple[str, ...] = tuple(templates.labels_resolutions())


def labels_from_events(
    events,
    *,
    rules: Mapping[str, float] | None = None,
    thresholds: Mapping[float, float] | None = None,
    rate: Sequence[str] | None = None,
    resolve: str = "strongest",
    unknown_events: str = "error",
    impressions=None,
    group_by: Sequence[str] | str = (),
    query_id: str = "query_id",
    doc_id: str = "doc_id",
    event: str = "event",
    value: str = "value",
    time: str | None = None,
    rel: str = "rel",
    con=None,
    events_format: str | None = None,
    impressions_format: str | None = None,
) -> Table:
    """Turn an event log into judgments: one row per (group, query, document) with the label ``rel`` and the
    number of event rows it rests on (``events``), ready for :func:`sqlndcg.evaluate`.

    Grade with ``rules`` (event type -> grade, column ``event``), ``thresholds`` (measured value strictly above a
    threshold -> grade, column ``value``; with rules too a row takes the larger grade) or ``rate`` (a
    ``[numerator, denominator]`` pair of columns: SUM(numerator) / SUM(denominator), a fractional label).
    Repeated and conflicting events are resolved by ``resolve``: ``strongest`` (default), ``most_frequent``
    (ties: the larger grade) or ``latest`` (by ``time``; ties: the larger grade). With ``impressions`` (the shown
    documents: query, document and group columns), a shown document without events is labelled 0.

    >>> import pandas as pd, sqlndcg
    >>> log = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q1"], "doc_id": ["a", "a", "b", "b"],
    ...                     "event": ["click", "purchase", "click", "click"]})
    >>> labels = sqlndcg.labels_from_events(log, rules={"click": 1, "add_to_cart": 2, "purchase": 3})
    >>> [(r["doc_id"], r["rel"], r["events"]) for r in labels]
    [('a', 3.0, 2), ('b', 1.0, 2)]
    """
    settings = {
        "rules": None if rules is None else dict(rules),
        "thresholds": None if thresholds is None else dict(thresholds),
        "rate": None if rate is None else (rate if isinstance(rate, str) else list(rate)),
        "resolve": resolve, "unknown_events": unknown_events, "group_by": group_list(group_by),
        "query_id": query_id, "doc_id": doc_id, "event": event, "value": value, "time": time, "rel": rel,
    }
    with Runner.session(con) as runner:
        ev, shown = runner.inputs((events, "events", events_format), (impressions, "impressions", impressions_format))
        plan = templates.labels_plan(ev.described, None if shown is None else shown.described, settings, dialect=runner.ses.dialect)
        identity = plan["settings"]["group_by"] + [query_id, doc_id]
        runner.check(ev, plan["checks"], identity)
        if shown is not None:
            runner.check(shown, plan["impression_checks"], identity)
        if plan["rate"]:
            bad = runner.rows(templates.labels_zero_denominators(plan, 5, dialect=runner.ses.dialect))
            if bad:
                examples = ", ".join(show_row(identity, r[:-1]) for r in bad)
                raise DataError(
                    f"{ev.label}: the rate denominator {cast(Sequence[str], rate)[1]!r} sums to 0 for {bad[0][-1]} document(s), "
                    f"e.g. {examples}; a rate needs a base (drop those rows, or add the impressions)")
        return runner.fetch(templates.labels_sql(plan, dialect=runner.ses.dialect), plan["settings"])
