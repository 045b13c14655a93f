"""``sqlndcg trec_eval``: trec_eval's command line, its reading of files and its output, computed in SQL.

It prints what trec_eval 10.0 prints, byte for byte (tested on trec_eval's own test files and against the binary
built from its source, ``tests/trec_eval_10/``); ``version="9"`` (``--trec-eval-version 9``) prints what trec_eval
9.x prints, the version pytrec_eval wraps. The two differ in (docs/SEMANTICS.md, "trec_eval versions"):
``iprec_at_recall`` and ``11pt_avg`` reach ``lround(x * R)`` relevant documents in 10.0, ``floor(x * R + 0.9)``
in 9.x (the presets ``trec_eval`` and ``trec_eval-9``); with ``-q -c``, 10.0 prints the judged queries the run
lacks (zeros, ``num_rel`` from the judgments), 9.x only averages them; ``all_trec`` has ``rbp``, ``rbp_resid`` and
``unj`` in 10.0 only.

Every number comes from the measures in ``sql/macros/measures/``, and so does what the command knows of trec_eval's
families: each measure's file declares its trec_eval names, their printing order, nicknames, default cutoffs or
levels, how their parameters are read and how they print (:func:`tables`, read on first use). This module
maps trec_eval's ``-m`` spellings (``P.5,10``, ``iprec_at_recall..1,.25``, ``utility.2,-1,0,0``, ``rbp.p=0.95``,
``ndcg.1=3,2=9``, ``11pt_avg..25,.5,.75``) to sqlndcg metric names as trec_eval's meas_init.c reads them, reads
the files as trec_eval does (``sql/local/readers.sql``), runs :func:`sqlndcg.evaluate` with the version's preset,
and prints ``%-22s\\t%s\\t%.4f`` lines: per query with ``-q``, then the ``all`` line of each measure with
trec_eval's summary rule (mean; geometric mean for ``gm_*``; sum for ``num_*``), summed in trec_eval's order.

The files are always read by DuckDB (trec_eval's reading rules are DuckDB SQL). With ``--database`` (or a
connection passed to :func:`compute`) on another engine, the rows read are loaded into temporary tables there and
every measure is computed there; the run id, ``relstring`` and the lists of queries come from the files.
"""

from __future__ import annotations

import math
import os
import platform
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import duckdb

from ..core import render
from ..errors import DataError, InputError, MetricError, SqlndcgError
from ..core import measures
from ..run.engines.duckdb_engine import copy_with_lf_line_ends, csv_problem, mixed_line_ends
from ..run.progress import announce
from ..run.sources import brief, file_literal
from ..core import templates

#: The trec_eval versions the command reproduces, and the preset that carries each one's settings.
VERSIONS = {"10": "trec_eval", "9": "trec_eval-9"}

#: trec_eval's nicknames (measures.c), in the order an error lists them; which families each names is declared by
#: the families' measures.
NICKNAME_NAMES = ("official", "all_trec", "set")

#: The lines trec_eval prints that are not measures: the run id, and relstring (a string of the top labels, made
#: by this command), each declared as a measure's trec_eval family is (sql/macros/measures/registry.sql).
NOT_MEASURES: tuple[dict[str, Any], ...] = (
    {"name": "runid", "order": 0, "nicknames": ["official", "all_trec", "set"], "since": 9, "params": "none",
     "defaults": [], "param": None, "of": None, "collection_size": None, "integer": False, "summary_only": True},
    {"name": "relstring", "order": 12, "nicknames": ["all_trec"], "since": 9, "params": "none", "defaults": [],
     "param": None, "of": None, "collection_size": None, "integer": False, "summary_only": False},
)


@dataclass(frozen=True)
class Tables:
    """What the command knows of trec_eval's families, derived from the measures' declarations."""

    #: trec_eval family -> the sqlndcg kind computing it ("" for runid, relstring), in trec_eval's printing order
    families: dict[str, str]
    #: trec_eval family -> its declaration (registry.sql's trec_eval keys)
    about: dict[str, dict]
    #: nickname -> the families it names
    nicknames: dict[str, tuple[str, ...]]

    def _where(self, key: str) -> tuple[str, ...]:
        return tuple(f for f, about in self.about.items() if about[key])

    @property
    def cutoffs(self) -> dict[str, tuple[int, ...]]:
        """Families whose cutoffs are parameters (name_k lines), with trec_eval's defaults."""
        return {f: tuple(a["defaults"]) for f, a in self.about.items() if a["params"] == "cutoffs"}

    @property
    def levels(self) -> dict[str, tuple[str, tuple[float, ...]]]:
        """Families with a list of float levels (name_0.20 lines), and the sqlndcg parameter each level sets."""
        return {f: (a["param"], tuple(float(x) for x in a["defaults"]))
                for f, a in self.about.items() if a["params"] == "levels"}

    @property
    def gain_pairs(self) -> tuple[str, ...]:
        """Families that take per-grade gains (rel_level=gain pairs)."""
        return tuple(f for f, a in self.about.items() if a["params"] == "gain_pairs")

    @property
    def integer(self) -> tuple[str, ...]:
        return self._where("integer")

    @property
    def summary_only(self) -> tuple[str, ...]:
        return self._where("summary_only")

    @property
    def new_in_10(self) -> tuple[str, ...]:
        """Families 9.x's all_trec lacks."""
        return tuple(f for f, a in self.about.items() if a["since"] >= 10)


@lru_cache(maxsize=None)
def tables() -> Tables:
    """trec_eval's families as the measures declare them, read on first use."""
    entries: list[tuple[dict[str, Any], str]] = [(about, "") for about in NOT_MEASURES]
    entries += [(about, kind) for kind, declared in measures.declarations().items() for about in declared["trec_eval"]]
    entries.sort(key=lambda entry: (entry[0]["order"], entry[0]["name"]))
    families = {about["name"]: kind for about, kind in entries}
    if len(families) < len(entries):
        raise ValueError("two measures declare the same trec_eval family")
    nicknames = {nick: tuple(about["name"] for about, _ in entries if nick in about["nicknames"])
                 for nick in NICKNAME_NAMES}
    return Tables(families, {about["name"]: about for about, _ in entries}, nicknames)


#: The tables' older names, as module attributes computed on first use.
_DERIVED = {
    "FAMILIES": lambda: tables().families,
    "NICKNAMES": lambda: tables().nicknames,
    "NEW_IN_10": lambda: tables().new_in_10,
    "CUTOFFS": lambda: tables().cutoffs,
    "LEVELS": lambda: tables().levels,
    "GAIN_PAIRS": lambda: tables().gain_pairs,
    "INTEGER": lambda: tables().integer,
    "SUMMARY_ONLY": lambda: tables().summary_only,
}


def __getattr__(name: str):
    if name in _DERIVED:
        return _DERIVED[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class Line:
    """One printed measure: its trec_eval name, the sqlndcg metric computing it, and the gain pairs it uses.
    ``levels`` (11pt_avg with recall levels): the iprec_at_recall metric of each level, in the order given; the
    value is their mean, added up as m_11pt_avg.c does. ``summed``: the metric the ``all`` line adds up instead of
    ``metric``, where trec_eval's summary reads other numbers than its per-query lines. ``recalls``: the recall
    levels of an iprec_at_recall or 11pt_avg line (what it prints for a list -J leaves empty: :func:`_emptied`)."""

    name: str
    family: str
    metric: str | None
    gains: tuple[tuple[int, float], ...] = ()
    levels: tuple[str, ...] = ()
    summed: str | None = None
    recalls: tuple[float, ...] = ()


@dataclass
class Options:
    qrels: str
    run: str
    measures: list[str] = field(default_factory=list)
    per_query: bool = False
    complete: bool = False
    no_summary: bool = False
    level: int = 1
    depth: int | None = None
    judged_only: bool = False
    collection_size: int = 0
    #: where the measures are computed: None (an in-memory DuckDB), a DuckDB file, sqlite:///file.db or
    #: postgresql://... (the forms ``sqlndcg evaluate --database`` takes)
    database: str | None = None
    #: the trec_eval reproduced: "10" (10.0, the default) or "9" (9.x, which pytrec_eval wraps)
    version: str = "10"


class Output(NamedTuple):
    """What :func:`compute` gives: the run id, the per-query and the ``all`` lines as (measure, query, value text),
    the judged queries the run lacks (printed with ``-q -c`` by trec_eval 10.0, averaged as 0 with ``-c``), and
    the warnings for standard error (numbers read loosely, as trec_eval reads them; notes on -m names)."""

    runid: str
    per_query: list[tuple[str, str, str]]
    summary: list[tuple[str, str, str]]
    missing: list[str]
    warnings: list[str] = []


def version(text: str) -> str:
    """A trec_eval version as the command takes it: 10 (also 10.0) or 9 (also 9.0.8, 9.x)."""
    major = str(text).strip().split(".")[0]
    if major not in VERSIONS:
        raise InputError(f"trec_eval version {text!r}: sqlndcg reproduces trec_eval 10 (10.0, the default) and 9 "
                         f"(9.x, which pytrec_eval wraps)")
    return major


def _number_text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _metric(kind: str, k: int | None = None, /, **params: float) -> str:
    shown = ",".join(f"{n}={_number_text(v)}" for n, v in params.items())
    return kind + (f"({shown})" if shown else "") + (f"@{k}" if k is not None else "")


#: A decimal number as C's atof reads one whole (sqlndcg refuses text atof would read as 0 or cut short).
_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _floats(family: str, text: str) -> list[float]:
    """Comma-separated parameters as trec_eval's atof reads them (".25" is 0.25)."""
    parts = text.split(",")
    if not all(_NUMBER.fullmatch(v) for v in parts):
        raise MetricError(f"trec_eval measure {family}.{text}: parameters must be numbers separated by ','")
    return [float(v) for v in parts]


def _cutoffs(family: str, text: str) -> list[int]:
    """Comma-separated cutoffs as trec_eval's get_long_cutoffs reads them: atol of each (23.4 is 23), sorted,
    each positive and none twice."""
    _floats(family, text)
    cuts = sorted(_atol(v) for v in text.split(","))
    if cuts[0] <= 0:
        raise MetricError(f"trec_eval measure {family}.{text}: cutoffs must be positive")
    if len(set(cuts)) < len(cuts):
        raise MetricError(f"trec_eval measure {family}.{text}: a cutoff is given twice (trec_eval refuses it too)")
    return cuts


#: The leading integer C's atol reads (an empty match, 0, when there is none).
_LEADING_INTEGER = re.compile(r"\s*([+-]?\d*)")


def _atol(text: str) -> int:
    """``text`` as C's atol reads it: its leading integer (after blanks), 0 if none."""
    found = _LEADING_INTEGER.match(text)  # matches every text (each part may be empty)
    return int(found.group(1).lstrip("+") or 0) if found else 0


def _level_name(family: str, x: float) -> str:
    """trec_eval's name of a level's line: "%s_%3.2f" in a buffer of strlen(name) + 10 bytes (meas_init.c)."""
    return f"{family}_{x:3.2f}"[: len(family) + 9]


def _family_lines(family: str, params: str | None, collection_size: int) -> list[Line]:
    """One family's printed lines, with the parameters trec_eval took for it (None: its defaults), read the way
    its measure declares (registry.sql: the trec_eval key ``params``)."""
    table = tables()
    kind, about = table.families[family], table.about[family]
    style = about["params"]
    if family in ("runid", "relstring"):
        length = int(_floats(family, params)[0]) if params else 10
        return [Line(f"{family}_{params}" if params and family == "relstring" else family, family, None,
                     ((length, 0.0),))]
    if style == "cutoffs":
        cuts = _cutoffs(family, params) if params else about["defaults"]
        return [Line(f"{family}_{c}", family, _metric(kind, c)) for c in cuts]
    if style == "levels":
        levels = sorted(_floats(family, params)) if params else [float(x) for x in about["defaults"]]
        if len(set(levels)) < len(levels):
            raise MetricError(f"trec_eval measure {family}.{params}: a level is given twice "
                              "(trec_eval refuses it too)")
        return [Line(_level_name(family, x), family, _metric(kind, **{about["param"]: x}),
                     recalls=(x,) if kind in _NAN_WHEN_EMPTY else ()) for x in levels]
    if style == "averaged_levels" and params:
        # m_11pt_avg.c averages iprec at the levels given (in that order, repeats counted); its walk down the
        # ranking assumes them ascending, and gives other numbers for other orders, which sqlndcg does not copy
        levels = _floats(family, params)
        if levels != sorted(levels):
            raise MetricError(f"trec_eval measure {family}.{params}: give the recall levels in ascending order "
                              f"(trec_eval's m_11pt_avg.c assumes it)")
        return [Line(f"{family}_{params}", family, None,
                     levels=tuple(_metric(about["of"], **{about["param"]: x}) for x in levels),
                     recalls=tuple(levels) if kind in _NAN_WHEN_EMPTY else ())]
    if style == "coefficients":
        defaults = [float(x) for x in about["defaults"]]
        coefficients = _floats(family, params) if params else defaults
        if len(coefficients) != len(defaults):
            example = ",".join(_number_text(x) for x in defaults)
            raise MetricError(f"trec_eval measure {family}.{params}: {family} takes {len(defaults)} coefficients, "
                              f"e.g. {family}.{example}")
        given = dict(zip(about["param"], coefficients))
        if about["collection_size"]:
            given[about["collection_size"]] = collection_size
        return [Line(f"{family}_{params}" if params else family, family, _metric(kind, **given))]
    if style == "beta_squared":
        # trec_eval's set_F.x is (x + 1) * P * R / (x * P + R) (m_set_F.c): x weighs recall as beta^2 does in
        # sqlndcg's set_f(beta), so set_F.x is set_f(beta=sqrt(x)); only the first parameter counts, as there
        x = _floats(family, params)[0] if params else float(about["defaults"][0])
        if x < 0:
            raise MetricError(f"trec_eval measure {family}.{params}: {family}'s weight of recall must be 0 or more")
        beta = {about["param"]: math.sqrt(x)}
        return [Line(f"{family}_{params}" if params else family, family, _metric(kind, **beta))]
    if style == "named":
        name = about["param"]
        value = measures.declarations()[kind]["params"][name]
        for pair in filter(None, (params or "").split(",")):
            key, _, text = pair.partition("=")
            if key != name:
                raise MetricError(f"trec_eval measure {family}.{params}: {family} takes {name}=<number>, "
                                  f"e.g. {family}.{name}={_number_text(value)}")
            value = _floats(family, text)[0]
        return [Line(f"{family}_{params}" if params else family, family, _metric(kind, **{name: value}))]
    if style == "gain_pairs" and params:
        gains = []
        pairs = f"trec_eval measure {family}.{params}: gains are level=gain pairs, e.g. {family}.1=3,2=9"
        for pair in params.split(","):
            level, eq, value = pair.partition("=")
            try:
                gains.append((int(level), float(value)))
            except ValueError:
                raise MetricError(pairs) from None
            if not eq:
                raise MetricError(pairs)
        return [Line(f"{family}_{params}", family, _metric(kind), tuple(sorted(gains)))]
    if params:
        raise MetricError(f"trec_eval measure {family}.{params}: {family} takes no parameters")
    # 11pt_avg without levels: the SQL measure's 0.0, 0.1, ..., 1.0
    return [Line(family, family, _metric(kind), recalls=tuple(i / 10 for i in range(11)) if kind in _NAN_WHEN_EMPTY else ())]


def _respelled(specs: list[str], notes: list[str] | None) -> list[str]:
    """The -m arguments with printed line names (ndcg_cut_10, P_5) read as trec_eval's family.parameters, those of
    one family merged into one -m (-m P_5 -m P_10 is -m P.5,10), each with a note: trec_eval refuses them."""
    merged: dict[str, list[tuple[str, str]]] = {}  # family -> (spec, its parameters) of each printed name
    for spec in specs:
        found = _underscored(spec)
        if found:
            merged.setdefault(found[0], []).append((spec, found[1]))
    out, done = [], set()
    for spec in specs:
        found = _underscored(spec)
        if not found:
            out.append(spec)
            continue
        family = found[0]
        if family in done:
            continue
        done.add(family)
        given = merged[family]
        written = f"{family}." + ",".join(rest for _, rest in given)
        out.append(written)
        if notes is not None:
            asked = " ".join(f"-m {g}" for g, _ in given)
            notes.append(f"sqlndcg: note: {asked} read as -m {written}: trec_eval 10.0 refuses "
                         f"{'them' if len(given) > 1 else 'it'} (\"illegal measure\", exit 1); its -m takes "
                         f"family.parameters, and {given[0][0]} is the name of a line it prints")
    return out


def _underscored(spec: str) -> tuple[str, str] | None:
    """A printed line's name given to -m (ndcg_cut_10, P_5, iprec_at_recall_0.10) as (family, parameters), for a
    family whose parameters are cutoffs or levels; None for anything else."""
    table = tables()
    if spec in table.families or spec in table.nicknames:
        return None
    for family in sorted(table.families, key=len, reverse=True):
        rest = spec[len(family) + 1:]
        if (spec.startswith(family + "_") and rest and table.about[family]["params"] in ("cutoffs", "levels")
                and all(_NUMBER.fullmatch(v) for v in rest.split(","))):
            return family, rest
    return None


def trec_eval_spelling(name: str) -> str | None:
    """trec_eval's -m for one of sqlndcg's metric names (ndcg@10 -> ndcg_cut.10, p@5 -> P.5, ap -> map); "" for a
    name of sqlndcg's that trec_eval has no measure for (mrr@10); None for a name that is not sqlndcg's."""
    from ..core.metrics import parse_metric

    try:
        metric = parse_metric(name)
    except (SqlndcgError, ValueError):
        return None
    families = measures.declarations()[metric.kind]["trec_eval"]
    if metric.rel is not None or not families:
        return ""
    if metric.params:  # rbp(p=0.95) is rbp.p=0.95; the other families take their parameters in their own ways
        named = [f for f in families if f["params"] == "named"]
        if named and metric.k is None:
            return f"{named[0]['name']}." + ",".join(f"{n}={_number_text(v)}" for n, v in metric.params)
        return f"{families[0]['name']}.PARAMETERS"
    if metric.k is None:
        plain = [f["name"] for f in families if f["params"] != "cutoffs"] or [f["name"] for f in families]
        return plain[0] if plain else ""
    cut = [f["name"] for f in families if f["params"] == "cutoffs"]
    return f"{cut[0]}.{metric.k}" if cut else ""


#: The sqlndcg kinds whose trec_eval lines print nan for a list -J leaves without documents (their precision there
#: is 0 / 0), where evaluate() gives 0.
_NAN_WHEN_EMPTY = ("iprec_at_recall", "11pt_avg")


def _emptied(line: Line, relevant: float) -> float:
    """What trec_eval 10.0 prints for an iprec_at_recall or 11pt_avg line of a list -J left without documents
    (m_iprec_at_recall.c, m_11pt_avg.c): num_rel_ret / num_ret is 0 / 0, NaN, and every level whose cutoff (the
    relevant documents to reach, lround(x * R)) is 0 or less takes it; a level with a positive cutoff keeps its 0.
    11pt_avg adds its levels' values: NaN if any level took it."""
    return math.nan if any(x * relevant < 0.5 for x in line.recalls) else 0.0


def select(specs: list[str], collection_size: int = 0, major: str = "10", notes: list[str] | None = None) -> list[Line]:
    """The lines trec_eval prints for its ``-m`` arguments (``official`` when there are none), as trec_eval.c and
    meas_init.c decide: every family named (directly or by a nickname) is printed once, in measures.c's order,
    with the parameters of the first ``-m family.params`` that names it (``-m P.5 -m P.10`` prints P_5 only).
    A printed line's name (``-m ndcg_cut_10``, which trec_eval refuses) is read as its family and parameters
    (``ndcg_cut.10``), with a note in ``notes``; sqlndcg's own names (``ndcg@10``) are refused with trec_eval's."""
    table = tables()
    marked: set[str] = set()
    params: dict[str, str] = {}
    for spec in _respelled(specs or ["official"], notes):
        name, dot, given = spec.partition(".")
        if dot and not given:
            raise MetricError(f"trec_eval measure {spec!r}: give parameters after the '.', e.g. P.5,10")
        if name in table.nicknames:
            if dot:
                raise MetricError(f"trec_eval measure {spec!r}: {name} is a nickname; it takes no parameters")
            marked.update(f for f in table.nicknames[name]
                          if name != "all_trec" or int(major) >= table.about[f]["since"])
            continue
        if name not in table.families:
            known = ", ".join(list(table.nicknames) + list(table.families))
            theirs = trec_eval_spelling(spec)
            if theirs:
                how = f"-m {theirs}" if not theirs.endswith("PARAMETERS") else "its parameters after the '.'"
                raise MetricError(f"trec_eval measure {spec!r} is not known: that is sqlndcg evaluate's name, not "
                                  f"trec_eval's; trec_eval's is {theirs} ({how})")
            if theirs == "":
                raise MetricError(f"trec_eval measure {spec!r} is not known: that is sqlndcg evaluate's name "
                                  f"(sqlndcg evaluate -m {spec}), and trec_eval has no such measure")
            raise MetricError(f"trec_eval measure {spec!r} is not known; choose one of {known}")
        marked.add(name)
        if dot:
            params.setdefault(name, given)
    return [line for family in table.families if family in marked
            for line in _family_lines(family, params.get(family), collection_size)]


def check_flags(rel_format: str = "qrels", results_format: str = "trec_results", zscores: str | None = None,
                debug_level: str | None = None, files: list[str] | None = None, measures: Sequence[str] = ()) -> None:
    """trec_eval's flags that sqlndcg takes only to refuse them clearly (-R, -T, -Z, -D: trec_eval.c takes each
    with an argument, which a parser that did not know them would read as a file), and the words left after the
    two files: a second measure after one -m (-m ndcg@10 p@5) is read as a file."""
    if rel_format != "qrels":
        other = rel_format in ("prefs", "qrels_prefs", "qrels_jg")
        raise InputError(
            f"-R {rel_format}: " + (f"trec_eval's {rel_format} judgments and their measures are not provided; "
                                    if other else f"trec_eval: Illegal rel_format {rel_format!r} (its formats: "
                                    "qrels, qrels_jg, prefs, qrels_prefs); ")
            + "sqlndcg trec_eval reads qrels files (-R qrels, the default)")
    if results_format != "trec_results":
        raise InputError(f"-T {results_format}: sqlndcg trec_eval reads runs in trec_results format (-T trec_results, "
                         "the default and trec_eval's only one)")
    if zscores is not None:
        raise InputError(f"-Z {zscores}: trec_eval's z-scores (values standardized by a file of per-query means and "
                         "deviations) are not provided by sqlndcg trec_eval")
    if debug_level is not None:
        raise InputError(f"-D {debug_level}: trec_eval's debugging output is not provided by sqlndcg trec_eval")
    files = list(files or [])
    if len(files) > 2:
        table = tables()
        translated = [(word, word if word.partition(".")[0] in {**table.families, **table.nicknames}
                       else trec_eval_spelling(word)) for word in files[:-2]]
        named = [(word, theirs) for word, theirs in translated if theirs]
        if named:
            every = [(m, trec_eval_spelling(m) or m) for m in measures] + named
            renamed = ", ".join(f"{word} is {theirs}" for word, theirs in every if theirs and theirs != word)
            written = " ".join(f"-m {theirs}" for _, theirs in every if theirs)
            raise InputError(
                f"{len(files)} words where sqlndcg trec_eval takes two files (QRELS RUN): "
                + ", ".join(repr(word) for word, _ in named) + (f" after -m {measures[-1]}" if measures else "")
                + " is read as a file, since -m takes one measure: give each its own -m, in trec_eval's names"
                + (f" (sqlndcg evaluate's {renamed} in trec_eval)" if renamed else "") + f": {written}")
        raise InputError(f"{len(files)} words where sqlndcg trec_eval takes two files (QRELS RUN): "
                         + ", ".join(repr(w) for w in files) + "; flags go before the files, one measure per -m")


# ----------------------------------------------------------------------------------------------------------------
# reading


#: The temporary files standard input was copied to -> how messages name them.
_SHOWN: dict[str, str] = {}


def _stdin_file(path: str, scratch: list[str]) -> str:
    """'-' means standard input (trec_eval reads the run that way): copied to a temporary file DuckDB can read,
    which messages call standard input (a user never saw its name, and it is gone when they read the message)."""
    if path != "-":
        return path
    handle, name = tempfile.mkstemp(prefix="sqlndcg_stdin_", suffix=".run")
    with os.fdopen(handle, "wb") as out:
        shutil.copyfileobj(sys.stdin.buffer, out)
    scratch.append(name)
    _SHOWN[name] = "standard input"
    return name


def _named(path: str, role: str) -> str:
    """One input as messages name it: "run file 'x.run'", or "run from standard input" for '-'."""
    return f"{role} from {_SHOWN[path]}" if path in _SHOWN else f"{role} file {path!r}"


def _check_file(path: str, role: str, database: str | None = None) -> None:
    if not os.path.isfile(path):
        hint = (" (sqlndcg trec_eval reads files, with --database too; to evaluate tables the database already "
                "holds use sqlndcg evaluate --database ... --run TABLE --judgments TABLE --preset trec_eval)"
                if database else "")
        raise InputError(f"{_named(path, role)} does not exist (or is not a file){hint}")
    if os.path.getsize(path) == 0:
        raise InputError(f"{_named(path, role)} is empty: it has no lines")


#: kind -> the temporary table a file's lines are read into once (sqlndcg_trec_eval_lines_table)
LINES = {"qrels": "te_qrels_lines", "run": "te_run_lines"}


def _read_lines(con, literal: str, kind: str, path: str) -> list[str]:
    """The file read once into its lines table; malformed lines refused by number (the file is read again only
    then, for their text); a file DuckDB cannot read at all is named, with the cause and the fix. A file mixing
    CRLF and LF line ends, which DuckDB refuses and trec_eval reads (a CR before the LF is a blank), is read from a
    copy with LF line ends (the same lines; removed at exit)."""
    try:
        return _read_lines_of(con, literal, kind, path)
    except InputError:
        if not mixed_line_ends(path):
            raise
        return _read_lines_of(con, file_literal(copy_with_lf_line_ends(path)), kind, path)


def _read_lines_of(con, literal: str, kind: str, path: str) -> list[str]:
    """Read as trec_eval 10.0 reads (sql/local/readers.sql, sqlndcg_trec_eval_lines); returns the warnings: the
    numbers read loosely (as C's atof/atol do), a qrels file ending in a comment."""
    text = LINES[kind] + "_text"
    try:
        con.execute(templates.trec_eval_lines_table(LINES[kind], literal, kind))
        malformed = con.execute(templates.trec_misread_count(LINES[kind])).fetchone()[0]
        found = con.execute(templates.trec_eval_bad_lines(text, kind, 5)).fetchall() \
            if malformed else []
        warnings = [] if found else _loose(con, kind, path) + (_last_comment(con, text, path) if kind == "qrels" else [])
    except duckdb.Error as exc:
        said = csv_problem(exc, {str(Path(path).absolute()): (_named(path, kind), "-" if path in _SHOWN else path)})
        raise InputError(said or f"{_named(path, kind)} cannot be read as a TREC file: "
                                 f"{str(exc).strip().splitlines()[0]}") from None
    finally:
        con.execute(templates.trec_eval_forget([], [text]))
    if found:
        raise DataError(_malformed(found, kind, path))
    return warnings


def _malformed(found: list[tuple], kind: str, path: str) -> str:
    """The message for malformed lines ``found`` (line number, text, how many, trec_eval's count of the first):
    trec_eval 10.0 stops at the first, with its words and exit status."""
    n, line, count, counted = found[0]
    where = "get_results" if kind == "run" else "get_qrels"
    said = f'trec_eval 10.0 stops there too ("trec_eval.{where}: Malformed line {counted}", exit 2)'
    if kind == "qrels" and not (line or "").strip():
        return (f"{_named(path, kind)}: line {n} is blank; {said}: a qrels file has no blank lines (a run file "
                "may), remove it")
    layout = "query Q0 doc rank score tag" if kind == "run" else "query iteration doc label"
    shown = "; ".join(f"line {m}: {brief(text)}" for m, text, _, _ in found)
    fields = (line or "").split()
    if kind == "run" and len(fields) >= 6:  # a nan, infinite or hexadecimal score: trec_eval reads it
        return (f"{_named(path, kind)}: {count} line(s) with a score C's atof reads as nan, as infinite or as a "
                f"hexadecimal number, e.g. {shown}; trec_eval reads them, sqlndcg ranks finite decimal scores only: "
                "write them so")
    hint = ""
    if kind == "qrels" and line.lstrip().startswith("#"):
        hint = (f" (trec_eval reads line {n} as a judgment: get_qrels.c skips a '#' line only with the '#' in its "
                "first column, and not right after another skipped one)")
    return (f"{_named(path, kind)}: {count} malformed line(s), e.g. {shown}{hint}; each line must read '{layout}' "
            f"(whitespace-separated{', more fields after the tag are ignored' if kind == 'run' else ''}); {said}")


def _loose(con, kind: str, path: str) -> list[str]:
    """The warning for numbers not written plainly (3abc, 1e2, 1_0, abc), which trec_eval reads with C's atol (a
    label: its leading integer, 0 if none) or atof (a score: its leading number, 0 if none): read the same way,
    and named; evaluate() refuses them."""
    rows = con.execute(templates.trec_eval_loose(LINES[kind], kind, 10)).fetchall()
    if not rows:
        return []
    what, how = (("score", "C's atof: its leading number, 0 if none") if kind == "run"
                 else ("label", "C's atol: its leading integer, 0 if none"))
    shown = ", ".join(f"line {n} {brief(text)} -> {_number_text(value)}" for n, text, value, _ in rows)
    more = ", ..." if rows[0][3] > len(rows) else ""
    return [f"sqlndcg: warning: {_named(path, kind)}: {rows[0][3]} {what}(s) not written as a plain number, read as "
            f"trec_eval reads them ({how}): {shown}{more}; sqlndcg evaluate refuses them"]


def _last_comment(con, text: str, path: str) -> list[str]:
    """The warning for a qrels file whose last line is a comment trec_eval skips: get_qrels.c then reads past the
    end of its buffer (trec_eval 10.0 crashes there, a segmentation fault); sqlndcg skips it."""
    last = con.execute(templates.trec_eval_last_lines(text, 1000)).fetchall()
    trailing = next((i for i, (_, hashed) in enumerate(last) if not hashed), len(last))
    if trailing % 2 == 0:  # of consecutive '#' lines, the odd ones are skipped (sqlndcg_trec_eval_lines)
        return []
    return [f"sqlndcg: warning: {_named(path, 'qrels')}: its last line (line {last[0][0]}) is a '#' comment, which "
            "trec_eval 10.0 cannot end on (get_qrels.c reads past the end of the file and crashes); skipped"]


def _duplicates(con, view: str, kind: str, path: str) -> None:
    """trec_eval refuses a document listed twice for one query (in the run or in the qrels); so does sqlndcg, here
    in the file's own terms rather than as a table's duplicate rows."""
    keys = [render.quote("query_id"), render.quote("doc_id")]
    found = con.execute(templates.duplicates(view, keys, 3)).fetchall()
    if found:
        shown = "; ".join(f"query {brief(q)} document {brief(d)} {n} times" for q, d, n, _ in found)
        raise DataError(f"{_named(path, kind)}: {found[0][3]} (query, document) pair(s) occur more than once, "
                        f"e.g. {shown}; each document may appear once per query (trec_eval refuses duplicates too)")


def read(con, qrels: str, run: str, database: str | None = None, complete: bool = False) -> tuple[str, list[str]]:
    """Register the views te_qrels, te_run_file (the run file's lines) and te_run (the run trec_eval evaluates:
    with ``complete``, -c, a judged query the file lacks gets trec_eval's one unjudged document) in the DuckDB
    connection ``con``; returns the run id and the warnings about how the files were read. Refuses malformed lines by number, and documents listed twice for a
    query; a file that cannot be read is named (the first that fails)."""
    for path, role in ((qrels, "qrels"), (run, "run")):
        _check_file(path, role, database)
    announce("reading and checking the files")
    q_literal, r_literal = file_literal(qrels), file_literal(run)  # absolute: a leading ~ is not the home directory
    warnings = _read_lines(con, q_literal, "qrels", qrels) + _read_lines(con, r_literal, "run", run)
    try:
        for view, reader in (("te_qrels", templates.trec_eval_table_rows(LINES["qrels"], "qrels")),
                             ("te_run_file", templates.trec_eval_table_rows(LINES["run"], "run")),
                             ("te_run", templates.trec_eval_complete_run("te_run_file", "te_qrels")
                              if complete else "te_run_file")):
            con.execute(templates.trec_eval_view(view, reader))
        counts = con.execute(templates.trec_eval_counts("te_qrels", "te_run_file")).fetchone()
    except duckdb.Error as exc:  # both files were read alone: neither can be blamed alone
        raise InputError(f"{_named(qrels, 'qrels')} and {_named(run, 'run')} cannot be read together as TREC "
                         f"files: {str(exc).strip().splitlines()[0]}") from None
    if counts[0] == 0:
        raise InputError(f"{_named(qrels, 'qrels')} has no judgment lines (only blanks or # comments)")
    if counts[1] == 0:
        raise InputError(f"{_named(run, 'run')} has no result lines (only blanks or # comments)")
    _duplicates(con, "te_qrels", "qrels", qrels)
    _duplicates(con, "te_run_file", "run", run)
    # fetched to the end: a result left open would keep the connection from reading the rows again (_load)
    return con.execute(templates.trec_eval_runid("te_run_file")).fetchall()[0][0], warnings


# ----------------------------------------------------------------------------------------------------------------
# another engine: the rows read are loaded into temporary tables there

#: kind -> (the DuckDB view the file is read into, the temporary table another engine gets its rows in)
TABLES = {"run": ("te_run", "sqlndcg_trec_eval_run"), "qrels": ("te_qrels", "sqlndcg_trec_eval_qrels")}


def _load(ses, reader) -> None:
    """The rows of te_run and te_qrels (read by the DuckDB connection ``reader``), streamed as Arrow into temporary
    tables of the session ``ses`` (its engine's ``register``: SQLite, PostgreSQL), gone when the session closes."""
    for kind, (view, table) in TABLES.items():
        rows = reader.sql(templates.trec_eval_rows(view, kind))
        try:
            ses.register_frame(table, rows)
        except InputError as exc:
            raise InputError(f"sqlndcg trec_eval computes in DuckDB or in an engine that takes the files' rows as "
                             f"temporary tables (SQLite, PostgreSQL), not in {ses.name}: {exc}") from None


# ----------------------------------------------------------------------------------------------------------------
# computing and printing


def _gain_map(con, gains: tuple[tuple[int, float], ...]):
    """trec_eval's per-grade gains (m_ndcg.c): listed grades get their gain, every other grade keeps gain = grade.
    Labels are grades by their integer part (atol: 1.7 is grade 1, 0.5 is grade 0); the map holds each label as
    written (what the input check reads) and its integer part (what the gain is looked up by)."""
    if not gains:
        return None
    bad = [(level, gain) for level, gain in gains if (level <= 0 and gain != 0) or gain < 0]
    if bad:
        raise MetricError(
            f"gains {bad}: sqlndcg takes gains >= 0 for grades >= 1 only (a grade <= 0 always has gain 0)")
    listed = {level: float(gain) for level, gain in gains}
    mapping = {}
    for (label,) in con.execute(templates.trec_eval_positive_labels("te_qrels")).fetchall():
        grade = int(label)
        gain = listed.get(grade, float(grade)) if grade >= 1 else 0.0
        mapping[float(label)] = gain
        if grade >= 1:
            mapping[float(grade)] = gain
    mapping.update({float(level): gain for level, gain in listed.items() if level > 0})
    return mapping


def compute(options: Options, con=None) -> Output:
    """The run id, the per-query lines (with ``options.per_query``: formatting them is a good part of a large run's
    time) and the ``all`` lines as (measure, query, value text), and the judged queries the run lacks. The measures
    are computed in ``con`` (DuckDB, SQLite or PostgreSQL), or in the database ``options.database`` names (an
    in-memory DuckDB without one), in one :class:`~sqlndcg.run.session.Session` as every verb's; the files are read
    by DuckDB: by ``con`` itself when it is DuckDB, else by an in-memory DuckDB, whose rows are then loaded into
    temporary tables of the session."""
    from . import scoring
    from ..core.spec import make_spec
    from ..run.connect import open_database
    from ..run.session import Session

    major = version(options.version)
    notes: list[str] = []
    lines = select(options.measures, options.collection_size, major, notes)
    if options.complete:  # m_num_rel.c: with -c, the all line counts every judged label > 0, whatever -l says
        for line in lines:
            if line.family == "num_rel":
                line.summed = _metric("num_rel", rel=1)
    if options.level < 1:
        raise InputError(f"-l {options.level}: the relevance level must be 1 or more")
    if options.depth is not None and options.depth < 1:
        raise InputError(f"-M {options.depth}: the number of documents per topic must be 1 or more")

    # 10.0 only: pytrec_eval, the reference of --trec-eval-version 9, gives 0 there
    emptiable = options.judged_only and major == "10" and any(line.recalls for line in lines)
    own = con is None
    if own:  # DuckDB's progress bar on long work only when stdout and stderr are terminals (open_database decides)
        con = open_database(options.database)
    reader = con if isinstance(con, duckdb.DuckDBPyConnection) else None  # the DuckDB connection reading the files
    scratch: list[str] = []
    try:
        # One session for the call, as every verb has: every measure is computed in it; on another engine than
        # DuckDB it also holds the files' rows, loaded into it, and its close drops them and ends its savepoint or
        # transaction on con (PostgreSQL).
        with Session(con) as ses:
            if reader is None:
                reader = open_database(None)
            runid, warnings = read(reader, _stdin_file(options.qrels, scratch), _stdin_file(options.run, scratch),
                                   options.database, options.complete)
            judged, answered = (
                [q for (q,) in reader.execute(templates.trec_eval_queries(view)).fetchall()]
                for view in ("te_qrels", "te_run_file"))
            if not options.complete and not set(judged) & set(answered):
                raise NoCommonQuery.of(judged, answered)
            loaded = reader is not con
            if loaded:
                _load(ses, reader)
            run_table, qrels_table = (TABLES[kind][1 if loaded else 0] for kind in ("run", "qrels"))
            settings = dict(preset=VERSIONS[major], queries="judged" if options.complete else "both",
                            threshold=float(options.level), depth=options.depth, judged_only=options.judged_only,
                            query_id="query_id", doc_id="doc_id", score="score", rank=None, rel="rel")
            # one evaluation per gain map: (gains, metric) -> {query: value}
            groups: dict[tuple, list[str]] = {}
            for line in lines:
                for metric in ((line.metric,) if line.metric else line.levels) + ((line.summed,) if line.summed
                                                                                  else ()):
                    groups.setdefault(line.gains, []).append(metric)
            if emptiable:  # which lists -J empties, and R, for their nan (_emptied)
                groups.setdefault((), []).extend(["num_ret", "num_rel"])
            values: dict[tuple, dict[str, float]] = {}
            for gains, metrics in groups.items():
                metrics = list(dict.fromkeys(metrics))
                spec = make_spec(metrics, gain=_gain_map(reader, gains) or None, **settings)
                # trec_eval's `all` line is computed here from the per-query values, so no summary statement
                res = scoring.execute(ses, scoring.prepare(ses, spec, run_table, qrels_table), summary=False)
                rows = res.per_query.to_dicts()
                for metric, column in zip(metrics, res.settings["metrics"]):
                    values[gains, metric] = {r["query_id"]: r[column] for r in rows}
            relstrings = {}
            for line in lines:
                if line.family == "relstring":  # a string made from the files' labels, not a measure: read by DuckDB
                    sql = templates.trec_eval_relstring("te_run", "te_qrels", line.gains[0][0],
                                                        options.depth, options.judged_only)
                    relstrings = dict(reader.execute(sql).fetchall())
    finally:
        for name in scratch:
            os.unlink(name)
        try:
            if reader is not None and reader is not con:
                reader.close()
        finally:
            if own:
                con.close()
            elif reader is con:  # the caller's DuckDB connection: what read() made there goes
                con.execute(templates.trec_eval_forget(["te_run", "te_run_file", "te_qrels"],
                                                       list(LINES.values())))

    # trec_eval goes through the judged queries in strcmp order (get_qrels.c); a run query without judgments is
    # never evaluated, a judged one without results is evaluated (on one unjudged document) with -c and skipped
    # without it
    judged = sorted(judged, key=lambda q: q.encode())
    in_run = set(answered)
    missing = [q for q in judged if q not in in_run]
    evaluated = judged if options.complete else [q for q in judged if q in in_run]
    # with -q -c, 10.0 prints the missing queries' lines too; 9.x printed only the queries the run answered
    printed = evaluated if major == "10" else [q for q in evaluated if q in in_run]

    cleared = set(missing) if options.complete else set()

    def value(line: Line, q: str) -> float:
        if q in cleared and _cleared(line.name):
            return 0.0
        if emptiable and line.recalls and values[(), "num_ret"][q] == 0:
            return _emptied(line, values[(), "num_rel"][q])
        if not line.levels:
            return values[line.gains, line.metric][q]
        total = 0.0  # m_11pt_avg.c adds the levels from the last to the first, then divides by their number
        for metric in reversed(line.levels):
            total += values[line.gains, metric][q]
        return total / len(line.levels)

    per_query, summary = [], []
    summary_only = tables().summary_only
    for q in printed if options.per_query else ():
        for line in lines:
            if line.family in summary_only:
                continue
            if line.family == "relstring":
                shown = "" if q in cleared and _cleared(line.name) else relstrings.get(q, "")
                per_query.append((line.name, q, f"'{shown}'"))
            else:
                per_query.append((line.name, q, _text(line, value(line, q))))
    for line in lines:
        if line.family == "runid":
            summary.append(("runid", "all", runid))
        elif line.family != "relstring":
            per = [values[line.gains, line.summed][q] if line.summed else value(line, q) for q in evaluated]
            summary.append((line.name, "all", _text(line, _summarize(line, per))))
    return Output(runid, per_query, summary, missing, notes + warnings)


class NoCommonQuery(InputError):
    """The run answers none of the judged queries, without -c: trec_eval 10.0 stops at the first judged query
    (in strcmp order) with "result qid '...' not found in qrels" (its words reversed: the qrels' query is not in
    the results) and exit status 4 (trec_eval.c), which the command keeps."""

    exit_status = 4

    @classmethod
    def of(cls, judged: list[str], answered: list[str]) -> "NoCommonQuery":
        first = min(judged, key=lambda q: q.encode())

        def some(ids: list[str]) -> str:
            ids = sorted(ids, key=lambda q: q.encode())
            return ", ".join(repr(q) for q in ids[:3]) + (", ..." if len(ids) > 3 else "")

        return cls(
            f"trec_eval: result qid {first!r} not found in qrels (trec_eval 10.0's words and exit status 4): the run "
            f"and the qrels share no query: the qrels judge {some(judged)}, the run answers {some(answered)}; check "
            "that they are the same collection's files and write their query ids alike (-c evaluates every judged "
            "query, a missing one as 0)")


def _cleared(name: str) -> bool:
    """trec_eval.c's clean-up of a query the run lacks, evaluated (-c) on one unjudged document: these lines,
    matched by their printed name (so utility_2,-1,0,0 and relstring_20 keep that document's values), are 0 ('')."""
    return name in ("num_ret", "utility", "relstring", "rbp_resid") or name.startswith("unj")


def _summarize(line: Line, per: list[float]) -> float:
    """trec_eval's `all` value: the per-query values added in query order as meas_acc.c does (not a correctly
    rounded sum: the last bit can differ, and so can a printed digit), then meas_avg.c's mean, exp(mean) or sum."""
    rule = measures.declarations()[tables().families[line.family]]["summary"]
    total = 0.0
    for v in per:
        total += v
    if rule == "sum":
        return total
    if rule == "gm":
        return math.exp(total / len(per))
    return total / len(per)


#: How C's printf("%6.4f") shows trec_eval's NaN (0.0 / 0.0): x86's division gives it the sign bit ("-nan"), most
#: other processors' does not.
_NAN = f"{'-nan' if platform.machine().lower() in ('x86_64', 'amd64', 'i386', 'i686', 'x86') else 'nan':>6}"


def _text(line: Line, value: float) -> str:
    if math.isnan(value):
        return _NAN
    if tables().about[line.family]["integer"]:
        return str(int(round(value)))
    return f"{value:.4f}"


def format_lines(lines: list[tuple[str, str, str]]) -> str:
    return "".join(f"{name:<22s}\t{query}\t{value}\n" for name, query, value in lines)


def run(options: Options, out=None) -> int:
    out = out or sys.stdout
    result = compute(options)
    for warning in result.warnings:
        print(warning, file=sys.stderr)
    if options.per_query:
        out.write(format_lines(result.per_query))
    if not options.no_summary:
        out.write(format_lines(result.summary))
    if result.missing and not options.complete and version(options.version) == "10":
        # trec_eval 10.0 stops here (exit 4, "result qid '...' not found in qrels"); sqlndcg evaluates the queries
        # in both, as 9.x did, and says so (docs/SEMANTICS.md, "trec_eval versions")
        shown = ", ".join(repr(q) for q in result.missing[:3]) + (", ..." if len(result.missing) > 3 else "")
        print(f"sqlndcg: note: the run has no results for {len(result.missing)} judged quer"
              f"{'y' if len(result.missing) == 1 else 'ies'} ({shown}): trec_eval 10.0 stops there (exit 4); "
              "evaluated over the queries in both, as trec_eval 9 did; -c counts the missing ones as 0",
              file=sys.stderr)
    return 0
