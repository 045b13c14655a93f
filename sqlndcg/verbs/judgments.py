"""Plumbing shared by the judgment tools (:mod:`sqlndcg.verbs.labels`, :mod:`sqlndcg.verbs.agreement`,
:mod:`sqlndcg.verbs.positions`): inputs resolved and described, row checks run, rendered SQL executed.

Every engine call of those tools is made here, by :class:`Runner`, in the call's
:class:`~sqlndcg.run.session.Session`: DuckDB by default, or the engine of the connection given as ``con=``. The SQL
itself lives in ``sql/macros/judgments/`` and renders for dbt too.
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

from ..core import templates
from ..run import sources
from ..run.checks import refuse_problems, repeated_keys, show_row  # noqa: F401 - show_row: labels.py shows rows
from ..run.session import Session
from ..errors import DataError
from ..present.results import Table


@dataclass
class Input:
    """One resolved input: the source and its description as the plan macros take it ({sql, label, columns})."""

    source: sources.Source
    described: dict

    @property
    def label(self) -> str:
        return self.source.label


class Runner:
    """The judgment tools' view of a :class:`Session`: inputs as :class:`Input`, rows and tables fetched with the
    engine's errors said as sqlndcg's. SQL is rendered for the engine's dialect."""

    def __init__(self, ses: Session) -> None:
        self.ses = ses
        self.dialect = ses.dialect

    @classmethod
    @contextmanager
    def session(cls, con=None):
        with Session(con) as ses:
            yield cls(ses)

    def inputs(self, *wanted: tuple[object, str, str | None]) -> list[Input | None]:
        """(object, role, format) triples -> Inputs (None for an object that is None), registered until the
        session ends."""
        resolved = [None if obj is None else self.ses.resolve(obj, role, fmt) for obj, role, fmt in wanted]
        return [None if src is None else Input(src, self.ses.described(src, self.ses.describe(src)))
                for src in resolved]

    def rows(self, sql: str) -> list[tuple]:
        with self.ses.explained("could not compute the result"):
            return list(self.ses.fetch(sql)[1])

    def fetch(self, sql: str, settings: dict | None = None) -> Table:
        with self.ses.explained("could not compute the result"):
            names, rows = self.ses.fetch(sql)
        return Table(tuple(names), tuple(tuple(r) for r in rows), dict(settings or {}))

    def keep(self, sql: str, prefix: str, role: str, label: str) -> sources.Source:
        """The rows of ``sql`` as a table of the session (dropped as it closes), to pass to another verb as an input
        of ``role`` on the same connection: what stays in the engine works on every engine, frames do not."""
        table = f"{prefix}_{uuid.uuid4().hex[:12]}"
        with self.ses.explained("could not compute the result"):
            self.ses.materialize(self.ses.eng.quote(table), sql)
        src = self.ses.resolve(table, role)
        src.label = label
        return src

    def check(self, inp: Input, checks: list[dict], identity: list[str], keys: list[str] | None = None,
              key_meaning: str = "rows", hint: str = "",
              profile: tuple = (templates.judgment_profile, templates.judgment_offending_rows)) -> None:
        """Refuse the first problem the declared checks find, naming the input, the column and a few rows;
        then (with `keys`, column names) refuse keys that occur more than once. `profile` names the macros that
        count and show failing rows: the judgment tools' checks (common.sql), or evaluate's (checks.sql)."""
        with self.ses.explained("could not compute the result"):
            if checks:
                refuse_problems(self.ses.eng, inp.source, identity, checks, profile)
            found = repeated_keys(self.ses.eng, inp.source, keys) if keys else None
        if found:
            count, shown = found
            raise DataError(f"{inp.label}: {count} {key_meaning} occur more than once ({', '.join(cast(list[str], keys))}), "
                            f"e.g. {shown}{hint}")


def group_list(group_by) -> list[str]:
    """group_by as the templates take it: a list (one name may be given as a string)."""
    if group_by is None:
        return []
    return [group_by] if isinstance(group_by, str) else list(group_by)
