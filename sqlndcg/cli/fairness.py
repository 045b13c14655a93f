"""Command line for exposure fairness: ``sqlndcg exposure`` (:func:`sqlndcg.exposure`): the measures per query
(or ``--table groups``: each group's exposure per query; ``--table summary``: the means with their 95% intervals),
and with ``--account`` what was read. Every number is computed in SQL (sql/macros/fairness/)."""

from __future__ import annotations


from .common import DATABASES, database, run_verb
from .output import emit_table, write_table

VERBS = {
    "exposure": "exposure fairness over the items' groups: exposure, disparity, AWRF, expected exposure (EE-L/D/R)",
}
COMMANDS = tuple(VERBS)

_COLUMNS = ("query_id", "doc_id", "score", "rel", "share")


def build(name: str, p) -> None:
    """The flags of the exposure verb."""
    p.add_argument("--run", required=True, help="the run: Parquet, CSV or TSV (or a table with --database)")
    p.add_argument("--items", required=True, help="doc_id and its group (provider): a file or a table")
    p.add_argument("--group-column", default="provider", help="the items' group column (default: provider)")
    p.add_argument("--browsing", choices=("rbp", "dcg", "trec_fair"), default="rbp",
                   help="rank weights: rbp p^(r-1) (default), dcg 1/log2(r+1), trec_fair 1/log2(max(r,2))")
    p.add_argument("--p", type=float, default=0.5, help="RBP's patience (default 0.5)")
    p.add_argument("-k", type=int, help="cutoff: ranks below k get no exposure (default: the whole list)")
    p.add_argument("--judgments", "--qrels", dest="judgments",
                   help="query_id, doc_id, rel: adds expected exposure (ee_l, ee_d, ee_r)")
    p.add_argument("--target", help="AWRF's target: a file or table (group, share), or items (default) or uniform")
    p.add_argument("--sample-column", dest="sample", help="the run's sample column: each sample one ranking")
    p.add_argument("--group-by", action="append", default=[], help="grouping column (e.g. system); repeatable")
    p.add_argument("--missing", choices=("error", "unknown"), default="error",
                   help="run documents without an item row: an error (default) or a group '(unknown)'")
    p.add_argument("--ties", choices=("doc_id", "average"), default="doc_id",
                   help="equal scores: ordered by doc id descending (default), or sharing their positions' mean weight")
    p.add_argument("--lower-is-better", action="store_true", help="the score is a distance: the lowest ranks first")
    p.add_argument("--table", choices=("per_query", "groups", "summary"), default="per_query",
                   help="which table to print (default per_query)")
    p.add_argument("--account", action="store_true", help="print the account (what was read) too")
    for column in _COLUMNS:
        p.add_argument(f"--{column.replace('_', '-')}-column", dest=column, default=column,
                       help=f"the {column} column (default: {column})")
    p.add_argument("--database", help=f"where the tables named live: {DATABASES}")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="how to print the result")
    p.add_argument("--output", help="write the table to this file (.parquet, else CSV) instead of printing it")


def _run(args) -> None:
    from ..verbs.exposure import exposure

    columns = {c: getattr(args, c) for c in _COLUMNS}
    with database(args) as con:
        res = exposure(args.run, args.items, group_column=args.group_column, browsing=args.browsing, p=args.p, k=args.k,
                       judgments=args.judgments, target=args.target, sample=args.sample, group_by=args.group_by,
                       missing=args.missing, ties=args.ties,
                       lower_is_better=args.lower_is_better, con=con, **columns)
    table = {"per_query": res.per_query, "groups": res.groups, "summary": res.summary}[args.table]
    emit_table(table, args.output, args.format)
    if args.account and not args.output:
        write_table(res.account, args.format)


def run(args) -> int:
    """Run the exposure verb: 0 on success, 2 with one error line on a mistake."""
    return run_verb(_run, args)
