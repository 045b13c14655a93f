"""DuckDB: the embedded default, and the only engine that reads local files (Parquet, CSV, TREC).

Larger than memory: DuckDB spills to disk. A connection sqlndcg opens spills into a temporary directory of its own
(never the current directory), bounded in size, removed afterwards; ``memory_limit``, ``temp_directory`` and
``max_temp_size`` set them (on a connection you pass, only what you set is changed). Running out of memory or
disk is reported as that, with the settings to change.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import threading
import warnings
import weakref
from contextlib import contextmanager
from pathlib import Path

import duckdb

from .types import column_class
from ...core import render
from ...errors import InputError, ResourceError, SettingError
from .base import Engine, MissingRelation


def bounded_spill(directory: str) -> str:
    """A spill size limit for ``directory``: four fifths of its disk's free space (the disk keeps room). A directory
    not made yet (DuckDB makes it when it first spills) is measured on its nearest existing parent."""
    existing = os.path.abspath(directory)
    while not os.path.isdir(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    free = shutil.disk_usage(existing).free
    return f"{max(1, int(free * 0.8) // 2**20)}MiB"


#: A private spill directory is named after the process that made it, so a later start can tell it is stale.
_SPILL_PREFIX = "sqlndcg-spill-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # another user's process, or no way to ask: keep its directory
    return True


def remove_stale_spills(parent: str | None = None) -> list[str]:
    """Remove the private spill directories of sqlndcg processes that are gone (killed by SIGKILL, SIGTERM or a
    closed terminal before they could clean up). Returns what was removed."""
    parent = parent or tempfile.gettempdir()
    removed = []
    try:
        entries = os.listdir(parent)
    except OSError:
        return removed
    for name in entries:
        if not name.startswith(_SPILL_PREFIX):
            continue
        pid_text = name[len(_SPILL_PREFIX):].split("-", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or _alive(int(pid_text)):
            continue
        path = os.path.join(parent, name)
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.exists(path):
            removed.append(path)
    return removed


def set_limits(con, *, private: bool, memory_limit=None, temp_directory=None, max_temp_size=None):
    """Set DuckDB's memory limit and spilling on ``con``. ``private`` (a connection sqlndcg opened): spill into a
    directory of its own unless one is given, bounded in size, never DuckDB's default ``.tmp`` in the current
    directory. Returns (the directory made here, for the caller to remove, or None; the settings set). A value
    DuckDB refuses is a SettingError naming it, and leaves no directory behind."""
    made = None
    if private and temp_directory is None:
        remove_stale_spills()
        made = temp_directory = tempfile.mkdtemp(prefix=f"{_SPILL_PREFIX}{os.getpid()}-")
    if private and max_temp_size is None:
        max_temp_size = bounded_spill(temp_directory)
    limits = {}
    for setting, value in (("memory_limit", memory_limit), ("temp_directory", temp_directory),
                           ("max_temp_directory_size", max_temp_size)):
        if value is None:
            continue
        try:
            con.execute(f"SET {setting} = $value", {"value": str(value)})
        except duckdb.Error as exc:
            if made:
                shutil.rmtree(made, ignore_errors=True)
            raise SettingError(f"{setting}={value!r}: DuckDB refuses it ({str(exc).strip().splitlines()[0]})") from None
        limits[setting] = str(value)
    return made, limits


#: The in-memory database that calls without a connection (and without limits of their own) share in this process,
#: made on first use: each call's engine takes a connection of its own to it (its own temporary tables and registered
#: frames, closed with the call), so a call pays neither for opening a database nor for closing one. It spills into
#: a private directory DuckDB makes only when it spills and removes as the database closes (at exit; a later start
#: removes it if the process was killed). A forked child makes its own.
_SHARED: dict = {"pid": None, "con": None, "limits": {}}
_SHARED_GUARD = threading.Lock()


def shared_connection():
    """A new connection to the process's shared in-memory database, and the limits set on that database."""
    with _SHARED_GUARD:
        if _SHARED["pid"] != os.getpid():
            remove_stale_spills()
            con = duckdb.connect()
            spill = os.path.join(tempfile.gettempdir(), f"{_SPILL_PREFIX}{os.getpid()}-shared-{os.urandom(4).hex()}")
            _, limits = set_limits(con, private=True, temp_directory=spill)
            _SHARED.update(pid=os.getpid(), con=con, limits=limits)
            atexit.register(_close_shared, con, spill)
        return _SHARED["con"].cursor(), dict(_SHARED["limits"])


def _close_shared(con, spill: str) -> None:
    try:
        con.close()
    except duckdb.Error:
        pass
    shutil.rmtree(spill, ignore_errors=True)


#: What DuckDB's CSV reader (which reads CSV, TSV and TREC files' lines) says, by a phrase of its message, as sqlndcg
#: says it: the cause and the fix, on one line. Fields come from DuckDB's own message (csv_problem); "mixed line
#: ends" is found by looking at the file (mixed_line_ends), DuckDB names no cause then.
CSV_CAUSES = (
    ("mixed line ends",
     "{label} mixes Windows (CRLF) and Unix (LF) line ends, which DuckDB's CSV reader refuses: make them one kind, "
     "e.g. sed -i 's/\\r$//' {file} (or dos2unix {file})"),
    ("this file is not utf-8 encoded",
     "{label} is not UTF-8 text (DuckDB stopped at line {line}; Latin-1 or Windows-1252, say): re-encode it as UTF-8, "
     "e.g. iconv -f latin1 -t utf-8 {file} > {utf8}"),
    ("maximum line size of",
     "{label} has a line of {actual} bytes, starting {start}, more than DuckDB reads as one line ({limit} bytes): no "
     "id or score is that long, so a quote left open or line ends DuckDB did not see have joined lines; fix the file"),
    ("could not convert string",
     "{label}, line {line}: column {column!r} holds {value!r}, not a number, though DuckDB took the column for "
     "{type} from the file's first rows: fix that value, or if the column holds text ids, convert the file with the "
     "column as text, e.g. duckdb -c \"COPY (FROM read_csv('{file}', types={{'{column}': 'VARCHAR'}})) TO "
     "'{parquet}'\" and evaluate the Parquet file"),
)

#: DuckDB's complaints that can mean mixed line ends (it does not say so).
_LAYOUT_FAILURES = ("state machine reached an invalid state", "error when sniffing file")

#: Pieces of DuckDB's CSV messages: field -> pattern (its first group).
_CSV_FIELDS = {
    "line": r"CSV Error on Line: (\d+)",
    "file": r"^\s*file = (.+?)\s*$",
    "sniffed": r'sniffing file "(.+?)"',
    "original": r"^Original Line: (.*)$",
    "actual": r"Actual Size:\s*(\d+) bytes",
    "limit": r"Maximum line size of (\d+) bytes",
    "column": r'converting column "(.+?)"',
    "value": r'Could not convert string "(.*?)" to',
    "type": r"to '(\w+)'",
}


_BARE_LF = re.compile(rb"(?<!\r)\n")


def mixed_line_ends(path: str, chunk: int = 1 << 20) -> bool:
    """Whether a file has both CRLF and bare LF line ends: read in chunks, stopping once both are seen."""
    crlf = lf = False
    last = b""
    try:
        with open(path, "rb") as f:
            while not (crlf and lf):
                block = f.read(chunk)
                if not block:
                    break
                text = last + block
                crlf = crlf or b"\r\n" in text
                lf = lf or _BARE_LF.search(text, len(last)) is not None  # the lookbehind sees `last`
                last = block[-1:]
    except OSError:
        return False
    return crlf and lf


def csv_problem(exc: BaseException, files: dict[str, tuple[str, str]] | None = None) -> str | None:
    """One line for a file DuckDB's CSV reader refused (CSV_CAUSES): the file (by its label in ``files``, absolute
    path -> (label, the path as the user gave it; '-' standard input), else its path), the line and column where
    DuckDB says, the cause and the fix. None for any other error."""
    text = str(exc)
    found = {k: m.group(1) for k, p in _CSV_FIELDS.items() if (m := re.search(p, text, re.MULTILINE))}
    path = found.get("file") or found.get("sniffed")
    if not path:
        return None
    lowered = text.lower()
    if any(f in lowered for f in _LAYOUT_FAILURES) and mixed_line_ends(path):
        lowered += "\nmixed line ends"
    for phrase, advice in CSV_CAUSES:
        if phrase in lowered:
            label, given = (files or {}).get(path, (f"file {path!r}", path))
            name = Path("input.txt" if given == "-" else given)
            original = found.get("original", "")
            fields = {k: "?" for k in _CSV_FIELDS} | found | dict(
                label=label, file=_shell_word(given),
                utf8=_shell_word(str(name.with_name(f"{name.stem}.utf8{name.suffix}"))),
                parquet=str(name.with_suffix(".parquet")).replace("'", "''"),
                start=repr(original[:24] + ("..." if len(original) > 24 else "")))
            return advice.format(**fields)
    return None


def _shell_word(text: str) -> str:
    """A path as one shell word, quoted only when it needs to be."""
    return text if re.fullmatch(r"[\w@%+=:,./-]+", text) else "'" + text.replace("'", "'\\''") + "'"


#: One lock per caller's connection: a DuckDB connection runs one statement at a time and refuses (or, fetching,
#: mixes up results) when threads share it, so each statement and its fetch hold the connection's lock.
_LOCKS: "weakref.WeakKeyDictionary[object, threading.RLock]" = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()


def connection_lock(con) -> threading.RLock:
    with _LOCKS_GUARD:
        lock = _LOCKS.get(con)
        if lock is None:
            lock = _LOCKS[con] = threading.RLock()
        return lock


class DuckDBEngine(Engine):
    name = "DuckDB"
    dialect = "duckdb"
    errors = (duckdb.Error,)
    reads_files = True

    def __init__(self, con, *, dialect=None, owned=False, memory_limit=None, temp_directory=None, max_temp_size=None,
                 shared_limits=None):
        super().__init__(con, dialect=dialect, owned=owned)
        self._lock = connection_lock(con)
        if owned:  # a library call prints nothing; the command line turns the progress bar on for a terminal
            con.execute("SET enable_progress_bar = false")
        if shared_limits is not None:  # a connection to the shared database (shared_connection), limits set there
            self._scratch, self.limits = None, shared_limits
            return
        try:
            with self._lock:
                self._scratch, self.limits = set_limits(con, private=owned, memory_limit=memory_limit,
                                                        temp_directory=temp_directory, max_temp_size=max_temp_size)
        except SettingError:
            super().close()
            raise

    def close(self):
        super().close()
        if self._scratch:
            shutil.rmtree(self._scratch, ignore_errors=True)

    def describe_error(self, exc):
        return super().describe_error(exc)

    def resource_error(self, exc: BaseException) -> ResourceError | None:
        """Out of memory or out of temporary disk, said as such, with the settings that change it."""
        text = str(exc)
        settings = ", ".join(f"{k}={v}" for k, v in self._limits_in_force().items())
        lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
        # DuckDB sometimes puts the detail on the line after "Out of Memory Error:".
        said = " ".join(lines[:2]) if lines and lines[0].endswith(":") else (lines[0] if lines else "")
        if "offload" in text or "max_temp_directory_size" in text or "No space left on device" in text:
            return ResourceError(
                f"DuckDB ran out of temporary disk space ({settings}): {said} Point "
                "temp_directory at a disk with room, or raise max_temp_size")
        if isinstance(exc, duckdb.OutOfMemoryException) or "Out of Memory" in text:
            return ResourceError(
                f"DuckDB ran out of memory ({settings}): {said.rstrip('.')}. Raise memory_limit, let it "
                "spill with a temp_directory on a disk with room, evaluate in several passes (partitions=), or "
                "shrink the result (queries='both', or a group column the judgments share)")
        return None

    def _limits_in_force(self) -> dict[str, str]:
        """The limits set here, else the connection's own (a connection the caller configured)."""
        if self.limits:
            return self.limits
        try:
            with self._lock:
                memory, temp = self.con.execute(render.call("sqlndcg_duckdb_limits")).fetchone()
        except (duckdb.Error, TypeError):
            return {"settings": "unknown"}
        return {"memory_limit": memory, "temp_directory": temp or "(none)"}

    @contextmanager
    def _calling(self):
        """One statement and its fetch at a time on the connection (threads may share it); a file DuckDB's CSV
        reader refused is an InputError naming the file, the line, the cause and the fix (csv_problem)."""
        try:
            with self._lock:
                yield
        except duckdb.Error as exc:
            said = csv_problem(exc, self.files)
            if said is None:
                raise
            raise InputError(said) from None

    def fetch(self, sql):
        with self._calling():
            cur = self.con.execute(sql)
            return [d[0] for d in cur.description], cur.fetchall()

    def execute(self, sql):
        with self._calling():
            self.con.execute(sql)

    def fetch_arrow(self, sql, small=False):
        """A relation (con.sql) gives Arrow without a copy of the rows, but DuckDB's Python layer first reads the
        whole statement's text, milliseconds for a long one; a few rows are fetched through execute(), whose Arrow
        output copies the rows (nothing for an account or a summary, twice the memory for a large result)."""
        with self._calling():
            if small:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)  # the copy warned about: a few rows
                    cur = self.con.execute(sql)
                    return cur.to_arrow_table() if hasattr(cur, "to_arrow_table") else cur.arrow()
            rel = self.con.sql(sql)
            return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()

    def columns(self, relation_sql):
        with self._calling():
            try:
                rel = self.con.sql(render.call("sqlndcg_no_rows", relation_sql))
            except duckdb.CatalogException as exc:
                raise MissingRelation(str(exc)) from None
            return dict(zip(rel.columns, (str(t) for t in rel.types)))

    def column_class(self, type_name):
        return column_class(type_name)

    def relation_kind(self, name):
        found = self.fetch(render.call("sqlndcg_duckdb_relation_kind", render.string_literal(name)))[1]
        return found[0][0] if found else None

    def unique_keys(self, name):
        return [(kind, list(columns)) for kind, columns in
                self.fetch(render.call("sqlndcg_unique_keys", render.string_literal(name)))[1]]

    def register(self, name, frame):
        with self._lock:
            self.con.register(name, frame)

    def unregister(self, name):
        try:
            with self._lock:
                self.con.unregister(name)
        except duckdb.Error:
            pass
