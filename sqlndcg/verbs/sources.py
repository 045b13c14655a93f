"""Label sources side by side (``agreement(..., between=(first, second))``): the checks on the two sources named and
the note on their grade scales, both read from agreement's ``coverage`` table (computed in SQL,
``sql/macros/judgments/sources.sql``)."""

from __future__ import annotations

from typing import Sequence

from ..errors import DataError, InputError
from ..present.results import Table


def _shown(values) -> str:
    return ", ".join(repr(v) for v in values)


def check_sources(coverage: Table, between: Sequence, annotator: str, label: str, *, shared: bool = False) -> None:
    """Refuse a ``between`` source the annotator column lacks (naming what is there), or, with ``shared``, two
    sources that labelled no (query, document) in common."""
    rows = coverage.to_dicts()
    there = sorted({r["annotator"] for r in rows}, key=str)
    if not shared:
        missing = [v for v in between if str(v) not in {str(t) for t in there}]
        if missing:
            raise InputError(f"{label}: between names {_shown(missing)}, which the {annotator!r} column does not "
                             f"hold; its values are {_shown(there)}")
        return
    if sum(r["shared_units"] or 0 for r in rows) == 0:
        units = {str(r["annotator"]): 0 for r in rows}
        for r in rows:
            units[str(r["annotator"])] += r["units"]
        each = ", ".join(f"{v!r} {units.get(str(v), 0)}" for v in between)
        raise DataError(f"{label}: {between[0]!r} and {between[1]!r} labelled no (query, document) in common "
                        f"(units labelled: {each}), so there is nothing to compare")


def scales_note(coverage: Table) -> str | None:
    """None when every source's grades span the same range; else each source's range, to read before trusting the
    comparison (a 0-3 human scale against a 0-1 model score, say). Not refused: agreement still computes."""
    ranges: dict[str, tuple] = {}
    for r in coverage.to_dicts():
        low, high = ranges.get(str(r["annotator"]), (None, None))
        lows = [v for v in (low, r["grade_min"]) if v is not None]
        highs = [v for v in (high, r["grade_max"]) if v is not None]
        ranges[str(r["annotator"])] = (min(lows) if lows else None, max(highs) if highs else None)
    if len(set(ranges.values())) <= 1:
        return None
    return "grade scales differ: " + ", ".join(f"{a} {lo:g}..{hi:g}" for a, (lo, hi) in ranges.items()
                                               if lo is not None and hi is not None)


def confusion_matrices(confusion: Table, groups: Sequence[str] = ()) -> list[tuple[str, Table]]:
    """The long ``confusion`` table as one matrix per group and pair of sources, to print: a row per grade of the
    first source, a column per grade of the second (every grade either gave), unit counts (0 where none)."""
    blocks: dict[tuple, dict[tuple, int]] = {}
    for r in confusion.to_dicts():
        key = tuple(r[g] for g in groups) + (r["annotator_a"], r["annotator_b"])
        blocks.setdefault(key, {})[(r["grade_a"], r["grade_b"])] = r["units"]
    out = []
    for key, cells in blocks.items():
        first, second = key[-2], key[-1]
        rows_g = cols_g = sorted({a for a, _ in cells} | {b for _, b in cells})  # square, as sklearn's
        title = "".join(f"{g}={v}, " for g, v in zip(groups, key)) + f"rows: {first}, columns: {second}"
        columns = (f"{first} \\ {second}",) + tuple(f"{g:g}" for g in cols_g) + ("total",)
        rows = tuple((f"{a:g}",) + tuple(cells.get((a, b), 0) for b in cols_g)
                     + (sum(cells.get((a, b), 0) for b in cols_g),) for a in rows_g)
        out.append((title, Table(columns, rows)))
    return out
