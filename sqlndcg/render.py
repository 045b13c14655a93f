"""Render the Jinja templates in ``sql/`` into SQL text.

The templates are plain Jinja macros, written so dbt can load them too: the only dbt facility they use is
``adapter.dispatch`` (and ``adapter.quote``), which :class:`_Adapter` provides here in a few lines.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

import jinja2
import sqlglot
import sqlglot.errors
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect, Dialects

from .errors import SettingError


def _sql_dir() -> Path:
    """Templates ship inside the wheel as ``sqlndcg/sql``; in a source checkout they sit in ``sql/``."""
    packaged = resources.files("sqlndcg") / "sql"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parent.parent / "sql"


SQL_DIR = _sql_dir()


def quote(name: str) -> str:
    """An identifier, always quoted (so keywords, spaces, quotes and unicode are safe), in DuckDB syntax."""
    return exp.to_identifier(name, quoted=True).sql(dialect="duckdb")


def string_literal(value: str) -> str:
    """A string value as an escaped SQL literal."""
    return exp.Literal.string(value).sql(dialect="duckdb")


class _Adapter:
    """The sliver of dbt's ``adapter`` the templates use: dispatch to ``default__`` macros, and quoting."""

    def __init__(self) -> None:
        self.module = None

    def dispatch(self, name: str, macro_namespace: str | None = None):
        for candidate in (f"duckdb__{name}", f"default__{name}"):
            macro = getattr(self.module, candidate, None)
            if macro is not None:
                return macro
        raise LookupError(f"no macro default__{name} in {SQL_DIR}")

    def quote(self, name: str) -> str:
        return quote(name)


@lru_cache(maxsize=1)
def macros():
    """Every macro of every ``sql/*.sql`` file, in one namespace, as dbt sees a package's macros."""
    source = "\n".join(path.read_text(encoding="utf-8") for path in sorted(SQL_DIR.glob("*.sql")))
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True)
    adapter = _Adapter()
    module = env.from_string(source).make_module({"adapter": adapter})
    adapter.module = module
    return module


def call(macro_name: str, *args, **kwargs) -> str:
    """Render one macro to SQL text."""
    return str(getattr(macros(), macro_name)(*args, **kwargs)).strip()


def pretty(sql: str, dialect: str = "duckdb") -> str:
    """Parse the DuckDB SQL and write it in ``dialect``, formatted for people; unsupported constructs raise."""
    try:
        target = Dialect.get_or_raise(dialect)
    except ValueError:
        known = ", ".join(sorted(d.value for d in Dialects if d.value))
        raise SettingError(f"dialect={dialect!r} is not known; choose one of {known}") from None
    try:
        return sqlglot.transpile(
            sql, read="duckdb", write=target, pretty=True, unsupported_level=sqlglot.ErrorLevel.RAISE
        )[0]
    except sqlglot.errors.SqlglotError as exc:
        raise SettingError(f"the SQL cannot be written in dialect {dialect!r}: {str(exc).splitlines()[0]}") from None
