"""Write the example's seeds: logged rankings of two systems over four days, and the behaviour events (click,
add-to-cart, purchase) that the `judgments` model grades. Deterministic: the same files on every run.

    python dbt_example/scripts/make_seeds.py
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
DAYS = ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"]
SYSTEMS = {"baseline": 0.0, "ltr_v2": 0.35}  # how strongly each system's score follows the true relevance


def main() -> None:
    rng = random.Random(20261101)
    rankings, events = [], []
    for ds in DAYS:
        for q in range(1, 16):
            query = f"q{q:02d}"
            docs = [f"sku-{q:02d}-{d:02d}" for d in range(1, 13)]
            truth = {d: rng.choice([0, 0, 0, 0, 1, 1, 2, 3]) for d in docs}
            for system, skill in SYSTEMS.items():
                shown = docs[: rng.randint(6, 10)] if q != 15 else docs[:3]
                for doc in shown:
                    score = round(rng.random() + skill * truth[doc], 2)
                    rankings.append((system, ds, query, doc, score))
            for doc, grade in truth.items():
                # The strongest event a user showed for the document that day; some repeat or conflict.
                kinds = ["click", "add_to_cart", "purchase"][:grade]
                for kind in kinds:
                    for _ in range(rng.randint(1, 2)):
                        events.append((ds, query, doc, kind))
    _write("rankings.csv", ("system", "ds", "query_id", "doc_id", "score"), rankings)
    _write("events.csv", ("ds", "query_id", "doc_id", "event"), events)
    _click_log()


def _click_log() -> None:
    """The first 300 impressions of the bundled click log (sqlndcg/examples/clicks.csv, from the tests' seeded
    simulator: users examine position p with probability 1 / p^0.8), without its logged propensity column."""
    source = SEEDS.parent.parent / "sqlndcg" / "examples" / "clicks.csv"
    with open(source, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    keep = [header.index(c) for c in ("impression_id", "query_id", "doc_id", "position", "click", "randomized")]
    first = {f"i{i}" for i in range(1, 301)}
    _write("click_log.csv", tuple(header[i] for i in keep), [[r[i] for i in keep] for r in body if r[0] in first])


def _write(name: str, header: tuple, rows: list) -> None:
    with open(SEEDS / name, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


if __name__ == "__main__":
    main()
