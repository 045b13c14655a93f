"""The impression log, the input of the click tools (:mod:`sqlndcg.verbs.propensities`,
:mod:`sqlndcg.verbs.click_labels`): resolved in the call's session, planned by ``sql/macros/online/log.sql`` and
refused, before any number is computed, when a row or an impression is malformed.

:func:`open_log` is what a click tool calls first; the plan it returns is the ``log`` every online plan macro takes.
"""

from __future__ import annotations

from typing import Sequence, TypedDict

from ..core import templates
from ..errors import DataError, SettingError
from .judgments import Input, Runner, group_list, show_row

#: The log's column settings (name -> default): every click tool takes them as keywords.
LOG_COLUMNS: tuple[str, ...] = tuple(k for k in templates.click_log_declared() if k != "group_by")


class LogColumns(TypedDict, total=False):
    """The impression log's settings every click tool takes as keywords (``**columns: Unpack[LogColumns]``): the
    group columns, and each column's name where it is not the default (the key's own name)."""

    group_by: Sequence[str] | str
    impression_id: str
    query_id: str
    doc_id: str
    position: str
    click: str
    propensity: str
    randomized: str
    team: str


def log_settings(columns: LogColumns) -> dict:
    """The log's settings as ``_click_log_plan`` takes them: every column name (defaults filled in) and the group
    columns as a list."""
    given = dict(columns)
    unknown = sorted(set(given) - set(LOG_COLUMNS) - {"group_by"})
    if unknown:
        raise SettingError(f"unknown setting {unknown[0]!r}; the log's columns are named by group_by, "
                           + ", ".join(LOG_COLUMNS))
    named = {c: c if given.get(c) is None else given[c] for c in LOG_COLUMNS}
    return {**named, "group_by": group_list(given.get("group_by", ()))}


def open_log(runner: Runner, log, log_format: str | None, tool: str, settings: dict,
             needs: Sequence[str] = ()) -> tuple[Input, dict]:
    """The log as an :class:`Input` and its plan, after every check passed: NULL ids, positions below 1, clicks
    other than 0/1, propensities outside (0, 1] (and NULL propensities or flags where ``needs`` names the column),
    a position or a document twice in one impression, an impression whose positions are not 1..n or that has more
    than one query. Each refusal names the log, the column and a few rows."""
    (inp,) = runner.inputs((log, "log", log_format))
    assert inp is not None
    plan = templates.click_log_plan(tool, inp.described, settings, needs, dialect=runner.dialect)
    runner.check(inp, plan["checks"], plan["shown"], plan["position_keys"], "positions within an impression",
                 "; an impression shows each position once")
    runner.check(inp, [], plan["shown"], plan["document_keys"], "documents within an impression",
                 "; an impression shows each document once")
    bad = runner.rows(templates.click_log_impressions(plan, 5, dialect=runner.dialect))
    if bad:
        key = plan["impression_key"]
        shown = ", ".join(f"{show_row(key, r[:len(key)])} with {r[-4]} row(s), deepest position {r[-3]}"
                          + (f", {r[-2]} queries" if r[-2] > 1 else "") for r in bad)
        raise DataError(
            f"{inp.label}: {bad[0][-1]} impression(s) do not show positions 1..n once each with one query, e.g. "
            f"{shown}; every impression lists its shown documents at positions 1, 2, ..., n for one query "
            f"(column {plan['settings']['columns']['position']!r})")
    return inp, plan
