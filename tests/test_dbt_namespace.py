"""The dbt package's namespace stays tidy: every macro in sql/macros is private (a leading underscore, as dbt-utils
marks them), an adapter's implementation or the dispatcher an adapter may override (``<adapter>__name``), a generic
test, or a public entry point that the documentation shows as ``sqlndcg.<name>``. No name repeats the package's
prefix (``sqlndcg.sqlndcg_...``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFINED = re.compile(r"{%-?\s*(?:macro|test)\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(")
MACROS = {name: path for path in sorted((ROOT / "sql" / "macros").rglob("*.sql"))
          for name in DEFINED.findall(path.read_text(encoding="utf-8"))}
DOCS = "".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])


def test_the_namespace_has_macros():
    assert len(MACROS) > 100


def test_every_public_macro_is_documented():
    dispatched = {name.split("__", 1)[1] for name in MACROS if "__" in name}
    public = sorted(name for name in MACROS
                    if not name.startswith("_") and "__" not in name and name not in dispatched)
    assert public, "the package has public entry points"
    undocumented = [f"{name} ({MACROS[name].relative_to(ROOT)})" for name in public
                    if not re.search(rf"sqlndcg\.{name}\b", DOCS)]
    assert not undocumented, ("public macros the docs never show; document them as sqlndcg.<name> or make them "
                              "private with a leading underscore: " + ", ".join(undocumented))


def test_no_name_repeats_the_package_prefix():
    assert not [name for name in MACROS if name.lstrip("_").startswith("sqlndcg_")]
