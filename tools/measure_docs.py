"""The measure table of docs/SEMANTICS.md, written from the measures' declarations.

``python -m tools.measure_docs`` rewrites the table between its two markers in docs/SEMANTICS.md (or in
the file given); tests/test_one_place_per_measure.py checks that the committed table is what this writes, so a
measure's row changes only with its file in ``sql/macros/measures/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sqlndcg.core import measures

BEGIN = "<!-- measure table: written by python -m tools.measure_docs from sql/macros/measures; edit there -->"
END = "<!-- end of the measure table -->"

DOC = Path(__file__).resolve().parents[1] / "docs" / "SEMANTICS.md"


def _number(x) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _name(kind: str, about: dict) -> str:
    params = ", ".join(f"{name}={_number(value)}" for name, value in about["params"].items())
    name = f"`{kind}{f'({params})' if params else ''}{'@k' if about['k'] else ''}`"
    aliases = ", ".join(f"`{alias}`" for alias in about["aliases"])
    return f"{name} ({aliases})" if aliases else name


def _trec_eval(about: dict) -> str:
    shown = []
    for family in about["trec_eval"]:
        text = f"`{family['name']}`"
        if family["params"] in ("cutoffs", "levels"):
            text += " (." + ",".join(_number(x) for x in family["defaults"]) + ")"
        elif about["k"]:
            text += " (no k)"
        shown.append(text)
    return ", ".join(shown) or "-"


def table() -> str:
    """The table's Markdown lines, one row per family in registry order."""
    rows = ["| sqlndcg name | what it is, per query | range | trec_eval | ir_measures | summary |",
            "|---|---|---|---|---|---|"]
    for kind, about in measures.declarations().items():
        lohi = about["range"]
        shown = f"[{_number(lohi[0])}, {_number(lohi[1])}]" if lohi else "-"
        rows.append(f"| {_name(kind, about)} | {about['help']} | {shown} | {_trec_eval(about)} | "
                    f"{about['ir_measures'] or '-'} | {about['summary']} |")
    return "\n".join(rows) + "\n"


def with_table(text: str) -> str:
    """``text`` (a document holding the markers) with the table between them written afresh."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError(f"the document needs the markers {BEGIN!r} and {END!r}, in that order, once each")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{table()}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else DOC
    path.write_text(with_table(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
