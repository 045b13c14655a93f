"""``sqlndcg trec_eval``: trec_eval's command line, its reading of files and its output, computed in SQL.

It prints what trec_eval 10.0 prints, byte for byte (tested on trec_eval's own test files and against the binary
built from its source, ``tests/trec_eval_10/``); ``version="9"`` (``--trec-eval-version 9``) prints what trec_eval
9.x prints, the version pytrec_eval wraps. The two differ in (docs/SEMANTICS.md, "trec_eval versions"):
``iprec_at_recall`` and ``11pt_avg`` reach ``lround(x * R)`` relevant documents in 10.0, ``floor(x * R + 0.9)``
in 9.x (the presets ``trec_eval`` and ``trec_eval-9``); with ``-q -c``, 10.0 prints the judged queries the run
lacks (zeros, ``num_rel`` from the judgments), 9.x only averages them; ``all_trec`` has ``rbp``, ``rbp_resid`` and
``unj`` in 10.0 only.

Every number comes from the measures in ``sql/macros/measures/`` (one file per trec_eval family); this module
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
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from typing import NamedTuple

import duckdb

from ..core import render
from ..errors import DataError, InputError, MetricError
from ..core.metrics import MEASURES
from ..run.sources import brief, file_literal

#: The trec_eval versions the command reproduces, and the preset that carries each one's settings.
VERSIONS = {"10": "trec_eval", "9": "trec_eval-9"}

#: trec_eval's families in its printing order (trec_eval's measures.c), with the sqlndcg kind of each.
FAMILIES: dict[str, str] = {
    "runid": "", "num_q": "num_q", "num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret",
    "map": "ap", "gm_map": "gm_map", "Rprec": "rprec", "bpref": "bpref", "recip_rank": "rr",
    "iprec_at_recall": "iprec_at_recall", "P": "p", "relstring": "", "recall": "r", "infAP": "infap",
    "gm_bpref": "gm_bpref", "Rprec_mult": "rprec_mult", "utility": "utility", "11pt_avg": "11pt_avg",
    "binG": "bing", "G": "g", "ndcg": "ndcg", "ndcg_rel": "ndcg_rel", "Rndcg": "rndcg", "ndcg_cut": "ndcg",
    "map_cut": "ap", "relative_P": "relative_p", "success": "hit", "set_P": "set_p",
    "set_relative_P": "set_relative_p", "set_recall": "set_recall", "set_map": "set_map", "set_F": "set_f",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret", "rbp": "rbp", "rbp_resid": "rbp_resid", "unj": "unj",
}

#: trec_eval 10.0's nicknames (measures.c); 9.x's all_trec lacks rbp, rbp_resid and unj (NEW_IN_10).
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
}
NEW_IN_10 = ("rbp", "rbp_resid", "unj")

#: Families whose cutoffs are parameters (name_k lines), with trec_eval's defaults.
CUTOFFS = {"P": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
           "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
           "relative_P": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "success": (1, 5, 10), "unj": (5, 10, 20)}
#: Families with a list of float levels (name_0.20 lines), and the sqlndcg parameter each level sets.
LEVELS = {"iprec_at_recall": ("recall", (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)),
          "Rprec_mult": ("x", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0))}
#: Families that take per-grade gains (rel_level=gain pairs).
GAIN_PAIRS = ("ndcg", "ndcg_rel", "Rndcg", "G")
INTEGER = ("num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")
SUMMARY_ONLY = ("runid", "num_q", "gm_map", "gm_bpref")


@dataclass
class Line:
    """One printed measure: its trec_eval name, the sqlndcg metric computing it, and the gain pairs it uses.
    ``levels`` (11pt_avg with recall levels): the iprec_at_recall metric of each level, in the order given; the
    value is their mean, added up as m_11pt_avg.c does. ``summed``: the metric the ``all`` line adds up instead of
    ``metric``, where trec_eval's summary reads other numbers than its per-query lines."""

    name: str
    family: str
    metric: str | None
    gains: tuple[tuple[int, float], ...] = ()
    levels: tuple[str, ...] = ()
    summed: str | None = None


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
    and the judged queries the run lacks (printed with ``-q -c`` by trec_eval 10.0, averaged as 0 with ``-c``)."""

    runid: str
    per_query: list[tuple[str, str, str]]
    summary: list[tuple[str, str, str]]
    missing: list[str]


def version(text: str) -> str:
    """A trec_eval version as the command takes it: 10 (also 10.0) or 9 (also 9.0.8, 9.x)."""
    major = str(text).strip().split(".")[0]
    if major not in VERSIONS:
        raise InputError(f"trec_eval version {text!r}: sqlndcg reproduces trec_eval 10 (10.0, the default) and 9 "
                         f"(9.x, which pytrec_eval wraps)")
    return major


def _number_text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _metric(kind: str, k: int | None = None, **params) -> str:
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
    cuts = sorted(int(re.match(r"\s*([+-]?\d*)", v).group(1).lstrip("+") or 0) for v in text.split(","))
    if cuts[0] <= 0:
        raise MetricError(f"trec_eval measure {family}.{text}: cutoffs must be positive")
    if len(set(cuts)) < len(cuts):
        raise MetricError(f"trec_eval measure {family}.{text}: a cutoff is given twice (trec_eval refuses it too)")
    return cuts


def _level_name(family: str, x: float) -> str:
    """trec_eval's name of a level's line: "%s_%3.2f" in a buffer of strlen(name) + 10 bytes (meas_init.c)."""
    return f"{family}_{x:3.2f}"[: len(family) + 9]


def _family_lines(family: str, params: str | None, collection_size: int) -> list[Line]:
    """One family's printed lines, with the parameters trec_eval took for it (None: its defaults)."""
    kind = FAMILIES[family]
    if family in ("runid", "relstring"):
        length = int(_floats(family, params)[0]) if params else 10
        return [Line(f"{family}_{params}" if params and family == "relstring" else family, family, None,
                     ((length, 0.0),))]
    if family in CUTOFFS:
        cuts = _cutoffs(family, params) if params else CUTOFFS[family]
        return [Line(f"{family}_{c}", family, _metric(kind, c)) for c in cuts]
    if family in LEVELS:
        param, defaults = LEVELS[family]
        levels = sorted(_floats(family, params)) if params else defaults
        if len(set(levels)) < len(levels):
            raise MetricError(f"trec_eval measure {family}.{params}: a level is given twice "
                              "(trec_eval refuses it too)")
        return [Line(_level_name(family, x), family, _metric(kind, **{param: x})) for x in levels]
    if family == "11pt_avg" and params:
        # m_11pt_avg.c averages iprec at the levels given (in that order, repeats counted); its walk down the
        # ranking assumes them ascending, and gives other numbers for other orders, which sqlndcg does not copy
        levels = _floats(family, params)
        if levels != sorted(levels):
            raise MetricError(f"trec_eval measure {family}.{params}: give the recall levels in ascending order "
                              f"(trec_eval's m_11pt_avg.c assumes it)")
        return [Line(f"{family}_{params}", family, None,
                     levels=tuple(_metric("iprec_at_recall", recall=x) for x in levels))]
    if family == "utility":
        coefficients = _floats(family, params) if params else [1.0, -1.0, 0.0, 0.0]
        if len(coefficients) != 4:
            raise MetricError(f"trec_eval measure utility.{params}: utility takes 4 coefficients, "
                              "e.g. utility.1,-1,0,0")
        a, b, c, d = coefficients
        name = f"utility_{params}" if params else "utility"
        return [Line(name, family, _metric(kind, a=a, b=b, c=c, d=d, n=collection_size))]
    if family == "set_F":
        # trec_eval's set_F.x is (x + 1) * P * R / (x * P + R) (m_set_F.c): x weighs recall as beta^2 does in
        # sqlndcg's set_f(beta), so set_F.x is set_f(beta=sqrt(x)); only the first parameter counts, as there
        x = _floats(family, params)[0] if params else 1.0
        if x < 0:
            raise MetricError(f"trec_eval measure set_F.{params}: set_F's weight of recall must be 0 or more")
        return [Line(f"set_F_{params}" if params else "set_F", family, _metric(kind, beta=math.sqrt(x)))]
    if family == "rbp":
        p = 0.9
        for pair in filter(None, (params or "").split(",")):
            name, _, value = pair.partition("=")
            if name != "p":
                raise MetricError(f"trec_eval measure rbp.{params}: rbp takes p=<persistence>, e.g. rbp.p=0.95")
            p = _floats(family, value)[0]
        return [Line(f"rbp_{params}" if params else "rbp", family, _metric(kind, p=p))]
    if family in GAIN_PAIRS and params:
        gains = []
        pairs = f"trec_eval measure {family}.{params}: gains are level=gain pairs, e.g. ndcg.1=3,2=9"
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
    return [Line(family, family, _metric(kind))]


def select(specs: list[str], collection_size: int = 0, major: str = "10") -> list[Line]:
    """The lines trec_eval prints for its ``-m`` arguments (``official`` when there are none), as trec_eval.c and
    meas_init.c decide: every family named (directly or by a nickname) is printed once, in measures.c's order,
    with the parameters of the first ``-m family.params`` that names it (``-m P.5 -m P.10`` prints P_5 only)."""
    marked: set[str] = set()
    params: dict[str, str] = {}
    for spec in specs or ["official"]:
        name, dot, given = spec.partition(".")
        if dot and not given:
            raise MetricError(f"trec_eval measure {spec!r}: give parameters after the '.', e.g. P.5,10")
        if name in NICKNAMES:
            if dot:
                raise MetricError(f"trec_eval measure {spec!r}: {name} is a nickname; it takes no parameters")
            marked.update(f for f in NICKNAMES[name] if major == "10" or name != "all_trec" or f not in NEW_IN_10)
            continue
        if name not in FAMILIES:
            known = ", ".join(list(NICKNAMES) + list(FAMILIES))
            raise MetricError(f"trec_eval measure {spec!r} is not known; choose one of {known}")
        marked.add(name)
        if dot:
            params.setdefault(name, given)
    return [line for family in FAMILIES if family in marked
            for line in _family_lines(family, params.get(family), collection_size)]


# ----------------------------------------------------------------------------------------------------------------
# reading


def _stdin_file(path: str, scratch: list[str]) -> str:
    """'-' means standard input (trec_eval reads the run that way): copied to a temporary file DuckDB can read."""
    if path != "-":
        return path
    handle, name = tempfile.mkstemp(prefix="sqlndcg_stdin_", suffix=".run")
    with os.fdopen(handle, "wb") as out:
        shutil.copyfileobj(sys.stdin.buffer, out)
    scratch.append(name)
    return name


def _check_file(path: str, role: str, database: str | None = None) -> None:
    if not os.path.isfile(path):
        hint = (" (sqlndcg trec_eval reads files, with --database too; to evaluate tables the database already "
                "holds use sqlndcg evaluate --database ... --run TABLE --judgments TABLE --preset trec_eval)"
                if database else "")
        raise InputError(f"{role} file {path!r} does not exist (or is not a file){hint}")
    if os.path.getsize(path) == 0:
        raise InputError(f"{role} file {path!r} is empty: it has no lines")


def _bad_lines(con, literal: str, kind: str, path: str) -> None:
    found = con.execute(render.call("sqlndcg_trec_eval_bad_lines", literal, kind, 5)).fetchall()
    if found:
        layout = "query Q0 doc rank score tag" if kind == "run" else "query iteration doc label"
        shown = "; ".join(f"line {n}: {brief(line)}" for n, line, _ in found)
        raise DataError(
            f"{kind} file {path!r}: {found[0][2]} malformed line(s), e.g. {shown}; each line must read "
            f"'{layout}' (whitespace-separated{', more fields after the tag are ignored' if kind == 'run' else ''})"
        )


def _duplicates(con, view: str, kind: str, path: str) -> None:
    """trec_eval refuses a document listed twice for one query (in the run or in the qrels); so does sqlndcg, here
    in the file's own terms rather than as a table's duplicate rows."""
    keys = [render.quote("query_id"), render.quote("doc_id")]
    found = con.execute(render.call("duplicates", view, keys, 3)).fetchall()
    if found:
        shown = "; ".join(f"query {brief(q)} document {brief(d)} {n} times" for q, d, n, _ in found)
        raise DataError(f"{kind} file {path!r}: {found[0][3]} (query, document) pair(s) occur more than once, e.g. "
                        f"{shown}; each document may appear once per query (trec_eval refuses duplicates too)")


def read(con, qrels: str, run: str, database: str | None = None, complete: bool = False) -> str:
    """Register the views te_qrels, te_run_file (the run file's lines) and te_run (the run trec_eval evaluates:
    with ``complete``, -c, a judged query the file lacks gets trec_eval's one unjudged document) in the DuckDB
    connection ``con``; returns the run id. Refuses malformed lines by number, and documents listed twice for a
    query."""
    for path, role in ((qrels, "qrels"), (run, "run")):
        _check_file(path, role, database)
    q_literal, r_literal = file_literal(qrels), file_literal(run)  # absolute: a leading ~ is not the home directory
    try:
        _bad_lines(con, q_literal, "qrels", qrels)
        _bad_lines(con, r_literal, "run", run)
        for view, reader in (("te_qrels", render.call("sqlndcg_trec_eval_qrels", q_literal)),
                             ("te_run_file", render.call("sqlndcg_trec_eval_run", r_literal)),
                             ("te_run", render.call("sqlndcg_trec_eval_complete_run", "te_run_file", "te_qrels")
                              if complete else "te_run_file")):
            con.execute(render.call("sqlndcg_trec_eval_view", view, reader))
        counts = con.execute(render.call("sqlndcg_trec_eval_counts", "te_qrels", "te_run_file")).fetchone()
    except duckdb.Error as exc:
        raise InputError(f"cannot read {qrels!r} / {run!r} as TREC files: {str(exc).splitlines()[0]}") from None
    if counts[0] == 0:
        raise InputError(f"qrels file {qrels!r} has no judgment lines (only blanks or # comments)")
    if counts[1] == 0:
        raise InputError(f"run file {run!r} has no result lines (only blanks or # comments)")
    _duplicates(con, "te_qrels", "qrels", qrels)
    _duplicates(con, "te_run_file", "run", run)
    # fetched to the end: a result left open would keep the connection from reading the rows again (_load)
    return con.execute(render.call("sqlndcg_trec_eval_runid", "te_run_file")).fetchall()[0][0]


# ----------------------------------------------------------------------------------------------------------------
# another engine: the rows read are loaded into temporary tables there

#: kind -> (the DuckDB view the file is read into, the temporary table another engine gets its rows in)
TABLES = {"run": ("te_run", "sqlndcg_trec_eval_run"), "qrels": ("te_qrels", "sqlndcg_trec_eval_qrels")}


def _load(ses, reader) -> None:
    """The rows of te_run and te_qrels (read by the DuckDB connection ``reader``), streamed as Arrow into temporary
    tables of the session ``ses`` (its engine's ``register``: SQLite, PostgreSQL), gone when the session closes."""
    for kind, (view, table) in TABLES.items():
        rows = reader.sql(render.call("sqlndcg_trec_eval_rows", view, kind))
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
    for (label,) in con.execute(render.call("sqlndcg_trec_eval_positive_labels", "te_qrels")).fetchall():
        grade = int(label)
        gain = listed.get(grade, float(grade)) if grade >= 1 else 0.0
        mapping[float(label)] = gain
        if grade >= 1:
            mapping[float(grade)] = gain
    mapping.update({float(level): gain for level, gain in listed.items() if level > 0})
    return mapping


def compute(options: Options, con=None) -> Output:
    """The run id, the per-query and the ``all`` lines as (measure, query, value text), and the judged queries the
    run lacks. The measures are computed in ``con`` (DuckDB, SQLite or PostgreSQL), or in the database
    ``options.database`` names (an in-memory DuckDB without one); the files are read by DuckDB: by ``con`` itself
    when it is DuckDB, else by an in-memory DuckDB, whose rows are then loaded into temporary tables of ``con``."""
    from . import evaluate as api
    from ..run.connect import open_database
    from ..run.session import Session

    major = version(options.version)
    lines = select(options.measures, options.collection_size, major)
    if options.complete:  # m_num_rel.c: with -c, the all line counts every judged label > 0, whatever -l says
        for line in lines:
            if line.family == "num_rel":
                line.summed = _metric("num_rel", rel=1)
    if options.level < 1:
        raise InputError(f"-l {options.level}: the relevance level must be 1 or more")
    if options.depth is not None and options.depth < 1:
        raise InputError(f"-M {options.depth}: the number of documents per topic must be 1 or more")

    own = con is None
    if own:  # DuckDB's progress bar on long work only when stdout and stderr are terminals (open_database decides)
        con = open_database(options.database)
    reader = con if isinstance(con, duckdb.DuckDBPyConnection) else None
    scratch: list[str] = []
    ses = None  # another engine than DuckDB: the session that holds the files' rows there
    try:
        if reader is None:
            ses = Session(con)
            reader = open_database(None)
        runid = read(reader, _stdin_file(options.qrels, scratch), _stdin_file(options.run, scratch),
                     options.database, options.complete)
        if ses is not None:
            _load(ses, reader)
        run_table, qrels_table = (TABLES[kind][1 if ses is not None else 0] for kind in ("run", "qrels"))
        settings = dict(preset=VERSIONS[major], queries="judged" if options.complete else "both",
                        threshold=float(options.level), depth=options.depth, judged_only=options.judged_only,
                        query_id="query_id", doc_id="doc_id", score="score", rank=None, rel="rel")
        # one evaluation per gain map: (gains, metric) -> {query: value}
        groups: dict[tuple, list[str]] = {}
        for line in lines:
            for metric in ((line.metric,) if line.metric else line.levels) + ((line.summed,) if line.summed else ()):
                groups.setdefault(line.gains, []).append(metric)
        values: dict[tuple, dict[str, float]] = {}
        for gains, metrics in groups.items():
            metrics = list(dict.fromkeys(metrics))
            res = api.evaluate(run_table, qrels_table, metrics, con=con, gain=_gain_map(reader, gains) or None,
                               **settings)
            rows = res.per_query.to_dicts()
            for metric, column in zip(metrics, res.settings["metrics"]):
                values[gains, metric] = {r["query_id"]: r[column] for r in rows}
        judged, answered = (
            [q for (q,) in reader.execute(render.call("sqlndcg_trec_eval_queries", view)).fetchall()]
            for view in ("te_qrels", "te_run_file"))
        relstrings = {}
        for line in lines:
            if line.family == "relstring":  # a string made from the files' labels, not a measure: read by DuckDB
                sql = render.call("sqlndcg_trec_eval_relstring", "te_run", "te_qrels", line.gains[0][0],
                                  options.depth, options.judged_only)
                relstrings = dict(reader.execute(sql).fetchall())
    finally:
        for name in scratch:
            os.unlink(name)
        try:
            if ses is not None:  # drops the loaded tables, ends its savepoint or transaction on con (PostgreSQL)
                ses.close(failed=sys.exc_info()[1] is not None)
        finally:
            if reader is not None and reader is not con:
                reader.close()
            if own:
                con.close()

    # trec_eval goes through the judged queries in strcmp order (get_qrels.c); a run query without judgments is
    # never evaluated, a judged one without results is evaluated (on one unjudged document) with -c and skipped
    # without it
    judged = sorted(judged, key=lambda q: q.encode())
    answered = set(answered)
    missing = [q for q in judged if q not in answered]
    evaluated = judged if options.complete else [q for q in judged if q in answered]
    if not evaluated:
        raise InputError("no queries with both results and relevance information (trec_eval exits 7 here)")
    # with -q -c, 10.0 prints the missing queries' lines too; 9.x printed only the queries the run answered
    printed = evaluated if major == "10" else [q for q in evaluated if q in answered]

    cleared = set(missing) if options.complete else set()

    def value(line: Line, q: str) -> float:
        if q in cleared and _cleared(line.name):
            return 0.0
        if not line.levels:
            return values[line.gains, line.metric][q]
        total = 0.0  # m_11pt_avg.c adds the levels from the last to the first, then divides by their number
        for metric in reversed(line.levels):
            total += values[line.gains, metric][q]
        return total / len(line.levels)

    per_query, summary = [], []
    for q in printed:
        for line in lines:
            if line.family in SUMMARY_ONLY:
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
    return Output(runid, per_query, summary, missing)


def _cleared(name: str) -> bool:
    """trec_eval.c's clean-up of a query the run lacks, evaluated (-c) on one unjudged document: these lines,
    matched by their printed name (so utility_2,-1,0,0 and relstring_20 keep that document's values), are 0 ('')."""
    return name in ("num_ret", "utility", "relstring", "rbp_resid") or name.startswith("unj")


def _summarize(line: Line, per: list[float]) -> float:
    """trec_eval's `all` value: the per-query values added in query order as meas_acc.c does (not a correctly
    rounded sum: the last bit can differ, and so can a printed digit), then meas_avg.c's mean, exp(mean) or sum."""
    rule = MEASURES[FAMILIES[line.family]]["summary"]
    total = 0.0
    for v in per:
        total += v
    if rule == "sum":
        return total
    if rule == "gm":
        return math.exp(total / len(per))
    return total / len(per)


def _text(line: Line, value: float) -> str:
    if line.family in INTEGER:
        return str(int(round(value)))
    return f"{value:.4f}"


def format_lines(lines: list[tuple[str, str, str]]) -> str:
    return "".join(f"{name:<22s}\t{query}\t{value}\n" for name, query, value in lines)


def run(options: Options, out=None) -> int:
    out = out or sys.stdout
    result = compute(options)
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
