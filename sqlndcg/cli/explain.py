"""Command line for ``sqlndcg explain``, mirroring :func:`sqlndcg.explain`: where two presets (or two sets of
settings) give different numbers and which setting causes each difference; with ``--query``, one query's
arithmetic (ranking, gains, discounts, ideal ranking, each metric as numbers).

``--a`` and ``--b`` take a preset's name (trec_eval, sklearn, ranx, ...), settings as ``name=value,...``
(``preset=trec_eval,gain=exponential``), or a JSON object (for a gain map).
"""

from __future__ import annotations

import json
import sys

from ..errors import SettingError
from .common import DATABASES, add_file_flags, add_setting_flags, database, file_options_from, run_verb, settings_from

#: The verbs of this module, with their one-line help.
VERBS = {"explain": "why two presets (or sets of settings) give different numbers, per query and setting"}
COMMANDS = tuple(VERBS)


def build(name: str, p) -> None:
    """The flags of ``explain``."""
    p.add_argument("--run", required=True, help="run: Parquet, CSV, TSV or TREC run file (or a table with --database)")
    p.add_argument("--judgments", "--qrels", required=True,
                   help="judgments: Parquet, CSV, TSV or TREC qrels file (or a table with --database)")
    p.add_argument("-m", "--metric", action="append", dest="metrics",
                   help="metric, repeatable or comma-separated (default: ndcg@10)")
    p.add_argument("--a", help="the first settings: a preset's name, name=value,... or a JSON object (default: "
                               "evaluate's defaults, with the setting flags below)")
    p.add_argument("--b", help="the second settings, in the same forms (required without --query)")
    p.add_argument("--query", help="print this query's ranking, gains, discounts, ideal ranking and arithmetic "
                                   "(with --group-by: for each ranking of it)")
    # evaluate's setting flags, shared by --a and --b (their own settings override them); --group-by also takes
    # comma-separated columns here
    add_setting_flags(p)
    add_file_flags(p)
    p.add_argument("--database", help=f"where the tables named by --run/--judgments live: {DATABASES}")
    p.add_argument("--format", choices=("text", "json"), default="text")


def settings_of(text: str | None, flag: str):
    """A preset's name, ``name=value,...`` or a JSON object, as explain() takes a side."""
    if text is None:
        return None
    text = text.strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            raise SettingError(f"{flag}: not a JSON object ({e.msg})") from None
        if isinstance(value.get("gain"), dict):
            value["gain"] = {float(g): float(v) for g, v in value["gain"].items()}
        return value
    if "=" not in text:
        return text
    out = {}
    for pair in text.split(","):
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise SettingError(f"{flag}: {pair!r} is not name=value")
        out[name.strip().replace("-", "_")] = _typed(value.strip())
    return out


def _typed(value: str):
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def _run(args) -> None:
    from ..verbs.explain import explain

    metrics = [m.strip() for part in (args.metrics or ["ndcg@10"]) for m in part.split(",") if m.strip()]
    settings = settings_from(args)
    settings["group_by"] = [c.strip() for part in settings.get("group_by", []) for c in part.split(",") if c.strip()]
    with database(args) as con:
        result = explain(args.run, args.judgments, metrics, a=settings_of(args.a, "--a"),
                         b=settings_of(args.b, "--b"), query=args.query, con=con, **file_options_from(args),
                         **settings)
    if args.format == "json":
        json.dump(result.to_dict(), sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        print(result)


def _explain(exc, args) -> str:
    """A preset named by --a or --b is refused as 'preset=...': say which flags take it."""
    return str(exc).replace("--preset=", "--a/--b preset ")


def run(args) -> int:
    """Run ``explain``: 0, or 2 with one error line on stderr (the traceback with --debug)."""
    return run_verb(_run, args, explain=_explain)
