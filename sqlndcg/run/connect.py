"""Open the database a command line names: a DuckDB file, or a connection string for another engine.

    warehouse.duckdb                      DuckDB (read-only)
    sqlite:///path/to/file.db             SQLite
    postgresql://user:pw@host:5432/db     PostgreSQL (psycopg)
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import weakref
from urllib.parse import unquote

from ..errors import InputError, SettingError


#: The password of a URL (``scheme://user:PASSWORD@host``): up to the authority's last ``@``.
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:/?#@\s]*):(?P<password>[^?#\s]*)@")
#: ``password=...`` in a libpq keyword string (a value in single quotes may hold spaces) or a URL's query.
_KEYWORD_PASSWORD = re.compile(r"(?P<head>\bpassword\s*=\s*)(?P<password>'(?:[^'\\]|\\.)*'|[^\s&']+)", re.IGNORECASE)


def redact(text: str, *, secrets_of: str | None = None) -> str:
    """``text`` with every password replaced by ``***``: a URL's (``postgresql://user:***@host/db``), a keyword
    string's (``password=***``), and anywhere else the passwords written in ``secrets_of`` (a connection string)
    appear in ``text`` as written or percent-decoded (a driver's message may quote them)."""
    secrets: set[str] = set()
    for found in (*_URL_PASSWORD.finditer(secrets_of or ""), *_KEYWORD_PASSWORD.finditer(secrets_of or "")):
        value = found.group("password")
        if value.startswith("'") and value.endswith("'") and len(value) > 1:
            value = value[1:-1]
        secrets.update(v for v in (value, unquote(value)) if v)
    text = _URL_PASSWORD.sub(lambda m: m.group("head") + ":***@", text)
    text = _KEYWORD_PASSWORD.sub(lambda m: m.group("head") + "***", text)
    for secret in sorted(secrets, key=len, reverse=True):
        if secret != "***":
            text = text.replace(secret, "***")
    return text


def _shown(text: str, secrets_of: str | None = None) -> str:
    """A --database value (or a part of one) as messages show it: quoted as Python would, passwords redacted."""
    return repr(redact(text, secrets_of=secrets_of or text))


def open_database(text: str | None, *, progress: bool | None = None, memory_limit: str | None = None,
                  temp_directory: str | None = None):
    """A connection for ``--database``; None opens a new in-memory DuckDB. DuckDB's own progress bar is off unless
    ``progress`` asks for it: the command line shows one progress line of its own (sqlndcg.cli.progress). A DuckDB
    connection spills into ``temp_directory`` or else a private temporary directory (removed with the connection),
    bounded in size; never into the current directory."""
    if (memory_limit or temp_directory) and text and "://" in text:
        raise InputError("--memory-limit and --temp-directory apply to DuckDB; set memory and spilling on the "
                         f"database server for {text.partition('://')[0]}")
    if text and "://" in text:
        scheme, _, rest = text.partition("://")
        scheme = scheme.lower()
        if scheme == "sqlite":
            import sqlite3

            path = rest[1:] if rest.startswith("/") and not rest.startswith("//") else rest
            if not os.path.exists(path):
                raise InputError(f"--database {_shown(text)}: no such SQLite database file {_shown(path, text)}")
            return sqlite3.connect(path)
        if scheme in ("postgres", "postgresql"):
            try:
                import psycopg
            except ImportError:
                raise InputError("--database postgresql://...: needs psycopg (pip install 'psycopg[binary]')") from None
            try:
                return psycopg.connect(text, autocommit=True)
            except (psycopg.Error, ValueError, TypeError) as exc:
                said = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise InputError(f"--database {_shown(text)} cannot be opened: "
                                 f"{redact(said, secrets_of=text)}") from None
        raise InputError(f"--database {_shown(text)}: unknown scheme {redact(scheme)!r}; use a DuckDB file, "
                         "sqlite:///file.db or postgresql://user@host/db")
    import duckdb

    try:
        if text:
            if not os.path.exists(text):
                raise InputError(f"--database {_shown(text)}: no such DuckDB database file")
            con = duckdb.connect(text, read_only=True)
        else:
            con = duckdb.connect()
    except duckdb.Error as exc:
        # text may be None here (the in-memory connect failed): then _shown raises TypeError; left as it was
        raise InputError(f"--database {_shown(text)} cannot be opened: "  # type: ignore[arg-type]
                         f"{redact(str(exc).splitlines()[0], secrets_of=text)}") from None
    from .engines.duckdb_engine import set_limits

    try:
        scratch, _ = set_limits(con, private=True, memory_limit=memory_limit, temp_directory=temp_directory)
    except SettingError as exc:
        con.close()
        raise InputError(_as_flags(str(exc))) from None
    if scratch:
        weakref.finalize(con, shutil.rmtree, scratch, True)
        atexit.register(shutil.rmtree, scratch, True)
    show = bool(progress)  # the command line shows its own progress line (sqlndcg.cli.progress), one display
    con.execute(f"SET enable_progress_bar = {'true' if show else 'false'}")
    return con


def _as_flags(message: str) -> str:
    """A limit's message (``memory_limit='lots' is not a size...``) in the command line's words (``--memory-limit
    'lots' is not a size...``)."""
    for keyword, flag in (("memory_limit", "--memory-limit"), ("temp_directory", "--temp-directory")):
        if message.startswith(keyword + "="):
            return f"{flag} {message[len(keyword) + 1:]}"
    return f"--memory-limit/--temp-directory: {message}"
