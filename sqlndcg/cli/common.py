"""What every command line verb does the same way: its settings flags (one builder, generated from the settings'
declaration), the flags every verb has, the connection ``--database`` names, and how a verb fails.

Nothing heavy is imported here: the declaration is rendered when a verb's parser is built, the engine opened when
a verb runs, so ``sqlndcg --help`` needs neither.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterable

from .. import __version__
from ..errors import SettingError, SqlndcgError
from .progress import shown
from ..core import templates


def _declared() -> dict[str, dict]:
    from ..core.spec import settings_declared

    return settings_declared()


def flag_of(name: str, about: dict) -> str:
    """The command-line flag of a declared setting: ``--short-lists``; column settings end in ``-column``."""
    return "--" + name.replace("_", "-") + ("-column" if about.get("column") else "")


#: A worked example per verb, shown at the end of its --help (tests/test_cli_help.py parses each one). The
#: bundled example files sit in sqlndcg/examples/ of a checkout (sqlndcg.example("run") says where when installed).
EXAMPLES = {
    "evaluate": [
        "sqlndcg evaluate --run sqlndcg/examples/example.run --judgments sqlndcg/examples/example.qrels "
        "--group-by tag -m ndcg@5,p@5,map",
        "sqlndcg evaluate --run runs --judgments qrels --database warehouse.duckdb -m ndcg@10 --preset trec_eval "
        "--per-query --format csv",
    ],
    "sql": ["sqlndcg sql --run runs --judgments qrels -m ndcg@10,map --dialect snowflake"],
    "trec_eval": ["sqlndcg trec_eval -q -m all_trec qrels.txt run.txt",
                  "sqlndcg trec_eval -c -l 2 -m P.5,10 -m ndcg_cut.10 qrels.txt run.txt"],
    "compare": ["sqlndcg compare --run sqlndcg/examples/example.run --judgments sqlndcg/examples/example.qrels "
                "--system tag --baseline bm25 -m ndcg@5,rr@10"],
    "power": ["sqlndcg power --pilot differences.csv -m ndcg@10 --difference 0.01"],
    "explain": ["sqlndcg explain --run sqlndcg/examples/example.run --judgments sqlndcg/examples/example.qrels "
                "--group-by tag -m ndcg@5 --a trec_eval --b sklearn"],
    "report": ["sqlndcg report --run bm25=bm25.run --run rerank=rerank.run --judgments qrels.txt -m ndcg@10 "
               "-o report.html"],
    "labels": ["sqlndcg labels --events events.csv --rules click:1,add_to_cart:2,purchase:3 --output labels.csv"],
    "agreement": ["sqlndcg agreement --judgments sqlndcg/examples/annotations.csv --least 5",
                  "sqlndcg agreement labels.csv --annotator source --between human llm --confusion"],
    "aggregate": ["sqlndcg aggregate --judgments sqlndcg/examples/annotations.csv --output labels.csv"],
    "positions": ["sqlndcg positions --run sqlndcg/examples/search_run.csv --judgments labels.csv -k 10 "
                  "--group-by system"],
    "propensities": ["sqlndcg propensities sqlndcg/examples/clicks.csv --method em --bootstrap 50 --plot theta.png"],
    "click_labels": ["sqlndcg click_labels sqlndcg/examples/clicks.csv --propensities logged --output labels.csv"],
    "counterfactual": ["sqlndcg counterfactual sqlndcg/examples/clicks.csv --run sqlndcg/examples/clicks_run.csv "
                       "--propensities logged -m dcg@5,clicks@5 --estimator snips"],
    "interleave": ["sqlndcg interleave --run-a ranker_a.csv --run-b ranker_b.csv --impressions impressions.csv "
                   "-k 10 --seed 7 --output lists.csv"],
    "multileave": ["sqlndcg multileave --run bm25=bm25.csv --run dense=dense.csv --run hybrid=hybrid.csv "
                   "--impressions impressions.csv -k 10 --seed 7 --output lists.csv"],
    "interleaving_credit": ["sqlndcg interleaving_credit --log interleaved_clicks.parquet --group-by ds --account",
                            "sqlndcg interleaving_credit --log multileaved_clicks.parquet --teams bm25,dense,hybrid"],
    "diversity": ["sqlndcg diversity --run run.csv --judgments qrels.diversity.txt -m alpha_ndcg@10 -m err_ia@10 -m strec@10"],
    "beyond": ["sqlndcg beyond --run recommendations.csv --items items.csv -m coverage@10,gini@10,novelty@10 --group-by system"],
    "ndeval": ["sqlndcg ndeval qrels.diversity.txt run.txt", "sqlndcg ndeval -traditional -alpha 0.3 qrels.diversity.txt run.txt"],
    "overlap": ["sqlndcg overlap --run sqlndcg/examples/search_run.csv --system-column system --baseline bm25 "
                "-m rbo@10,rbo_ext@10,jaccard@10 --p 0.9"],
    "exposure": ["sqlndcg exposure --run run.csv --items items.csv --group-column provider --browsing rbp --p 0.5",
                 "sqlndcg exposure --run samples.csv --sample-column sample --items items.csv --judgments qrels.txt "
                 "--group-by system --table summary"],
    "system-order": ["sqlndcg system-order runs.parquet judgments.parquet --source source --reference human "
                     "-m ndcg@10,p@5",
                     "sqlndcg system-order runs.csv labels.csv -m ndcg@10 --query-set own --format csv --table flips"],
    "judge-check": ["sqlndcg judge-check runs.parquet judgments.parquet --source source --reference human "
                    "--candidate llm -m ndcg@10",
                    "sqlndcg judge-check runs.csv labels.csv --candidate llm-v2 -m ndcg@10 --baseline bm25 --width 0.05"],
    "audit-sample": ["sqlndcg audit-sample --queries queries.csv --strata market --audited last_month.csv "
                     "--budget 30 --seed 7 --format csv",
                     "sqlndcg audit-sample --queries runs.csv --model-labels llm.qrels -m ndcg@10 --by disagreement "
                     "--budget 50"],
    "audit-size": ["sqlndcg audit-size --width 0.05 --queries 5000 --sd-human 0.3 --sd-model 0.28 --correlation 0.8",
                   "sqlndcg audit-size --width 0.05 --pilot ppi_pairs.csv"],
}


def add_verb_parser(subparsers, name: str, helptext: str):
    """A verb's parser, its worked example (EXAMPLES) at the end of its --help."""
    lines = EXAMPLES.get(name, [])
    epilog = ("example" + ("s" if len(lines) > 1 else "") + ":\n" + "\n".join(f"  {line}" for line in lines)
              if lines else None)
    return subparsers.add_parser(name, help=helptext, epilog=epilog,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)


def _with_default(helptext: str, about: dict) -> str:
    """The help of a setting's flag, with its declared default (a preset may change it)."""
    default = about.get("default")
    if default is None or default is False or default == []:
        return helptext
    if isinstance(default, float) and default.is_integer():
        default = int(default)
    return f"{helptext} (default: {default})"


def add_setting_flags(parser, only: Iterable[str] | None = None, helps: dict[str, str] | None = None) -> None:
    """One flag per declared setting (or per setting in ``only``), its kind, allowed values and help taken from the
    declaration; ``helps`` words a flag for a verb where it means something narrower. A flag not given is None
    (or an empty list), so the verb's own default, the preset or the declaration decides."""
    declared = _declared()
    names = list(declared) if only is None else list(only)
    for name in names:
        about = declared[name]
        flag = flag_of(name, about)
        helptext = ((helps or {}).get(name, about.get("help", "")) + (" (map: 1:1,2:3,3:7)" if about.get("map") else "")
                    + (" (repeatable)" if about.get("columns") else ""))
        helptext = _with_default(helptext, about)
        if about.get("map"):
            parser.add_argument(flag, dest=name, type=gain_flag, help=helptext)
        elif "values" in about:
            parser.add_argument(flag, dest=name, choices=about["values"], help=helptext)
        elif about.get("number"):
            parser.add_argument(flag, dest=name, type=number_flag(name, flag), help=helptext)
        elif about.get("integer"):
            parser.add_argument(flag, dest=name, type=int, help=helptext)
        elif about.get("flag"):
            parser.add_argument(flag, dest=name, action="store_true", default=None, help=helptext)
        elif about.get("columns"):
            parser.add_argument(flag, dest=name, action="append", default=[], help=helptext)
        elif about.get("column"):
            parser.add_argument(flag, dest=name, help=helptext)
        else:
            raise AssertionError(f"setting {name!r} declares no kind the command line knows")


def _file_options() -> dict[str, dict]:
    from ..core.spec import file_options_declared

    return file_options_declared()


def add_file_flags(parser) -> None:
    """How a verb reads its input files, one flag per declared file option (``_file_options_declared()`` in
    settings.sql): ``--run-format``, ``--judgments-format``, ``--delimiter``, ``--decimal``. Not given: None."""
    for name, about in _file_options().items():
        choices = {"choices": about["values"]} if "values" in about else {}
        parser.add_argument("--" + name.replace("_", "-"), dest=name, help=about["help"], **choices)


def file_options_from(args) -> dict[str, Any]:
    """The file options the command line gave, by their keywords."""
    return {name: getattr(args, name) for name in _file_options() if getattr(args, name, None) is not None}


def settings_from(args) -> dict[str, Any]:
    """The declared settings the command line gave (flags left out are not passed, so defaults apply)."""
    out: dict[str, Any] = {}
    for name in _declared():
        value = getattr(args, name, None)
        if value is not None and value != []:
            out[name] = value
    return out


def number_flag(name: str, flag: str) -> Callable[[str], float]:
    """A number setting's flag: a finite number, else argparse's one line naming the flag and what it allows
    (the rule the spec checks, spec.sql's _number_rule), e.g. ``argument --threshold: 1e400 is not a finite
    number; --threshold > 0``; float('1e400') would be inf, shown as the bare word."""
    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):

            raise argparse.ArgumentTypeError(f"{text} is not a finite number; {templates.number_rule(name, flag)}"
                                             " (a double holds at most 1.8e308)")
        return value
    read.__name__ = name
    return read


def gain_flag(text: str):
    """``--gain``: ``exponential``, ``linear``, or a map ``1:1,2:3,3:7`` of finite numbers."""
    if text in _declared()["gain"]["values"]:
        return text
    try:
        gains = {float(g): float(v) for g, v in (pair.split(":") for pair in text.split(","))}
    except ValueError:
        # argparse shows an ArgumentTypeError's text as it is (other errors as "invalid gain_flag value")
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: use exponential, linear, or a map of grade to "
                                         "gain like 1:1,2:3,3:7") from None
    if not all(math.isfinite(x) for pair in gains.items() for x in pair):
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: grades and gains must be finite numbers "
                                         "(a double holds at most 1.8e308)")
    return gains


#: Keywords of the Python API, besides the settings, that messages name as the fix: their command-line flags.
KEYWORD_FLAGS = {"weight_column": "--weight-column", "query_weights": "--query-weights", "partitions": "--partitions",
                 "memory_limit": "--memory-limit", "temp_directory": "--temp-directory", "seed": "--seed",
                 "bootstrap": "--bootstrap", "permutations": "--permutations", "resamples": "--resamples",
                 "correction": "--correction", "baseline": "--baseline", "system": "--system", "p": "--p"}


def _flag_for(keyword: str) -> str | None:
    declared = _declared()
    if keyword in declared:
        return flag_of(keyword, declared[keyword])
    return "--" + keyword.replace("_", "-") if keyword in _file_options() else KEYWORD_FLAGS.get(keyword)


def _in_metric(message: str, at: int) -> bool:
    """Whether position ``at`` is inside a metric's parameters (``P(rel=2)@5``, ``rbp(p=0.8, rel=2)``): the
    innermost open parenthesis before it follows a name."""
    depth = 0
    for i in range(at - 1, -1, -1):
        if message[i] == ")":
            depth += 1
        elif message[i] == "(":
            if depth == 0:
                return i > 0 and (message[i - 1].isalnum() or message[i - 1] == "_")
            depth -= 1
    return False


def flag_named(message: str) -> str:
    """A message as the command line reads it: each keyword it names as a fix becomes the flag that gives it
    ("threshold=0: must be positive" -> "--threshold=0: must be positive"; "Name the right one with query_id=."
    -> "... with --query-id-column."), but never a metric's own parameter (``P(rel=2)@5``)."""
    def swap(found) -> str:
        flag = _flag_for(found.group(2))
        if flag is None or _in_metric(message, found.start(2)):
            return found.group(0)
        return found.group(1) + flag

    # only where a fix is named ("with x=", "use x=", "or x=", "set x="), never in a row shown (query_id='q1')
    message = re.sub(r"(^|\b(?:[Ww]ith|[Uu]se|[Oo]r|[Ss]et|[Gg]ive) \(?)(\w+)(?==)", swap, message)
    message = re.sub(r"(--[\w-]+)=(?=[.,;)\s]|$)", r"\1", message)  # "with --query-id-column." (no value given)
    return re.sub(r"^(\w+)(?= must )", lambda f: _flag_for(f.group(1)) or f.group(1), message)


def add_memory_flags(parser) -> None:
    """``--memory-limit`` and ``--temp-directory``: DuckDB's memory limit and where it spills (by default a private
    temporary directory, bounded in size, removed afterwards)."""
    parser.add_argument("--memory-limit", help="DuckDB's memory limit, e.g. 4GB (larger inputs spill to disk)")
    parser.add_argument("--temp-directory", help="where DuckDB spills (default: a private temporary directory)")


#: What --database takes, in every verb's help.
DATABASES = "a DuckDB file, sqlite:///file.db or postgresql://user@host/db"


def add_verb_flags(parser) -> None:
    """The flags every verb has: ``--debug`` (also accepted before the verb) and ``--version``."""
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the traceback of an error")
    parser.add_argument("--version", action="version", version=f"sqlndcg {__version__}")


@contextmanager
def database(args):
    """The connection ``--database`` names (DuckDB in memory when only the memory flags are given), closed
    afterwards; None when the verb opens its own."""
    con = None
    if getattr(args, "database", None) or getattr(args, "memory_limit", None) or getattr(args, "temp_directory", None):
        from ..run.connect import open_database

        con = open_database(getattr(args, "database", None), memory_limit=getattr(args, "memory_limit", None),
                            temp_directory=getattr(args, "temp_directory", None))
    try:
        yield con
    finally:
        if con is not None:
            con.close()


#: The flags that name files a verb reads, and those that name files it writes (argparse's dest -> the flag).
INPUT_FLAGS = {"run": "--run", "judgments": "--judgments", "qrels": "qrels", "events": "--events",
               "impressions": "--impressions", "query_weights": "--query-weights", "pilot": "--pilot",
               "database": "--database"}
OUTPUT_FLAGS = {"output": "--output", "plot": "--plot", "plot_cutoffs": "--plot-cutoffs", "plot_time": "--plot-time"}


def _paths_read(flag: str, value: str) -> Iterable[tuple[str, str]]:
    """(flag, path) for each existing file a value may name: ``NAME=FILE`` runs, ``sqlite:///file.db``."""
    candidates = [value]
    if flag == "--run" and "=" in value:
        candidates.append(value.partition("=")[2])
    if flag == "--database" and value.lower().startswith("sqlite://"):
        rest = value.partition("://")[2]  # as run.connect.open_database reads it
        candidates.append(rest[1:] if rest.startswith("/") and not rest.startswith("//") else rest)
    for path in candidates:
        if path and path != "-" and os.path.isfile(path):
            yield flag, path


def _same_file(a: str, b: str) -> bool:
    """The same file, however written: ``./run.csv`` and ``run.csv``, a symbolic link and its target, hard links."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def refuse_overwriting(args) -> None:
    """A verb that would write a file over one it reads (``--output run.csv --run ./run.csv``), or two outputs
    into one file, is refused before anything is read or written, naming both."""
    read = [pair for dest, flag in INPUT_FLAGS.items()
            for value in _values(getattr(args, dest, None)) for pair in _paths_read(flag, value)]
    written: list[tuple[str, str]] = []
    for dest, flag in OUTPUT_FLAGS.items():
        for out in _values(getattr(args, dest, None)):
            for other_flag, path in read:
                if _same_file(out, path):
                    raise SettingError(f"{flag} {out!r} is the {other_flag} file {path!r}{_both(out, path)}: writing "
                                       f"it would overwrite what this command reads; choose another {flag} path")
            for other_flag, path in written:
                if _same_file(out, path):
                    raise SettingError(f"{flag} {out!r} is also the {other_flag} file {path!r}{_both(out, path)}: "
                                       "one would overwrite the other; give each its own path")
            written.append((flag, out))


def _both(a: str, b: str) -> str:
    return "" if a == b else f" (both are {os.path.realpath(b)!r})"


def _values(value) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]


def run_verb(body: Callable, args, explain: Callable[[SqlndcgError, object], str] | None = None) -> int:
    """Run ``body(args)``, the one way every verb fails: 0 on success (or what body returns), else one line
    ``sqlndcg: error: ...`` on standard error and status 2, with the traceback instead under ``--debug``;
    ``sqlndcg: interrupted`` and 130 on Ctrl-C. ``explain`` may add a hint to a sqlndcg error's message."""
    debug = getattr(args, "debug", False)
    try:
        refuse_overwriting(args)
        with shown(getattr(args, "command", "")):  # a progress line on a terminal, for work over a few seconds
            status = body(args)
        return 0 if status is None else status
    except KeyboardInterrupt:  # Ctrl-C: what the shell expects (128 + SIGINT), one line, no traceback
        print("sqlndcg: interrupted", file=sys.stderr)
        return 130
    except SqlndcgError as exc:
        if debug:
            raise
        exc = type(exc)(flag_named(str(exc)))  # the fix in the command line's words
        print(f"sqlndcg: error: {explain(exc, args) if explain else exc}", file=sys.stderr)
        return getattr(exc, "exit_status", 2)  # 2, or trec_eval's own status where the command keeps it
    except BrokenPipeError:  # the reader went away (| head): nothing more to say
        sys.stdout = open(os.devnull, "w")
        return 0
    except (OSError, ImportError) as exc:
        if debug:
            raise
        print(f"sqlndcg: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # anything else is a bug, still one line unless --debug
        if debug:
            raise
        print(f"sqlndcg: error: unexpected {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''} "
              "(run with --debug for the traceback)", file=sys.stderr)
        return 2


def add_ppi_flags(p) -> None:
    """--audit, --ppi, --interval: model labels (--judgments) corrected by a human audit (prediction-powered)."""
    p.add_argument("--audit", metavar="FILE",
                   help="human judgments of some queries (--judgments then the model's labels on every query): "
                        "prediction-powered means and intervals, the naive ones beside them (docs/judgments.md)")
    p.add_argument("--ppi", choices=("ppi++", "ppi"),
                   help="with --audit: ppi++ (the power-tuned lam, default) or ppi (lam = 1)")
    p.add_argument("--interval", choices=("normal", "t"),
                   help="with --audit: normal (z = 1.96, as ppi_py; default) or t (Student's t with the audited "
                        "queries less one as degrees of freedom: wider, for small audits)")
