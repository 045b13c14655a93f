"""The SQL half kept readable: every macro fits on a screen or two (at most 100 lines, from its ``{% macro`` tag to
its ``{% endmacro %}``), so a long statement is a short macro listing its stages, each stage a macro of its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SQL = Path(__file__).resolve().parents[1] / "sql"
MOST_LINES = 100

_OPEN = re.compile(r"\{%-?\s*macro\s+(\w+)")
_CLOSE = re.compile(r"\{%-?\s*endmacro")


def macros(path: Path) -> list[tuple[str, int, int]]:
    """(name, first line, line count) of each macro in ``path``."""
    found, start = [], None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        opened = _OPEN.search(line)
        if opened:
            assert start is None, f"{path}:{number}: a macro opens inside {start[0]}"
            start = (opened.group(1), number)
        if _CLOSE.search(line):
            assert start is not None, f"{path}:{number}: endmacro without a macro"
            found.append((start[0], start[1], number - start[1] + 1))
            start = None
    assert start is None, f"{path}: {start[0]} never ends"
    return found


FILES = sorted(SQL.rglob("*.sql"))


def test_the_macros_are_found():
    every = [m for path in FILES for m in macros(path)]
    assert len(every) > 300 and any(name == "_per_query_sql" for name, _, _ in every)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SQL)))
def test_no_macro_is_longer_than_a_hundred_lines(path):
    long = [f"{name} (line {first}: {count} lines)" for name, first, count in macros(path) if count > MOST_LINES]
    assert not long, f"{path.relative_to(SQL)}: split into stage macros: {long}"
