"""Plumbing shared by the judgment tools (:mod:`sqlndcg.labels`, :mod:`sqlndcg.agreement`,
:mod:`sqlndcg.positions`): inputs resolved and described, row checks run, rendered SQL executed.

Every engine call of those tools is made here, by :class:`Runner`, through the engine interface
(:mod:`sqlndcg.engines`): DuckDB by default, or the engine of the connection given as ``con=``. The SQL itself lives in ``sql/macros/judgments/`` and renders for dbt too.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from ..run import engines
from ..core import render
from ..run import sources
from ..run.checks import EXAMPLES
from ..errors import DataError, InputError
from ..present.results import Table
from ..run.sources import brief


@dataclass
class Input:
    """One resolved input: the source and its description as the plan macros take it ({sql, label, columns})."""

    source: sources.Source
    described: dict

    @property
    def label(self) -> str:
        return self.source.label


class Runner:
    """One engine (sqlndcg.engines: a new in-memory DuckDB when no connection is given) and the few things the
    judgment tools ask of it. SQL is rendered for the engine's dialect."""

    def __init__(self, eng) -> None:
        self.eng = eng
        self.dialect = eng.dialect

    @classmethod
    @contextmanager
    def session(cls, con=None):
        eng = engines.for_connection(con)
        try:
            yield cls(eng)
        finally:
            eng.close()

    def render(self, macro: str, *args):
        return render.call(macro, *args, dialect=self.dialect)

    @contextmanager
    def inputs(self, *wanted: tuple[object, str, str | None]):
        """(object, role, format) triples -> Inputs (None for an object that is None), registered while in use."""
        resolved = [None if obj is None else sources.resolve(obj, role, self.eng, fmt) for obj, role, fmt in wanted]
        registered = []
        try:
            out = []
            for src in resolved:
                if src is None:
                    out.append(None)
                    continue
                src.register(self.eng)
                registered.append(src)
                columns = src.describe(self.eng, self.eng.owned)
                out.append(Input(src, {
                    "sql": src.sql,
                    "label": src.label,
                    "columns": [{"name": n, "type": t, "class": self.eng.column_class(t)} for n, t in columns.items()],
                }))
            yield out
        finally:
            for src in registered:
                src.unregister(self.eng)

    def rows(self, sql: str) -> list[tuple]:
        try:
            return list(self.eng.fetch(sql)[1])
        except self.eng.errors as exc:
            raise InputError(f"{self.eng.name} could not compute the result: {self.eng.describe_error(exc)}") from None

    def fetch(self, sql: str, settings: dict | None = None) -> Table:
        try:
            names, rows = self.eng.fetch(sql)
        except self.eng.errors as exc:
            raise InputError(f"{self.eng.name} could not compute the result: {self.eng.describe_error(exc)}") from None
        return Table(tuple(names), tuple(tuple(r) for r in rows), dict(settings or {}))

    def check(self, inp: Input, checks: list[dict], identity: list[str], keys: list[str] | None = None,
              key_meaning: str = "rows", hint: str = "",
              profile: tuple[str, str] = ("judgment_profile", "judgment_offending_rows")) -> None:
        """Refuse the first problem the declared checks find, naming the input, the column and a few rows;
        then (with `keys`, column names) refuse keys that occur more than once. `profile` names the macros that
        count and show failing rows: the judgment tools' checks (common.sql), or evaluate's (checks.sql)."""
        if checks:
            counts = self.rows(self.render(profile[0], inp.source.sql, checks))[0]
            for check, count in zip(checks, counts[1:]):
                if not count:
                    continue
                shown_names = identity + ([check["name"]] if check["name"] not in identity else [])
                columns = [render.quote(n, self.dialect) for n in shown_names]
                examples = self.rows(self.render(profile[1], inp.source.sql, check, columns, EXAMPLES))
                shown = ", ".join(show_row(shown_names, r) for r in examples)
                raise DataError(f"{inp.label}: column {check['name']!r} {check['message']} in {count} row(s), "
                                f"e.g. {shown}")
        if keys:
            quoted = [render.quote(k, self.dialect) for k in keys]
            dupes = self.rows(self.render("duplicates", inp.source.sql, quoted, EXAMPLES))
            if dupes:
                shown = ", ".join(show_row(keys + ["copies"], r[:-1]) for r in dupes)
                raise DataError(f"{inp.label}: {dupes[0][-1]} {key_meaning} occur more than once "
                                f"({', '.join(keys)}), e.g. {shown}{hint}")


def show_row(columns: list[str], row: tuple) -> str:
    return "(" + ", ".join(f"{c}={brief(v)}" for c, v in zip(columns, row)) + ")"


def group_list(group_by) -> list[str]:
    """group_by as the templates take it: a list (one name may be given as a string)."""
    if group_by is None:
        return []
    return [group_by] if isinstance(group_by, str) else list(group_by)
