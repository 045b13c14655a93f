"""DuckDB: the embedded default, and the only engine that reads local files (Parquet, CSV, TREC).

Larger than memory: DuckDB spills to disk. A connection sqlndcg opens spills into a temporary directory of its own
(never the current directory), bounded in size, removed afterwards; ``memory_limit``, ``temp_directory`` and
``max_temp_size`` set them (on a connection you pass, only what you set is changed). Running out of memory or
disk is reported as that, with the settings to change.
"""

from __future__ import annotations

import atexit
import math
import os
import re
import shutil
import tempfile
import threading
import warnings
import weakref
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

import duckdb

from .types import column_class
from ...core import render
from ...errors import InputError, ResourceError, SettingError
from .base import Engine, MissingRelation
from ...core import templates


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
    removed: list[str] = []
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


#: The limits sqlndcg sets on a DuckDB connection: the keyword the API and messages use -> DuckDB's setting.
LIMITS = {"memory_limit": "memory_limit", "temp_directory": "temp_directory",
          "max_temp_size": "max_temp_directory_size"}

#: A size as sqlndcg passes it on to DuckDB: a number and a unit (4GB, 512MiB, 1.5 GB). DuckDB's own reader also
#: takes "-5GB" (no limit at all), "5GB extra" (the rest ignored) and units of its own guessing, silently.
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(b|bytes|[kmgt]i?b|[kmgt])\s*", re.IGNORECASE)
_PERCENT = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*%\s*")
_UNITS = "B, KB, MB, GB, TB or KiB, MiB, GiB, TiB"


def checked_size(keyword: str, value) -> str:
    """A memory_limit (a positive size, or a share of the machine's memory up to 100%) or max_temp_size (a size;
    0 never spills) as DuckDB's text, or a SettingError naming the keyword and what it takes."""
    text = str(value)
    memory = keyword == "memory_limit"
    example = "'4GB' or '512MiB'" + (", or a share of the machine's memory such as '50%'" if memory else "")
    if text.strip().startswith("-"):
        raise SettingError(f"{keyword}={value!r}: a size cannot be negative (DuckDB would take it for no limit at "
                           f"all); write a size such as {example}")
    found = _SIZE.fullmatch(text) or (_PERCENT.fullmatch(text) if memory else None)
    if found is None or isinstance(value, bool):
        raise SettingError(f"{keyword}={value!r} is not a size: write a number and a unit ({_UNITS}), e.g. {example}")
    amount = float(found.group(1))
    if memory and amount == 0:
        raise SettingError(f"{keyword}={value!r}: DuckDB cannot evaluate in no memory; write a size such as {example}")
    if memory and text.strip().endswith("%") and amount > 100:
        raise SettingError(f"{keyword}={value!r}: more than the machine's memory; write at most '100%', or a size "
                           "such as '4GB'")
    return text.strip()


def checked_directory(value) -> str:
    """A temp_directory DuckDB can spill into: a directory, or a path where one can be made (DuckDB makes it when
    it first spills), writable by this process; else a SettingError saying what the path is."""
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value).strip():
        raise SettingError(f"temp_directory={value!r}: name the directory DuckDB may spill into (a path; it is made "
                           "if missing)")
    text = os.fspath(value)
    existing = os.path.abspath(text)
    while not os.path.exists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        what = ("is a file, not a directory" if existing == os.path.abspath(text)
                else f"cannot be made: {existing!r} is a file, not a directory")
        raise SettingError(f"temp_directory={text!r} {what}; DuckDB spills into a directory: name one (it is made "
                           "if missing)")
    if not os.access(existing, os.W_OK | os.X_OK):
        where = "" if existing == os.path.abspath(text) else f" (its nearest existing directory {existing!r})"
        raise SettingError(f"temp_directory={text!r}{where} is not writable by this process, so DuckDB could not "
                           "spill there; name a directory you can write to")
    return text


def checked_limits(memory_limit=None, temp_directory=None, max_temp_size=None) -> dict[str, str]:
    """The limits given, checked before any is set (a bad one changes nothing): DuckDB's setting -> its text."""
    wanted = {}
    if memory_limit is not None:
        wanted["memory_limit"] = checked_size("memory_limit", memory_limit)
    if temp_directory is not None:
        wanted["temp_directory"] = checked_directory(temp_directory)
    if max_temp_size is not None:
        wanted["max_temp_directory_size"] = checked_size("max_temp_size", max_temp_size)
    return wanted


def current_setting(con, setting: str) -> str:
    return con.execute(templates.duckdb_setting(render.string_literal(setting))).fetchone()[0]


def set_limits(con, *, private: bool, memory_limit=None, temp_directory=None, max_temp_size=None, previous=None):
    """Set DuckDB's memory limit and spilling on ``con``. ``private`` (a connection sqlndcg opened): spill into a
    directory of its own unless one is given, bounded in size, never DuckDB's default ``.tmp`` in the current
    directory. ``previous`` (a dict; a caller's connection): filled with each setting's value before it changed,
    for :func:`restore_settings`. Returns (the directory made here, for the caller to remove, or None; the settings
    set). A value DuckDB refuses is a SettingError naming it, and leaves no directory and no setting changed."""
    wanted = checked_limits(memory_limit, temp_directory, max_temp_size)
    made = None
    if private and temp_directory is None:
        remove_stale_spills()
        made = wanted["temp_directory"] = tempfile.mkdtemp(prefix=f"{_SPILL_PREFIX}{os.getpid()}-")
    if private and max_temp_size is None:
        wanted["max_temp_directory_size"] = bounded_spill(wanted["temp_directory"])
    keywords = {setting: keyword for keyword, setting in LIMITS.items()}
    limits = {}
    for setting in LIMITS.values():
        if setting not in wanted:
            continue
        value = wanted[setting]
        try:
            if previous is not None and setting not in previous:
                previous[setting] = current_setting(con, setting)
            con.execute(templates.duckdb_set(setting), {"value": value})
        except duckdb.Error as exc:
            if previous is not None:
                restore_settings(con, previous)
            if made:
                shutil.rmtree(made, ignore_errors=True)
            raise SettingError(f"{keywords[setting]}={value!r}: DuckDB refuses it "
                               f"({str(exc).strip().splitlines()[0]})") from None
        limits[setting] = value
    return made, limits


#: A size as DuckDB shows it: a tenth of its unit, the rest cut off ("2.7 GiB" is 2.7 GiB up to 2.8 GiB).
_SHOWN = re.compile(r"(\d+(?:\.\d)?) (KiB|MiB|GiB|TiB|PiB)")


def size_spellings(shown: str) -> list[str]:
    """Sizes DuckDB shows as ``shown``, roundest first: the shown value itself (exact when a caller set '3GiB' or
    '512MiB'), then the whole number of bytes in its range with the fewest significant digits (a caller's '3GB',
    shown '2.7 GiB'). DuckDB shows no more than that, so this is as near as a setting can be put back."""
    found = _SHOWN.fullmatch(shown)
    if found is None:
        return [shown]
    scale = 1024 ** ("KiB MiB GiB TiB PiB".split().index(found.group(2)) + 1)
    low = Fraction(found.group(1)) * scale
    high = low + Fraction(scale, 10)
    for digits in range(len(str(int(high))), -1, -1):
        step = 10 ** digits
        candidate = math.ceil(low / step) * step
        if candidate < high:
            return [shown, f"{candidate}B"]
    return [shown]


def restore_settings(con, previous: dict[str, str]) -> list[str]:
    """Put back the settings changed on a caller's connection (``previous``: setting -> its value before), the last
    changed first: DuckDB's default when that gives the value read before (its defaults follow the machine, 80% of
    the memory, 90% of the free disk), else that value as read. Returns what DuckDB would not put back, one phrase
    each (it cannot switch the spill directory once something spilled there); ``previous`` is emptied."""
    failed = []
    for setting, value in reversed(list(previous.items())):
        try:
            if current_setting(con, setting) == value:
                continue
            con.execute(templates.duckdb_reset(setting))
            for spelling in size_spellings(value) if setting != "temp_directory" else [value]:
                if current_setting(con, setting) == value:
                    break
                con.execute(templates.duckdb_set(setting), {"value": spelling})
            if current_setting(con, setting) != value:
                failed.append(f"{setting} is {current_setting(con, setting)!r} (it was {value!r}): no size DuckDB "
                              "reads shows as it did")
        except duckdb.Error as exc:
            try:
                now = current_setting(con, setting)
            except duckdb.Error:
                now = "?"
            failed.append(f"{setting} stays {now!r} (it was {value!r}): {str(exc).strip().splitlines()[0]}")
    previous.clear()
    return failed


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
    ("control byte 0x01",
     "{label}, line {line}: holds the control byte 0x01 ({start}), which no id, score or label holds and which "
     "sqlndcg reads lines by (DuckDB split the line there): remove it, e.g. tr -d '\\001' < {file} > {clean}"),
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


def _binary(path: str):
    """The file's bytes as DuckDB's readers see them: a .gz or .zst file decompressed (sqlndcg_compression says
    which by the suffix)."""
    name = path.lower()
    if name.endswith(".gz"):
        import gzip

        return gzip.open(path, "rb")
    if name.endswith(".zst"):
        import zstandard  # not installed: the file is not copied (DuckDB's refusal stands)

        return zstandard.open(path, "rb")
    return open(path, "rb")


def mixed_line_ends(path: str, chunk: int = 1 << 20) -> bool:
    """Whether a file has both CRLF and bare LF line ends: read in chunks, stopping once both are seen."""
    crlf = lf = False
    last = b""
    try:
        with _binary(path) as f:
            while not (crlf and lf):
                block = f.read(chunk)
                if not block:
                    break
                text = last + block
                crlf = crlf or b"\r\n" in text
                lf = lf or _BARE_LF.search(text, len(last)) is not None  # the lookbehind sees `last`
                last = block[-1:]
    except Exception:  # noqa: BLE001 - unreadable, not gzip after all, no zstandard: not known to mix them
        return False
    return crlf and lf


def copy_with_lf_line_ends(path: str, chunk: int = 1 << 20) -> str:
    """A copy of the text file ``path`` (decompressed) with every CRLF line end made LF: the same lines, which
    DuckDB's reader takes (it refuses a file mixing the two). In a directory of its own, named as the private spill
    directories are, so that a later start removes it if this process is killed; at exit, in any case."""
    directory = tempfile.mkdtemp(prefix=f"{_SPILL_PREFIX}{os.getpid()}-lf-")
    atexit.register(shutil.rmtree, directory, True)
    name = Path(path).name
    for suffix in (".gz", ".zst"):
        if name.lower().endswith(suffix):
            name = name[:-len(suffix)]
    target = os.path.join(directory, name or "input")
    with _binary(path) as source, open(target, "wb") as out:
        carry = b""
        while block := source.read(chunk):
            block = carry + block
            carry = b"\r" if block.endswith(b"\r") else b""  # a CRLF split across two blocks
            out.write((block[:-1] if carry else block).replace(b"\r\n", b"\n"))
        out.write(carry)
    return target


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
    if "delimiter = \x01 (set by user)" in lowered and "expected number of columns: 1 found" in lowered:
        lowered += "\ncontrol byte 0x01"  # the line reader (sqlndcg_read_lines) splits lines on it
    for phrase, advice in CSV_CAUSES:
        if phrase in lowered:
            label, given = (files or {}).get(path, (f"file {path!r}", path))
            name = Path("input.txt" if given == "-" else given)
            original = found.get("original", "")
            fields = {k: "?" for k in _CSV_FIELDS} | found | dict(
                label=label, file=_shell_word(given),
                utf8=_shell_word(str(name.with_name(f"{name.stem}.utf8{name.suffix}"))),
                clean=_shell_word(str(name.with_name(f"{name.stem}.clean{name.suffix}"))),
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
        #: The caller's settings before sqlndcg changed them (their connection only), put back at close.
        self._previous: dict[str, str] = {}
        if shared_limits is not None:  # a connection to the shared database (shared_connection), limits set there
            self._scratch, self.limits = None, shared_limits
            return
        try:
            with self._lock:
                self._scratch, self.limits = set_limits(con, private=owned, memory_limit=memory_limit,
                                                        temp_directory=temp_directory, max_temp_size=max_temp_size,
                                                        previous=None if owned else self._previous)
        except SettingError:
            super().close()
            raise

    def close(self):
        """Put back what sqlndcg set on a caller's connection (a setting DuckDB keeps is warned about), then end what
        sqlndcg opened."""
        failed = []
        try:
            if self._previous:
                with self._lock:
                    failed = restore_settings(self.con, self._previous)
        finally:
            super().close()
            if self._scratch:
                shutil.rmtree(self._scratch, ignore_errors=True)
        if failed:
            warnings.warn("sqlndcg could not put back every DuckDB setting it changed on your connection: "
                          + "; ".join(failed), RuntimeWarning, stacklevel=2)

    def describe_error(self, exc):
        return super().describe_error(exc)

    def lf_copy(self, path):
        """A copy of ``path`` with LF line ends when it mixes CRLF and LF (copy_with_lf_line_ends), named in
        messages as the file itself; removed when the engine closes."""
        if not mixed_line_ends(path):
            return None
        try:
            copy = copy_with_lf_line_ends(path)
        except Exception:  # noqa: BLE001 - a file that cannot be copied: DuckDB's refusal stands
            return None
        self.copies.append(os.path.dirname(copy))
        given = self.files.get(str(Path(path).absolute()), (f"file {path!r}", path))
        self.files[str(Path(copy).absolute())] = given
        return copy

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
                memory, temp = self.con.execute(templates.duckdb_limits()).fetchone()
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
                rel = self.con.sql(templates.no_rows(relation_sql))
            except duckdb.CatalogException as exc:
                raise MissingRelation(str(exc)) from None
            return dict(zip(rel.columns, (str(t) for t in rel.types)))

    def column_class(self, type_name):
        return column_class(type_name)

    def relation_kind(self, name):
        found = self._catalog(templates.duckdb_relation_kind, name)
        return found[0][0] if found else None

    def _catalog(self, macro, name):
        """A catalog query about the bare name ``name``, bound as $name (never in the statement's text: a file's
        path tried as a name stays out of the query log)."""
        with self._calling():
            return self.con.execute(macro("$name"), {"name": name}).fetchall()

    def named_relation(self, parts):
        name = parts[-1]
        schema, database = (list(reversed(parts[:-1])) + [None, None])[:2]
        with self._calling():
            found = self.con.execute(templates.duckdb_relation_named(),
                                     {"name": name, "schema": schema, "database": database}).fetchall()
        return found[0][0] if found else None

    def unique_keys(self, name):
        return [(kind, list(columns)) for kind, columns in self._catalog(templates.unique_keys, name)]

    def register(self, name, frame):
        with self._lock:
            self.con.register(name, frame)

    def unregister(self, name):
        try:
            with self._lock:
                self.con.unregister(name)
        except duckdb.Error:
            pass
